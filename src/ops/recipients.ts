/**
 * Recipient look-ups and edits on top of the WatermarkingClient: which names already exist,
 * resolve a name or id to the originally registered recipient, and edit with plain results.
 */
import {
  isServiceCondition as apiIsServiceCondition,
  type ErrorCondition,
  errorCondition,
} from '../api/error-codes.js';
import { ProtocolError, ServiceError, TransportError, ValidationError } from '../api/errors.js';
import { PageWalk } from '../api/paging.js';
import type { Recipient, RecipientPatch, TimeValue, WatermarkingClient } from '../api/types.js';
import { checkRecipientDescription, checkRecipientName, LIMITS, nameKey } from '../api/validate.js';
import { editDistance } from '../edit-distance.js';

// ---------------------------------------------------------------------------------------------
// Service failure conditions
// ---------------------------------------------------------------------------------------------

/** True when `e` is the service's failure for `condition` (codes from src/api/error-codes.ts). */
export function isServiceCondition(e: unknown, condition: ErrorCondition): e is ServiceError {
  return apiIsServiceCondition(e, condition);
}

/**
 * True when a failed write may nevertheless have been applied: a TransportError flagged ambiguous
 * by the HTTP layer (timeout/reset after sending, 5xx), or a ProtocolError (the service answered, so it may have acted, but the body was unreadable).
 */
export function isAmbiguousWriteFailure(e: unknown): boolean {
  if (e instanceof TransportError) return e.ambiguous;
  return e instanceof ProtocolError;
}

// ---------------------------------------------------------------------------------------------
// findExisting
// ---------------------------------------------------------------------------------------------

export interface FindExistingOptions {
  /**
   * `auto` (default) picks the cheaper strategy; `list` reads every recipient of the site;
   * `search` sends the names as search keywords. `list` does not depend on how the service matches
   * keywords (the spec does not say if the match is case-insensitive), so callers re-checking
   * after a duplicate refusal use it.
   */
  strategy?: 'auto' | 'list' | 'search';
  /** Keywords per search call (spec allows repeating search_keyword). Default 40. */
  keywordsPerCall?: number;
  /** Upper bound of the summed keyword length per call, keeping the URL short. Default 2000. */
  maxKeywordChars?: number;
}

const PAGE_MAX = LIMITS.pageUnitMax;

/**
 * Which of `names` are registered on the site, compared case-insensitively. Answer keys are
 * `nameKey(name)`, values the registered recipient (with its original case).
 *
 * Strategy (auto): with at most one keyword call's worth of names, search by keyword (1 call plus
 * paging). Otherwise one `page_unit=1` call reads the total, then compare the calls each way:
 * listing costs ceil(total/1000) calls, searching about ceil(names/40). The keyword match is a
 * substring match, so search results are filtered to exact case-insensitive matches here.
 */
export async function findExisting(
  client: WatermarkingClient,
  siteId: string,
  names: readonly string[],
  opts: FindExistingOptions = {},
): Promise<Map<string, Recipient>> {
  const wanted = new Map<string, string>();
  for (const n of names) if (n) wanted.set(nameKey(n), n);
  const out = new Map<string, Recipient>();
  if (wanted.size === 0) return out;

  const groups = keywordGroups(
    [...wanted.values()],
    opts.keywordsPerCall ?? 40,
    opts.maxKeywordChars ?? 2000,
  );
  let strategy = opts.strategy ?? 'auto';
  if (strategy === 'auto') {
    if (groups.length <= 1) {
      strategy = 'search';
    } else {
      const probe = await client.searchRecipients(siteId, { pageUnit: 1, pageIndex: 1 });
      const listCalls = Math.ceil(probe.totalCount / PAGE_MAX);
      strategy = listCalls <= groups.length ? 'list' : 'search';
      if (probe.totalCount === 0) return out;
    }
  }

  const take = (r: Recipient) => {
    const key = nameKey(r.name);
    if (!wanted.has(key)) return;
    const prev = out.get(key);
    // Two recipients differing only in case should not exist (rule 3); if they do, the lower
    // dwmId is the one registered first, which rule 4 says is the one a name refers to.
    if (!prev || r.dwmId < prev.dwmId) out.set(key, r);
  };

  if (strategy === 'list') {
    await forEachPage(client, siteId, undefined, take);
  } else {
    for (const g of groups) await forEachPage(client, siteId, g, take);
  }
  return out;
}

/** Read every page of a recipient search. */
async function forEachPage(
  client: WatermarkingClient,
  siteId: string,
  keywords: string[] | undefined,
  visit: (r: Recipient) => void,
): Promise<void> {
  let pageIndex = 1;
  const walk = new PageWalk();
  for (;;) {
    const page = await client.searchRecipients(
      siteId,
      keywords ? { keywords, pageUnit: PAGE_MAX, pageIndex } : { pageUnit: PAGE_MAX, pageIndex },
    );
    const fresh = walk.fresh(page.items, (r) => r.dwmId);
    for (const r of fresh) visit(r);
    if (!walk.next(page, fresh.length)) return;
    pageIndex++;
  }
}

function keywordGroups(names: string[], perCall: number, maxChars: number): string[][] {
  const groups: string[][] = [];
  let cur: string[] = [];
  let chars = 0;
  for (const n of names) {
    if (cur.length > 0 && (cur.length >= perCall || chars + n.length > maxChars)) {
      groups.push(cur);
      cur = [];
      chars = 0;
    }
    cur.push(n);
    chars += n.length;
  }
  if (cur.length > 0) groups.push(cur);
  return groups;
}

/** A lookup bound to a client and site, in the shape planRegistration takes. */
export function existingLookup(client: WatermarkingClient, siteId: string, opts: FindExistingOptions = {}) {
  return (names: string[]) => findExisting(client, siteId, names, opts);
}

// ---------------------------------------------------------------------------------------------
// resolveRecipient
// ---------------------------------------------------------------------------------------------

export type ResolveResult =
  | {
      ok: true;
      recipient: Recipient;
      matchedBy: 'id' | 'name';
      /** False when the name was given in another case than registered (rule 4). */
      exactCase: boolean;
    }
  | {
      ok: false;
      reason: 'not-found' | 'invalid';
      message: string;
      /** Close names on the site (best first, at most 5). */
      suggestions: Recipient[];
    };

/**
 * A DWM ID (digits only) or a recipient name to the recipient. Names resolve case-insensitively
 * to the originally registered recipient (spec rule 4). When nothing matches, suggestions are
 * names containing the input, or else names sharing its first three characters, ranked by edit
 * distance.
 */
export async function resolveRecipient(
  client: WatermarkingClient,
  siteId: string,
  idOrName: string,
): Promise<ResolveResult> {
  const input = idOrName.trim();
  if (/^\d+$/.test(input)) {
    const dwmId = Number(input);
    if (!Number.isSafeInteger(dwmId) || dwmId <= 0) {
      return { ok: false, reason: 'invalid', message: `${input} is not a valid DWM ID.`, suggestions: [] };
    }
    try {
      const recipient = await client.getRecipient(siteId, dwmId);
      return { ok: true, recipient, matchedBy: 'id', exactCase: true };
    } catch (e) {
      if (isServiceCondition(e, 'recipientNotFound')) {
        return {
          ok: false,
          reason: 'not-found',
          message: `No recipient has DWM ID ${dwmId} on site ${siteId}.`,
          suggestions: [],
        };
      }
      throw e;
    }
  }
  const problem = checkRecipientName(input);
  if (problem) return { ok: false, reason: 'invalid', message: problem, suggestions: [] };

  const candidates = new Map<number, Recipient>();
  await forEachPage(client, siteId, [input], (r) => candidates.set(r.dwmId, r));
  const key = nameKey(input);
  let match: Recipient | undefined;
  for (const r of candidates.values()) {
    if (nameKey(r.name) === key && (!match || r.dwmId < match.dwmId)) match = r;
  }
  if (match) return { ok: true, recipient: match, matchedBy: 'name', exactCase: match.name === input };

  if (candidates.size === 0 && input.length > 3) {
    const page = await client.searchRecipients(siteId, {
      keywords: [input.slice(0, 3)],
      pageUnit: PAGE_MAX,
      pageIndex: 1,
    });
    for (const r of page.items) candidates.set(r.dwmId, r);
  }
  return {
    ok: false,
    reason: 'not-found',
    message: `No recipient named "${input}" on site ${siteId}.`,
    suggestions: rankSuggestions(input, [...candidates.values()]),
  };
}

/** Best `limit` candidates by case-insensitive edit distance, only reasonably close ones. */
export function rankSuggestions(input: string, candidates: Recipient[], limit = 5): Recipient[] {
  const key = nameKey(input);
  const maxDistance = Math.max(2, Math.floor(key.length / 3));
  return candidates
    .map((r) => {
      const k = nameKey(r.name);
      const contains = k.includes(key) || key.includes(k);
      const d = editDistance(key, k, { transpositions: false });
      return { r, d: contains ? Math.min(1, d) : d };
    })
    .filter((x) => x.d <= maxDistance)
    .sort((a, b) => a.d - b.d || a.r.name.localeCompare(b.r.name))
    .slice(0, limit)
    .map((x) => x.r);
}

// ---------------------------------------------------------------------------------------------
// editRecipient
// ---------------------------------------------------------------------------------------------

export const IN_USE_MESSAGE =
  "The recipient is being used by a running watermarking task, so it can't be changed until the task finishes.";

export type EditResult =
  | { ok: true; dwmId: number; updateTime: TimeValue }
  | { ok: false; reason: 'validation'; message: string; fieldErrors: Record<string, string> }
  | { ok: false; reason: 'in-use'; message: string }
  | { ok: false; reason: 'duplicate'; message: string }
  | { ok: false; reason: 'not-found'; message: string };

/** Validate, then modify. Service refusals become plain results; other failures are thrown. */
/** True when another recipient than `dwmId` holds `name` (case-insensitively); false if unsure. */
async function nameTakenByAnother(
  client: WatermarkingClient,
  siteId: string,
  name: string,
  dwmId: number,
): Promise<boolean> {
  try {
    const found = (await findExisting(client, siteId, [name], { strategy: 'list' })).get(nameKey(name));
    return found !== undefined && found.dwmId !== dwmId;
  } catch {
    return false;
  }
}

export async function editRecipient(
  client: WatermarkingClient,
  siteId: string,
  dwmId: number,
  patch: RecipientPatch,
): Promise<EditResult> {
  const fieldErrors: Record<string, string> = {};
  const clean: RecipientPatch = {};
  if (patch.name !== undefined) {
    clean.name = patch.name.trim();
    const p = checkRecipientName(clean.name);
    if (p) fieldErrors.name = p;
  }
  if (patch.description !== undefined) {
    clean.description = patch.description.trim();
    const p = checkRecipientDescription(clean.description);
    if (p) fieldErrors.description = p;
  }
  if (clean.name === undefined && clean.description === undefined) {
    fieldErrors.name = 'Give a new name or a new description (or both).';
  }
  if (Object.keys(fieldErrors).length > 0) {
    return { ok: false, reason: 'validation', message: Object.values(fieldErrors).join(' '), fieldErrors };
  }
  try {
    const res = await client.modifyRecipient(siteId, dwmId, clean);
    return { ok: true, dwmId: res.dwmId, updateTime: res.updateTime };
  } catch (e) {
    if (isServiceCondition(e, 'recipientInUse'))
      return { ok: false, reason: 'in-use', message: IN_USE_MESSAGE };
    // A duplicate is recognised by its code or, when the service uses a code the table does not
    // know, by looking the new name up (another recipient holds it).
    if (
      isServiceCondition(e, 'duplicateRecipient') ||
      (e instanceof ServiceError &&
        errorCondition(e) === undefined &&
        clean.name !== undefined &&
        (await nameTakenByAnother(client, siteId, clean.name, dwmId)))
    ) {
      return {
        ok: false,
        reason: 'duplicate',
        message: `Another recipient on site ${siteId} is already named "${clean.name ?? ''}" (names are compared without regard to upper/lower case). Choose another name.`,
      };
    }
    if (isServiceCondition(e, 'recipientNotFound')) {
      return {
        ok: false,
        reason: 'not-found',
        message: `No recipient has DWM ID ${dwmId} on site ${siteId}.`,
      };
    }
    if (e instanceof ValidationError) {
      const errs: Record<string, string> = {};
      for (const i of e.issues) errs[i.field] = i.message;
      return {
        ok: false,
        reason: 'validation',
        message: e.issues.map((i) => i.message).join(' '),
        fieldErrors: errs,
      };
    }
    throw e;
  }
}
