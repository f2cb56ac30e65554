/**
 * Channel subscriptions (watch, unwatch, the list of watches): validation of filters,
 * idempotent create (one subscription per channel + site + statuses + content), list, remove,
 * pause, resume. Stored in `store.docs('subscriptions')`, namespaced by workspace.
 */
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { JOB_STATUS, JOB_STATUS_CODES, type JobStatusCode } from '../api/codes.js';
import type { ValidationIssue } from '../api/errors.js';
import { checkSiteId, optionTokens, passes } from '../api/validate.js';
import type { AtomicDocRepo, Store, WorkspaceKey } from '../store/types.js';
import { checkLimit } from './limits.js';
import type { Subscription, WatchFilters, WatchMode } from './types.js';

export const SUBSCRIPTIONS_NS = 'subscriptions';
/** Registry of workspaces that have subscriptions (the watcher's work list). */
export const REGISTRY_NS = 'watch-registry';
export const REGISTRY_KEY = '_global';
/**
 * A workspace's subscription change stamp (one document, id `v`): set to a new random value after
 * every subscription write, so a watcher re-reads the workspace's subscriptions only when they
 * changed (see `listForWatch`).
 */
export const STAMP_NS = 'subscriptions-stamp';
const STAMP_ID = 'v';
/**
 * How long `listForWatch` trusts an unchanged stamp at most: a writer killed between its document
 * and its stamp is seen after this long at the latest.
 */
export const LIST_FOR_WATCH_MAX_AGE_MS = 5 * 60_000;

const CONTENT_PATTERN_RE = /^[A-Za-z0-9._-]{1,200}\*?$/;

const jobStatusSchema = z.enum(JOB_STATUS_CODES as [JobStatusCode, ...JobStatusCode[]]);

export const subscriptionSchema = z.object({
  id: z.string().min(1),
  workspace: z.string().min(1),
  channelId: z.string().min(1),
  siteId: z.string().min(1),
  statuses: z.array(jobStatusSchema),
  content: z.string().optional(),
  mode: z.enum(['all', 'failures']),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  paused: z
    .object({ reason: z.string(), code: z.string(), at: z.string(), by: z.string().optional() })
    .optional(),
});

const SUBSCRIPTION_KEYS = new Set(Object.keys(subscriptionSchema.shape));
const PAUSED_KEYS = new Set(['reason', 'code', 'at', 'by']);
const STATUS_CODES = new Set<string>(JOB_STATUS_CODES);
const nonEmpty = (v: unknown) => typeof v === 'string' && v.length > 0;
const optText = (v: unknown) => v === undefined || typeof v === 'string';

/**
 * A stored subscription in the shape this code writes, checked without zod (the watcher reads
 * every subscription every few seconds); anything else goes through subscriptionSchema. Same
 * result as the schema: the document itself when it has exactly the schema's fields (a freshly
 * parsed document, not shared), undefined when the schema refuses it.
 */
export function readSubscription(raw: unknown): Subscription | undefined {
  if (isCleanSubscription(raw)) return raw;
  const parsed = subscriptionSchema.safeParse(raw);
  return parsed.success ? (parsed.data as Subscription) : undefined;
}

function isCleanSubscription(v: unknown): v is Subscription {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!SUBSCRIPTION_KEYS.has(k)) return false;
  if (!nonEmpty(o.id) || !nonEmpty(o.workspace) || !nonEmpty(o.channelId) || !nonEmpty(o.siteId))
    return false;
  if (typeof o.createdBy !== 'string' || typeof o.createdAt !== 'string') return false;
  if (!optText(o.content) || !optText(o.updatedAt)) return false;
  if (o.mode !== 'all' && o.mode !== 'failures') return false;
  if (!Array.isArray(o.statuses)) return false;
  for (const st of o.statuses) if (typeof st !== 'string' || !STATUS_CODES.has(st)) return false;
  const p = o.paused;
  if (p !== undefined) {
    if (p === null || typeof p !== 'object' || Array.isArray(p)) return false;
    const q = p as Record<string, unknown>;
    for (const k of Object.keys(q)) if (!PAUSED_KEYS.has(k)) return false;
    if (typeof q.reason !== 'string' || typeof q.code !== 'string' || typeof q.at !== 'string') return false;
    if (!optText(q.by)) return false;
  }
  return true;
}

/** Parse one status word: a code (DM500) or its name (completed, error, ready, preprocessing). */
export function parseStatusWord(word: string): JobStatusCode | undefined {
  const w = word.trim().toUpperCase();
  if ((JOB_STATUS_CODES as string[]).includes(w)) return w as JobStatusCode;
  const aliases: Record<string, JobStatusCode> = { FAILED: 'DM600', FAILURE: 'DM600', DONE: 'DM500' };
  if (aliases[w]) return aliases[w];
  for (const code of JOB_STATUS_CODES) if (JOB_STATUS[code] === w) return code;
  return undefined;
}

export interface ParsedWatchArgs {
  siteId?: string;
  filters: WatchFilters;
  issues: ValidationIssue[];
}

/**
 * Parse `[site:<site id>] [status:completed,error] [content:prefix*] [mode:all|failures]` tokens.
 * Unknown tokens and bad values become issues with a sentence saying what to fix.
 */
export function parseWatchArgs(tokens: string[]): ParsedWatchArgs {
  const issues: ValidationIssue[] = [];
  const filters: WatchFilters = { statuses: [], mode: 'all' };
  let siteId: string | undefined;
  for (const { tok, key, value } of optionTokens(tokens)) {
    if (key === 'site') {
      if (passes(issues, 'site', checkSiteId(value))) siteId = value;
    } else if (key === 'status') {
      const words = value.split(',').filter((w) => w.trim());
      if (words.length === 0) {
        issues.push({ field: 'status', message: 'Give at least one status, like status:completed,error.' });
      }
      for (const w of words) {
        const code = parseStatusWord(w);
        if (!code) {
          issues.push({
            field: 'status',
            message: `"${w.slice(0, 30)}" is not a job status: use ready, preprocessing, completed or error.`,
          });
        } else if (!filters.statuses.includes(code)) filters.statuses.push(code);
      }
    } else if (key === 'content') {
      if (passes(issues, 'content', checkContentPattern(value))) filters.content = value;
    } else if (key === 'mode') {
      const m = value.toLowerCase();
      if (m === 'all' || m === 'failures') filters.mode = m as WatchMode;
      else
        issues.push({
          field: 'mode',
          message: `"${value.slice(0, 30)}" is not a mode: use mode:all or mode:failures.`,
        });
    } else {
      issues.push({
        field: tok.slice(0, 30),
        message:
          'Unknown option: use site:<site id>, status:completed,error, content:prefix* or mode:all|failures.',
      });
    }
  }
  filters.statuses.sort();
  return { ...(siteId ? { siteId } : {}), filters, issues };
}

export function checkContentPattern(pattern: string): string | null {
  if (!CONTENT_PATTERN_RE.test(pattern)) {
    return `"${pattern.slice(0, 40)}" is not a content filter: use a content id (letters, digits, -, _ and .), optionally ending in * to match a prefix, like content:trailer-*.`;
  }
  return null;
}

/** True when the content id matches the pattern (`abc*` prefix, otherwise exact). */
export function contentMatches(pattern: string | undefined, contentId: string): boolean {
  if (!pattern) return true;
  if (pattern.endsWith('*')) return contentId.startsWith(pattern.slice(0, -1));
  return contentId === pattern;
}

export function subscriptionId(
  channelId: string,
  siteId: string,
  f: Pick<WatchFilters, 'statuses' | 'content'>,
) {
  const basis = [channelId, siteId, [...f.statuses].sort().join(','), f.content ?? ''].join('|');
  return `sub_${createHash('sha256').update(basis).digest('hex').slice(0, 16)}`;
}

export interface CreateSubscriptionInput {
  channelId: string;
  siteId: string;
  filters: WatchFilters;
  createdBy: string;
  /** WATCHES_MAX_PER_WORKSPACE: a NEW subscription beyond it is refused (WorkspaceLimitError). */
  limit?: number;
}

export interface CreateResult {
  subscription: Subscription;
  /** 'created' new, 'resumed' it was paused, 'updated' mode changed, 'unchanged' already there. */
  outcome: 'created' | 'resumed' | 'updated' | 'unchanged';
}

export class SubscriptionError extends Error {
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.message}`).join('; '));
    this.name = 'SubscriptionError';
    this.issues = issues;
  }
}

export class Subscriptions {
  /** Called after every create, remove, pause and resume (the watcher drops its site list). */
  onChange: (() => void) | undefined;
  private readonly repo: AtomicDocRepo<Subscription>;
  private readonly registry: AtomicDocRepo<{ workspaces: string[] }>;
  private readonly stamps: AtomicDocRepo<{ v: string }>;
  /** listForWatch's last listing per workspace, with the stamp read before it. */
  private readonly watchCache = new Map<string, { stamp: string; at: number; list: Subscription[] }>();
  constructor(
    store: Store,
    private readonly now: () => number = Date.now,
  ) {
    this.repo = store.docs<Subscription>(SUBSCRIPTIONS_NS);
    this.registry = store.docs<{ workspaces: string[] }>(REGISTRY_NS);
    this.stamps = store.docs<{ v: string }>(STAMP_NS);
  }

  /**
   * A new change stamp for the workspace. Written AFTER the subscription documents: a reader that
   * still sees the old stamp has listed before the change or will list again; one that sees the
   * new stamp lists after the documents were written.
   */
  private async touch(ws: WorkspaceKey): Promise<void> {
    await this.stamps.put(ws, STAMP_ID, { v: randomUUID() });
  }

  /**
   * Every subscription of the workspace, for the watcher's re-listing of its targets (every few
   * seconds, on every replica): the documents are read again only when the workspace's change
   * stamp moved since the last call (any replica's create, remove, pause, resume) or the last
   * listing is older than LIST_FOR_WATCH_MAX_AGE_MS; otherwise one small read and the same array.
   * A workspace without a stamp (subscriptions written before stamps existed, or purged) gets one.
   */
  async listForWatch(ws: WorkspaceKey): Promise<Subscription[]> {
    let stamp = (await this.stamps.get(ws, STAMP_ID))?.v;
    const now = this.now();
    const hit = this.watchCache.get(ws);
    if (hit && stamp !== undefined && hit.stamp === stamp && now - hit.at < LIST_FOR_WATCH_MAX_AGE_MS) {
      return hit.list;
    }
    if (stamp === undefined) {
      // Set before listing: a write after this listing then moves the stamp again.
      stamp = randomUUID();
      await this.stamps.put(ws, STAMP_ID, { v: stamp });
    }
    const list = await this.list(ws);
    this.watchCache.set(ws, { stamp, at: now, list });
    return list;
  }

  async create(ws: WorkspaceKey, input: CreateSubscriptionInput): Promise<CreateResult> {
    try {
      const r = await this.createInner(ws, input);
      // Also after 'unchanged': creating again may have repaired the index (see createInner).
      await this.touch(ws);
      return r;
    } finally {
      this.onChange?.();
    }
  }

  private async createInner(ws: WorkspaceKey, input: CreateSubscriptionInput): Promise<CreateResult> {
    const issues: ValidationIssue[] = [];
    const siteFinding = checkSiteId(input.siteId);
    if (siteFinding) issues.push({ field: 'site', message: siteFinding });
    if (input.filters.content !== undefined) {
      const f = checkContentPattern(input.filters.content);
      if (f) issues.push({ field: 'content', message: f });
    }
    if (!input.channelId)
      issues.push({
        field: 'channel',
        message: 'Subscribe from the channel itself: a subscription needs its channel.',
      });
    for (const s of input.filters.statuses) {
      if (!jobStatusSchema.safeParse(s).success)
        issues.push({ field: 'status', message: `Unknown status ${s}.` });
    }
    if (input.filters.mode !== 'all' && input.filters.mode !== 'failures') {
      issues.push({ field: 'mode', message: 'Use mode:all or mode:failures.' });
    }
    if (issues.length) throw new SubscriptionError(issues);

    const statuses = [...new Set(input.filters.statuses)].sort();
    const id = subscriptionId(input.channelId, input.siteId, { statuses, content: input.filters.content });
    const at = new Date(this.now()).toISOString();
    const existing = await this.get(ws, id);
    if (existing) {
      // Creating again also repairs what a kill -9 in the first create may have left half done:
      // the id missing from the index (list() would not see the subscription) or the workspace
      // missing from the registry (the watcher would never poll it). Both are no-ops otherwise.
      await this.repo.update(ws, id, (old) => old);
      await this.register(ws);
      const resumed = !!existing.paused;
      const modeChanged = existing.mode !== input.filters.mode;
      if (!resumed && !modeChanged) return { subscription: existing, outcome: 'unchanged' };
      const { paused: _p, ...rest } = existing;
      const next: Subscription = { ...rest, mode: input.filters.mode, updatedAt: at };
      await this.repo.put(ws, id, next);
      return { subscription: next, outcome: resumed ? 'resumed' : 'updated' };
    }
    if (input.limit !== undefined) checkLimit('watches', (await this.list(ws)).length, input.limit);
    const sub: Subscription = {
      id,
      workspace: ws,
      channelId: input.channelId,
      siteId: input.siteId,
      statuses,
      ...(input.filters.content !== undefined ? { content: input.filters.content } : {}),
      mode: input.filters.mode,
      createdBy: input.createdBy,
      createdAt: at,
    };
    await this.repo.put(ws, id, sub);
    await this.register(ws);
    return { subscription: sub, outcome: 'created' };
  }

  async get(ws: WorkspaceKey, id: string): Promise<Subscription | undefined> {
    const raw = await this.repo.get(ws, id);
    return raw === undefined ? undefined : readSubscription(raw);
  }

  /** Every subscription of the workspace, optionally of one channel, oldest first. */
  async list(ws: WorkspaceKey, opts: { channelId?: string; siteId?: string } = {}): Promise<Subscription[]> {
    // Each document read once (the watcher lists every subscription every few seconds).
    const docs = this.repo.entries
      ? (await this.repo.entries(ws)).map(([, raw]) => readSubscription(raw))
      : await Promise.all((await this.repo.list(ws)).map((id) => this.get(ws, id)));
    const out: Subscription[] = [];
    for (const s of docs) {
      if (!s) continue;
      if (opts.channelId && s.channelId !== opts.channelId) continue;
      if (opts.siteId && s.siteId !== opts.siteId) continue;
      out.push(s);
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** Remove one subscription by id, or every subscription of a channel (optionally of one site). */
  async remove(
    ws: WorkspaceKey,
    target: { id: string } | { channelId: string; siteId?: string },
  ): Promise<number> {
    const victims =
      'id' in target
        ? [await this.get(ws, target.id)].filter((s): s is Subscription => !!s)
        : await this.list(ws, target);
    for (const s of victims) await this.repo.delete(ws, s.id);
    if (victims.length) {
      await this.touch(ws);
      this.onChange?.();
    }
    return victims.length;
  }

  async pause(ws: WorkspaceKey, id: string, why: { reason: string; code: string; by?: string }) {
    const s = await this.get(ws, id);
    if (!s) return undefined;
    const next: Subscription = {
      ...s,
      paused: {
        reason: why.reason,
        code: why.code,
        at: new Date(this.now()).toISOString(),
        ...(why.by ? { by: why.by } : {}),
      },
    };
    await this.repo.put(ws, id, next);
    await this.touch(ws);
    this.onChange?.();
    return next;
  }

  async resume(ws: WorkspaceKey, id: string): Promise<Subscription | undefined> {
    const s = await this.get(ws, id);
    if (!s) return undefined;
    if (!s.paused) return s;
    const { paused: _p, ...rest } = s;
    const next: Subscription = { ...rest, updatedAt: new Date(this.now()).toISOString() };
    await this.repo.put(ws, id, next);
    await this.touch(ws);
    this.onChange?.();
    return next;
  }

  /** Workspaces that ever had a subscription (the watcher polls those with active ones). */
  async workspaces(): Promise<string[]> {
    return (await this.registry.get(REGISTRY_KEY, 'workspaces'))?.workspaces ?? [];
  }

  private async register(ws: WorkspaceKey): Promise<void> {
    const cur = await this.workspaces();
    if (cur.includes(ws)) return;
    // Atomic read-modify-write: two workspaces subscribing at once (or two replicas) both stay.
    await this.registry.update(REGISTRY_KEY, 'workspaces', (old) => {
      const list = old?.workspaces ?? [];
      return list.includes(ws) ? old : { workspaces: [...list, ws] };
    });
  }
}

/** The same subscriptions, field by field, in the same order (a listing that did not change). */
export function sameSubscriptions(a: readonly Subscription[], b: readonly Subscription[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++)
    if (!sameSubscription(a[i] as Subscription, b[i] as Subscription)) return false;
  return true;
}

function sameSubscription(a: Subscription, b: Subscription): boolean {
  if (
    a.id !== b.id ||
    a.workspace !== b.workspace ||
    a.channelId !== b.channelId ||
    a.siteId !== b.siteId ||
    a.mode !== b.mode ||
    a.content !== b.content ||
    a.createdBy !== b.createdBy ||
    a.createdAt !== b.createdAt ||
    a.updatedAt !== b.updatedAt ||
    a.statuses.length !== b.statuses.length ||
    a.statuses.some((s, i) => s !== b.statuses[i])
  ) {
    return false;
  }
  const p = a.paused;
  const q = b.paused;
  if (!p || !q) return p === q;
  return p.reason === q.reason && p.code === q.code && p.at === q.at && p.by === q.by;
}

/** True when a job in `status` with `contentId` passes the subscription's filters. */
export function subscriptionMatches(sub: Subscription, status: JobStatusCode, contentId: string): boolean {
  if (sub.statuses.length > 0 && !sub.statuses.includes(status)) return false;
  return contentMatches(sub.content, contentId);
}
