/**
 * Workspace setup: check the form (./setup/form.ts), verify the credentials live, save what
 * verified (encrypted by the store's vault), and report the status with secrets masked. No Slack
 * here: the setup listeners turn these results into modals.
 *
 * Choices (documented here, the spec says nothing):
 * - All-or-nothing: credentials are saved only when EVERY part given (watermarking token for every
 *   site, Service API site list) verified; a partial save could leave the bot half working with
 *   no one noticing.
 * - A secret left blank keeps the saved one of the same part (so a site can be added without
 *   re-typing keys); it is verified again with the rest. But a saved secret is only ever sent to
 *   the origin (scheme, host, port) it was saved for: when the part's base URL moves to another
 *   origin, the secret must be entered again (an admin must not be able to send the stored keys
 *   to a host of their choosing). Saving records the old and new hosts in the audit log (hosts
 *   only, never a secret or a URL path/query).
 * - Base URLs must be allowed upstream origins (src/api/origins.ts, UPSTREAM_ALLOWED_ORIGINS):
 *   checked inline when the caller passes the policy, and in any case by the HTTP layer before
 *   the live check connects anywhere. A failing probe never echoes what the host answered
 *   (status, body): only "could not be reached" or "is not a service endpoint".
 */

import { errorCondition } from '../api/error-codes.js';
import {
  AuthError,
  PermissionError,
  ProtocolError,
  refusalExplanation,
  ServiceError,
  TransportError,
  ValidationError,
} from '../api/errors.js';
import { OriginRefusedError } from '../api/http.js';
import type { WorkspaceCredentials } from '../api/types.js';
import { registerSecret } from '../log.js';
import type { WorkspaceKey } from '../store/types.js';
import { audit } from './audit.js';
import { hostOf, maskSecret, refusedUrl, type SetupField, sameOrigin } from './setup/form.js';
import { loadCredentials, type OpsDeps } from './workspace.js';

export {
  checkSetupForm,
  hostOf,
  maskSecret,
  SECRET_FIELDS,
  SETUP_FIELDS,
  type SetupCheck,
  type SetupErrors,
  type SetupField,
  type SetupForm,
  type UpstreamCheck,
} from './setup/form.js';

export interface VerifyFailure {
  part: 'watermarking' | 'service';
  siteId?: string;
  /** The form field the failure belongs to. */
  field: SetupField;
  /** Plain words: what the service said and what to fix. Never a secret. */
  message: string;
}

export type VerifyResult =
  | {
      ok: true;
      verifiedAt: string;
      /** What verified with a reservation (a 403 on the site list: the JWT was accepted). */
      notes?: string[];
    }
  | { ok: false; failures: VerifyFailure[] };

function describe(
  part: 'watermarking' | 'service',
  e: unknown,
  siteId?: string,
): Omit<VerifyFailure, 'part'> {
  const api = part === 'watermarking' ? 'The Watermarking API' : 'The Service API';
  const secretField: SetupField = part === 'watermarking' ? 'wmAccessKey' : 'svcSecretKey';
  const urlField: SetupField = part === 'watermarking' ? 'wmBaseUrl' : 'svcBaseUrl';
  const site = siteId ? ` for site ${siteId}` : '';
  const base = siteId ? { siteId } : {};
  if (e instanceof AuthError) {
    return {
      ...base,
      field: secretField,
      message: `${api} refused the account id or key${site}. Check both and enter the key again. ${refusalExplanation(e)}`,
    };
  }
  if (e instanceof PermissionError) {
    return {
      ...base,
      field: secretField,
      message: `${api} says this account may not use it${site}. ${refusalExplanation(e)}`,
    };
  }
  if (e instanceof ServiceError && e.httpStatus === 404 && errorCondition(e) === undefined) {
    // An error envelope with HTTP 404 and a code of no known condition: no such endpoint there.
    return {
      ...base,
      field: urlField,
      message: `${api} URL given is not a service endpoint${site}. Check the URL (scheme, host, port and path).`,
    };
  }
  if (e instanceof ServiceError) {
    const cond = errorCondition(e);
    if (cond === 'siteNotFound') {
      return {
        ...base,
        field: 'siteIds',
        message: `${api}: site ${siteId ?? ''} does not exist or this account does not own it (${e.code}: ${e.serviceMessage}).`,
      };
    }
    return { ...base, field: secretField, message: `${api} answered ${e.code}: ${e.serviceMessage}` };
  }
  if (e instanceof OriginRefusedError) {
    // Refused before any connection (the upstream allow-list): say what and how to allow it.
    return { ...base, field: urlField, message: refusedUrl(e.refusal.message, part) };
  }
  if (e instanceof TransportError && e.status !== undefined) {
    // Something answered, but not as the service (what it answered is not echoed: setup must not
    // work as a port scanner).
    return {
      ...base,
      field: urlField,
      message: `${api} URL given is not a service endpoint${site}. Check the URL (scheme, host, port and path).`,
    };
  }
  if (e instanceof TransportError) {
    return {
      ...base,
      field: urlField,
      message: `${api} could not be reached at the URL given${site}. Check the URL, or try again later.`,
    };
  }
  if (e instanceof ProtocolError) {
    return {
      ...base,
      field: urlField,
      message: `${api} URL given is not a service endpoint${site} (its answer is not the service's format). Check the URL.`,
    };
  }
  if (e instanceof ValidationError) {
    return { ...base, field: 'siteIds', message: e.issues.map((i) => `${i.field}: ${i.message}`).join(' ') };
  }
  return { ...base, field: urlField, message: `${api} check failed unexpectedly${site}; try again.` };
}

/**
 * The entered site ids that the Service API account does not list, as a message (undefined when
 * all are listed). The site list is read tolerantly: when it cannot be read in the documented
 * shape (a service newer than the spec), the membership check is skipped rather than failing a
 * setup whose credentials did verify; the watermarking token call per site still checks each id.
 */
async function sitesNotInAccount(
  svc: ReturnType<OpsDeps['api']['service']>,
  siteIds: readonly string[],
): Promise<string | undefined> {
  let known: string[];
  try {
    known = (await svc.getSites()).map((s) => s.siteId);
  } catch {
    return undefined;
  }
  // Ids are compared exactly (the service's calls take them as given).
  const have = new Set(known);
  const missing = siteIds.filter((id) => !have.has(id));
  if (missing.length === 0) return undefined;
  const list = known.length
    ? `Its sites: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ` and ${known.length - 20} more` : ''}.`
    : 'It has no site yet.';
  return `The Service API account does not have site${missing.length > 1 ? 's' : ''} ${missing.join(', ')}. ${list} Remove ${missing.length > 1 ? 'them' : 'it'} or fix the spelling.`;
}

/** Live check: a watermarking token for every site, and the Service API site list. */
export async function verifySetup(deps: OpsDeps, creds: WorkspaceCredentials): Promise<VerifyResult> {
  // The keys just typed are secrets before they are saved: a service that echoes one in its
  // refusal has it masked (in the failure text shown and logged) like a saved key.
  registerSecret(creds.watermarking?.accessKey, creds.service?.secretKey);
  const failures: VerifyFailure[] = [];
  const jobs: Promise<void>[] = [];
  // The allow-list first: one clear failure per refused URL, and no call at all for that part
  // (the HTTP layer would refuse each call anyway, before connecting).
  const policy = deps.api.originPolicy;
  const refused = (part: 'watermarking' | 'service', url: string | undefined): boolean => {
    const r = url ? policy?.check(url) : null;
    if (!r) return false;
    failures.push({
      part,
      field: part === 'watermarking' ? 'wmBaseUrl' : 'svcBaseUrl',
      message: refusedUrl(r.message, part),
    });
    return true;
  };
  const wmRefused = refused('watermarking', creds.watermarking?.baseUrl);
  const svcRefused = refused('service', creds.service?.baseUrl);
  if (wmRefused || svcRefused) return { ok: false, failures };
  if (creds.watermarking) {
    const wm = deps.api.watermarking(creds.watermarking);
    for (const siteId of creds.siteIds) {
      jobs.push(
        wm.verify(siteId).catch((e: unknown) => {
          failures.push({ part: 'watermarking', ...describe('watermarking', e, siteId) });
        }),
      );
    }
  }
  const notes: string[] = [];
  if (creds.service) {
    const svc = deps.api.service(creds.service);
    jobs.push(
      (async () => {
        try {
          await svc.verify();
        } catch (e) {
          if (e instanceof PermissionError) {
            // A 403 means the JWT was accepted (a 401 says otherwise): the account id and key are
            // right. Permissions are per API, so only the site list is known to be out of reach.
            notes.push(
              `The Service API accepted the account id and key, but the site list is not permitted for this account, so the site ids were not checked against it (permissions are per API: other commands may still work). ${refusalExplanation(e)}`,
            );
            return;
          }
          failures.push({ part: 'service', ...describe('service', e) });
          return;
        }
        const unknown = await sitesNotInAccount(svc, creds.siteIds);
        if (unknown) failures.push({ part: 'service', field: 'siteIds', message: unknown });
      })(),
    );
  }
  await Promise.all(jobs);
  if (failures.length > 0) return { ok: false, failures };
  return { ok: true, verifiedAt: new Date(deps.now()).toISOString(), ...(notes.length ? { notes } : {}) };
}

/**
 * "Watermarking API host: old.example.com -> new.example.com" for each part whose origin changed
 * (hosts only: never a path, query or secret); undefined when none moved. A part added for the
 * first time or removed counts as a move from/to "(none)".
 */
export function hostChanges(
  before: WorkspaceCredentials | undefined,
  after: WorkspaceCredentials,
): string | undefined {
  const parts: string[] = [];
  const pairs: Array<[string, string | undefined, string | undefined]> = [
    ['Watermarking API', before?.watermarking?.baseUrl, after.watermarking?.baseUrl],
    ['Service API', before?.service?.baseUrl, after.service?.baseUrl],
  ];
  for (const [label, a, b] of pairs) {
    if (a === undefined && b === undefined) continue;
    if (a !== undefined && b !== undefined && sameOrigin(a, b)) continue;
    if (before === undefined) continue; // first setup: nothing moved
    parts.push(`${label} host: ${hostOf(a)} -> ${hostOf(b)}`);
  }
  return parts.length ? `credentials now go to another host. ${parts.join('; ')}` : undefined;
}

/**
 * Save verified credentials (encrypted by the vault) and lift an auth-failure polling pause. When
 * a part's host changed, an audit entry `setup.hosts` records the old and new hosts.
 */
export async function saveSetup(
  deps: OpsDeps,
  workspace: WorkspaceKey,
  credentials: WorkspaceCredentials,
  verifiedAt: string,
  userId: string,
): Promise<void> {
  const previous = (await deps.store.credentials.get(workspace).catch(() => undefined))?.credentials;
  await deps.store.credentials.put(workspace, { credentials, verifiedAt, savedBy: userId });
  const moves = hostChanges(previous, credentials);
  if (moves) {
    await audit(deps, workspace, { userId, action: 'setup.hosts', detail: moves, result: 'ok' });
  }
  const settings = await deps.store.settings.get(workspace);
  if (settings.pollingPausedReason) {
    const { pollingPausedReason: _cleared, ...rest } = settings;
    await deps.store.settings.put(workspace, rest);
  }
}

export interface SetupStatus {
  configured: boolean;
  source?: 'env' | 'store';
  readOnly: boolean;
  siteIds: string[];
  defaultSiteId?: string;
  watermarking?: { accountId: string; accessKey: string; baseUrl: string };
  service?: { accountId: string; accountSeq: string; secretKey: string; baseUrl: string };
  verifiedAt?: string;
  savedBy?: string;
  pollingPausedReason?: string;
}

/** What is configured, secrets masked (last 4 at most). */
export async function setupStatus(deps: OpsDeps, workspace: WorkspaceKey): Promise<SetupStatus> {
  const loaded = await loadCredentials(deps, workspace, { unreadable: 'absent' });
  const settings = await deps.store.settings.get(workspace);
  const paused = settings.pollingPausedReason ? { pollingPausedReason: settings.pollingPausedReason } : {};
  if (!loaded) return { configured: false, readOnly: false, siteIds: [], ...paused };
  const c = loaded.credentials;
  const s: SetupStatus = {
    configured: true,
    source: loaded.source,
    readOnly: loaded.readOnly,
    siteIds: c.siteIds,
    defaultSiteId: c.defaultSiteId,
    ...paused,
  };
  if (c.watermarking) {
    s.watermarking = {
      accountId: c.watermarking.accountId,
      accessKey: maskSecret(c.watermarking.accessKey),
      baseUrl: c.watermarking.baseUrl,
    };
  }
  if (c.service) {
    s.service = {
      accountId: c.service.accountId,
      accountSeq: c.service.accountSeq,
      secretKey: maskSecret(c.service.secretKey),
      baseUrl: c.service.baseUrl,
    };
  }
  if (loaded.verifiedAt) s.verifiedAt = loaded.verifiedAt;
  if (loaded.savedBy) s.savedBy = loaded.savedBy;
  return s;
}
