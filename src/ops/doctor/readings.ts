/**
 * How the service check reads an answer, in words: why a probe failed, what "nothing there"
 * looked like (data null, an empty list, a refusal and its code), and the finding for a not-found
 * answer compared with the bot's error code table (SERVICE_ERROR_CODES). Shared by the checks of
 * both APIs; a change to how an answer is told or compared lives here.
 */
import { type ApiName, errorCondition } from '../../api/error-codes.js';
import {
  AuthError,
  isApiError,
  PermissionError,
  refusalExplanation,
  ServiceError,
} from '../../api/errors.js';
import { type DoctorContext, type DoctorFinding, jobSearch, type Probe } from './context.js';

export const notObserved = (reading: string): Omit<DoctorFinding, 'id' | 'point'> => ({
  status: 'not-observed',
  reading,
});

/** Why a probe failed, in words (the API layer's explanation of a refusal). */
export function failureText(err: unknown): string {
  if (err instanceof AuthError || err instanceof PermissionError) return refusalExplanation(err);
  if (err instanceof ServiceError) return `refused with ${err.code}: ${err.serviceMessage}`;
  if (isApiError(err)) return err.message;
  return err instanceof Error ? err.message : String(err);
}

export function dataOf(p: Probe): unknown {
  return p.body?.data;
}

/** How a "nothing there" answer came: data null, an empty list, an empty object, or a refusal. */
export type NoneReading =
  | { kind: 'null' | 'empty-list' | 'empty-object' }
  | { kind: 'refusal'; code: string; message: string; httpStatus?: number }
  | { kind: 'data' }
  | { kind: 'failed'; err: unknown };

export function noneReading(p: Probe): NoneReading {
  if (p.err instanceof ServiceError)
    return {
      kind: 'refusal',
      code: p.err.code,
      message: p.err.serviceMessage,
      ...(p.err.httpStatus ? { httpStatus: p.err.httpStatus } : {}),
    };
  if (p.err) return { kind: 'failed', err: p.err };
  const d = dataOf(p);
  if (d === null || d === undefined || d === '') return { kind: 'null' };
  if (Array.isArray(d)) return d.length === 0 ? { kind: 'empty-list' } : { kind: 'data' };
  if (typeof d === 'object') {
    const o = d as Record<string, unknown>;
    if (Object.keys(o).length === 0) return { kind: 'empty-object' };
    if ('req_group_id' in o && (o.req_group_id === null || o.req_group_id === ''))
      return { kind: 'empty-object' };
  }
  return { kind: 'data' };
}

export function noneWords(r: NoneReading): string {
  switch (r.kind) {
    case 'null':
      return 'data null';
    case 'empty-list':
      return 'an empty list';
    case 'empty-object':
      return 'an object without a request';
    case 'refusal':
      return `a refusal with code ${r.code}${r.httpStatus ? ` (HTTP ${r.httpStatus})` : ''} ("${r.message.slice(0, 120)}")`;
    case 'data':
      return 'data';
    default:
      return `a failure (${failureText(r.err)})`;
  }
}

/**
 * A not-found answer compared with the code table: a refusal whose code is not the condition's
 * gets the SERVICE_ERROR_CODES entry; null / empty answers need nothing.
 */
export function notFoundFinding(
  ctx: DoctorContext,
  r: NoneReading,
  condition: 'jobNotFound' | 'recipientNotFound' | 'requestNotFound',
  what: string,
  api: ApiName,
): Omit<DoctorFinding, 'id' | 'point'> {
  if (r.kind === 'failed') return { status: 'failed', reading: `could not be read: ${failureText(r.err)}` };
  if (r.kind === 'data') return notObserved(`${what} answered with data: nothing to learn from`);
  if (r.kind !== 'refusal') return { status: 'ok', reading: `${noneWords(r)}: read as none` };
  // Through the table's own lookup (robust to a table with several codes per condition).
  const known = String(ctx.settings.errorCodes[condition]);
  if (errorCondition(r.code, ctx.settings.errorCodes, api) === condition)
    return { status: 'ok', reading: `${noneWords(r)}: the code the bot expects` };
  // Learnt from one API only: the per-API key, so the other API's codes keep their meaning.
  const key = `${api}.${condition}`;
  return {
    status: 'setting',
    reading: `${noneWords(r)}; the bot expects ${known} for this`,
    next: `Tell the bot the code ${r.code} means ${condition} on the ${api === 'wm' ? 'watermarking' : 'Service'} API.`,
    env: [{ name: 'SERVICE_ERROR_CODES', entries: { [key]: r.code } }],
  };
}

export function firstSite(ctx: DoctorContext): string | undefined {
  return ctx.siteIds[0];
}

/**
 * The first site's job search (the time zone and total_count checks read it), or the finding
 * that ends the check: no watermarking credentials, or the search failing.
 */
export async function firstSiteJobSearch(
  ctx: DoctorContext,
): Promise<{ site: string; jobs: Probe } | { finding: Omit<DoctorFinding, 'id' | 'point'> }> {
  const site = firstSite(ctx);
  if (!ctx.wm || !site) return { finding: notObserved('no watermarking credentials') };
  const jobs = await jobSearch(ctx, site);
  if (jobs.err) return { finding: { status: 'failed', reading: failureText(jobs.err) } };
  return { site, jobs };
}
