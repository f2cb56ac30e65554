/**
 * The one status mapping of the style guide: text plus emoji, never emoji alone. Every renderer
 * shows a status through `statusLabel()` (or the per-kind helpers), so the mapping lives here only.
 */
import {
  JOB_STATUS,
  type JobStatusCode,
  MEMBER_STATUS,
  type MemberStatusCode,
  PRODUCT_STATUS,
  type ProductStatusCode,
  REQUEST_STATUS,
  type RequestStatusCode,
  TASK_STATUS,
  type TaskStatusCode,
} from '../../../api/codes.js';
import { explainFailureCode } from '../../../api/error-codes.js';
import { code as codeSpan, esc, truncate } from './mrkdwn.js';

export type StatusKind = 'job' | 'task' | 'request' | 'product' | 'member';

const EMOJI: Record<string, string> = {
  // jobs
  DM000: ':white_circle:',
  DM001: ':large_blue_circle:',
  DM500: ':large_green_circle:',
  DM600: ':red_circle:',
  // tasks
  TK000: ':white_circle:',
  TK001: ':large_blue_circle:',
  TK002: ':large_green_circle:',
  TK005: ':red_circle:',
  // requests
  ST001: ':hourglass_flowing_sand:',
  ST002: ':no_entry_sign:',
  ST003: ':white_check_mark:',
  // products
  SE000: ':large_green_circle:',
  SE001: ':red_circle:',
  // members
  MT001: ':large_green_circle:',
  MT002: ':white_circle:',
};

const NAMES: Record<StatusKind, Record<string, string>> = {
  job: JOB_STATUS,
  task: TASK_STATUS,
  request: REQUEST_STATUS,
  product: PRODUCT_STATUS,
  member: MEMBER_STATUS,
};

/** "`:large_blue_circle: PREPROCESSING`"-style label; an unknown code shows as `:grey_question: unknown (CODE)`. */
export function statusLabel(kind: StatusKind, code: string): string {
  const name = NAMES[kind][code];
  if (!name) return `:grey_question: unknown (${esc(code)})`;
  return `${EMOJI[code] ?? ':grey_question:'} ${name}`;
}

export const jobStatus = (c: JobStatusCode | string) => statusLabel('job', c);
export const taskStatus = (c: TaskStatusCode | string) => statusLabel('task', c);
export const requestStatus = (c: RequestStatusCode | string) => statusLabel('request', c);
export const productStatus = (c: ProductStatusCode | string) => statusLabel('product', c);
export const memberStatus = (c: MemberStatusCode | string) => statusLabel('member', c);

// ---------------------------------------------------------------------------------------------
// Failure codes (cli_error_code): the code in plain words, and what to do
// ---------------------------------------------------------------------------------------------

/** Longest failure code shown (service data: a hostile code stays one short span). */
const FAILURE_CODE_MAX = 40;

/**
 * A job/task failure code in plain words, mrkdwn: "embedding the watermark … failed (`E-417`)";
 * a code the table (src/api/error-codes.ts, env JOB_FAILURE_CODES) does not know: "unknown (`X`)".
 */
export function failureLabel(raw: string): string {
  const e = explainFailureCode(raw);
  const c = codeSpan(truncate(e.code, FAILURE_CODE_MAX));
  return e.known ? `${esc(e.meaning)} (${c})` : `unknown (${c})`;
}

/** The same in plain text (message fallbacks, notifications). */
export function failureLabelPlain(raw: string): string {
  const e = explainFailureCode(raw);
  const c = truncate(e.code, FAILURE_CODE_MAX);
  return e.known ? `${e.meaning} (${c})` : `unknown (${c})`;
}

/**
 * "What to do" lines for the given failure codes, mrkdwn: one line per distinct next step (codes
 * sharing a step are listed together), at most `max` lines. Empty when there are no codes.
 */
export function failureNextSteps(codes: readonly string[], max = 5): string {
  const byNext = new Map<string, string[]>();
  for (const raw of codes) {
    const e = explainFailureCode(raw);
    const list = byNext.get(e.next) ?? [];
    const shown = truncate(e.code, FAILURE_CODE_MAX);
    if (!list.includes(shown)) list.push(shown);
    byNext.set(e.next, list);
  }
  if (byNext.size === 0) return '';
  const lines = [...byNext]
    .slice(0, max)
    .map(([next, cs]) => `• ${cs.map((c) => codeSpan(c)).join(', ')}: ${esc(next)}`);
  if (byNext.size > max)
    lines.push(`…and ${byNext.size - max} more: Export CSV lists every task with its code.`);
  return `*What to do*\n${lines.join('\n')}`;
}
