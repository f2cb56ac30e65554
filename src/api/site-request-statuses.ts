/**
 * Status words of additional-site requests (endpoint 3, `status`). The spec lists none ("Allowed
 * values of `req_status`: not shown"), so which word means "still pending", "approved" or
 * "cancelled" is the project's reading (the words below, the emulator's among them), overridable
 * with env SERVICE_SITE_REQUEST_STATUSES = JSON {"<word>": "pending" | "approved" | "cancelled"}
 * through the same loader as SERVICE_ERROR_CODES (`readOverride`). Words are matched
 * case-insensitively after trimming. A word in neither table is unknown: the request stays tracked
 * (src/notices/requests.ts) and the word is shown as the service sent it.
 */
import { z } from 'zod';
import { processTable, readOverride } from './error-codes.js';

export const SITE_REQUEST_READINGS = ['pending', 'approved', 'cancelled'] as const;
export type SiteRequestReading = (typeof SITE_REQUEST_READINGS)[number];
export type SiteRequestStatusTable = Readonly<Record<string, SiteRequestReading>>;

const words = (reading: SiteRequestReading, list: string[]) => list.map((w) => [w, reading] as const);

/** The built-in reading of the words a service is likely to use (none of them from the spec). */
export const DEFAULT_SITE_REQUEST_STATUSES: SiteRequestStatusTable = Object.fromEntries([
  ...words('pending', ['requested', 'request', 'pending', 'st001', 'waiting', 'in progress', 'in_progress']),
  ...words('approved', ['approved', 'approve', 'st003', 'completed', 'complete', 'done']),
  ...words('cancelled', ['cancel', 'cancelled', 'canceled', 'rejected', 'reject', 'denied', 'st002']),
]);

const key = (word: string) => word.trim().toLowerCase();

const overrideSchema = z.record(z.string().trim().min(1).max(64), z.enum(SITE_REQUEST_READINGS));

/**
 * The built-in table with the words of a JSON string (normally env SERVICE_SITE_REQUEST_STATUSES)
 * added or replacing built-in ones. Malformed JSON or a wrong shape throws with a clear message.
 */
export function loadSiteRequestStatuses(
  json: string | undefined = process.env.SERVICE_SITE_REQUEST_STATUSES,
): SiteRequestStatusTable {
  const table: Record<string, SiteRequestReading> = { ...DEFAULT_SITE_REQUEST_STATUSES };
  const overrides = readOverride('SERVICE_SITE_REQUEST_STATUSES', json, overrideSchema, {
    example: '{"WAIT":"pending","OK":"approved","NG":"cancelled"}',
    wrongShape: 'a JSON object of status word to "pending", "approved" or "cancelled".',
  });
  for (const [k, v] of Object.entries(overrides ?? {})) table[key(k)] = v;
  return table;
}

/** The process table (loaded lazily from the environment), and its replacement (tests, the config loader). */
export const { get: siteRequestStatuses, set: setSiteRequestStatuses } = processTable(() =>
  loadSiteRequestStatuses(),
);

/** What a status word means; undefined for a word the table does not know. An empty word is pending. */
export function siteRequestReading(
  word: string,
  table: SiteRequestStatusTable = siteRequestStatuses(),
): SiteRequestReading | undefined {
  const k = key(word);
  if (k === '') return 'pending';
  return Object.hasOwn(table, k) ? table[k] : undefined;
}
