/**
 * Service error conditions. The specs do not list the error_code values; this is the project's
 * agreed set (the emulator answers with it). A real deployment may use other codes, so the table
 * is overridable with env SERVICE_ERROR_CODES = JSON {"<condition>": "<code>" | ["<code>", ...],
 * "wm.<condition>" | "svc.<condition>": ...} (several codes per condition, and per API). Upper layers
 * explain a failure by condition (`errorCondition(err)`), never by message text.
 *
 * Also the table of job/task failure codes (`cli_error_code`) in plain words, overridable with env
 * JOB_FAILURE_CODES through the same loader (`readOverride`).
 */
import { z } from 'zod';
import { ServiceError } from './errors.js';

export const DEFAULT_ERROR_CODES = {
  invalidParameter: 'E1001',
  siteNotFound: 'E1002',
  tooManyRecipients: 'E2001',
  duplicateRecipient: 'E2002',
  recipientInUse: 'E2003',
  recipientNotFound: 'E2004',
  jobNotFound: 'E3001',
  requestNotFound: 'E4001',
  requestNotPending: 'E4002',
  requestAlreadyPending: 'E4003',
  memberNotFound: 'E5001',
  memberExists: 'E5002',
  certificateInvalid: 'E6001',
  internal: 'E9999',
} as const;

export type ErrorCondition = keyof typeof DEFAULT_ERROR_CODES;
export const ERROR_CONDITIONS = Object.keys(DEFAULT_ERROR_CODES) as ErrorCondition[];

/** Which API answered: the two APIs are separate services and may number their errors apart. */
export type ApiName = 'wm' | 'svc';

/** Codes beyond the one per condition: more per condition for both APIs, or for one API only. */
export type ExtraCodes = Partial<Record<'any' | ApiName, Partial<Record<ErrorCondition, readonly string[]>>>>;

/**
 * The code of each condition (the one the emulator and fakes answer with), and, when
 * SERVICE_ERROR_CODES gives them, more codes per condition (`extra.any`) or per API
 * (`extra.wm` / `extra.svc`, from keys such as "svc.requestNotFound").
 */
export type ErrorCodeTable = Record<ErrorCondition, string> & { extra?: ExtraCodes };

/** Plain-words explanation of each condition (what happened, what to do). */
export const ERROR_CONDITION_TEXT: Record<ErrorCondition, string> = {
  invalidParameter: 'The service refused a parameter; check the values you gave.',
  siteNotFound: 'The site does not exist or this account does not own it.',
  tooManyRecipients: 'Too many recipients in one registration; send at most 150 at a time.',
  duplicateRecipient: 'A recipient name is already registered (names are case-insensitive) or repeated.',
  recipientInUse: 'The recipient is in use by a pre-embedding task; try again when the task has finished.',
  recipientNotFound: 'No recipient has that DWM id.',
  jobNotFound: 'No job has that id.',
  requestNotFound: 'No service change request has that id.',
  requestNotPending: 'Only a pending request can be cancelled.',
  requestAlreadyPending: 'A request for this site and service is already pending; cancel it first or wait.',
  memberNotFound: 'No sub-member has that member number.',
  memberExists: 'A sub-member with that e-mail already exists.',
  certificateInvalid: 'The certificate upload is missing a file or a file has the wrong extension.',
  internal: 'The service had an internal error; try again later.',
};

const codeList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(20)]);
const overrideSchema = z.record(z.string(), codeList);

/**
 * The one loader of the code tables' settings: a JSON object from the environment, checked with
 * `schema`. Empty means "no override" (undefined); malformed JSON or a wrong shape throws an error
 * that names the setting and shows an example. Both SERVICE_ERROR_CODES and JOB_FAILURE_CODES go
 * through it.
 */
export function readOverride<T>(
  setting: string,
  json: string | undefined,
  schema: z.ZodType<T>,
  shape: { example: string; wrongShape: string },
): T | undefined {
  if (!json || json.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error(`${setting} is not valid JSON: use ${shape.example}.`);
  }
  const r = schema.safeParse(parsed);
  if (!r.success) throw new Error(`${setting} must be ${shape.wrongShape}`);
  return r.data;
}

/**
 * A table the process reads from its environment on first use (`get`), which tests or the config
 * loader may replace (`set`). Every code table of the API layer is held this way.
 */
export function processTable<T>(load: () => T): { get: () => T; set: (table: T) => void } {
  let active: T | undefined;
  return {
    get: () => {
      active ??= load();
      return active;
    },
    set: (table) => {
      active = table;
    },
  };
}

/**
 * The default table, with overrides from a JSON string (normally env SERVICE_ERROR_CODES): a
 * condition name to one code or a list of codes (the first is the condition's code, every one is
 * read as it), for both APIs; or, prefixed with `wm.` or `svc.`, codes that mean the condition on
 * that API only (added to the table's). Unknown condition names are ignored; malformed JSON or a
 * wrong shape throws with a clear message.
 */
export function loadErrorCodes(json: string | undefined = process.env.SERVICE_ERROR_CODES): ErrorCodeTable {
  const table: ErrorCodeTable = { ...DEFAULT_ERROR_CODES };
  const overrides = readOverride('SERVICE_ERROR_CODES', json, overrideSchema, {
    example: '{"duplicateRecipient":"E2002","svc.requestNotFound":["404","E4001"], ...}',
    wrongShape:
      'a JSON object of condition name (optionally prefixed wm. or svc.) to a code string or a list of code strings.',
  });
  const extra: ExtraCodes = {};
  for (const [key, v] of Object.entries(overrides ?? {})) {
    const m = /^(?:(wm|svc)\.)?(.+)$/.exec(key);
    const api = m?.[1] as ApiName | undefined;
    const cond = m?.[2] ?? '';
    if (!(ERROR_CONDITIONS as string[]).includes(cond)) continue;
    const c = cond as ErrorCondition;
    const codes = (Array.isArray(v) ? v : [v]).map((x) => x.trim()).filter(Boolean);
    if (codes.length === 0) continue;
    if (api) {
      extra[api] = { ...extra[api], [c]: codes };
    } else {
      table[c] = codes[0] as string;
      if (codes.length > 1) extra.any = { ...extra.any, [c]: codes };
    }
  }
  if (Object.keys(extra).length > 0) table.extra = extra;
  return table;
}

/** The API of an endpoint name ("wm.searchJobs" -> wm, "svc.getSites" -> svc). */
function apiOf(endpoint: string): ApiName | undefined {
  return endpoint.startsWith('wm.') ? 'wm' : endpoint.startsWith('svc.') ? 'svc' : undefined;
}

/** The process table (loaded lazily from the environment), and its replacement (tests, a config loader). */
export const { get: errorCodes, set: setErrorCodes } = processTable(() => loadErrorCodes());

/**
 * The condition of a ServiceError (or a raw code), if it is a known one. A ServiceError's API
 * (from its endpoint, or `api`) also matches the codes given for that API only.
 */
export function errorCondition(
  errOrCode: unknown,
  table: ErrorCodeTable = errorCodes(),
  api?: ApiName,
): ErrorCondition | undefined {
  const err = errOrCode instanceof ServiceError ? errOrCode : undefined;
  const code = typeof errOrCode === 'string' ? errOrCode : err?.code;
  if (code === undefined) return undefined;
  const which = api ?? (err ? apiOf(err.endpoint) : undefined);
  const perApi = which ? table.extra?.[which] : undefined;
  return (
    ERROR_CONDITIONS.find((c) => perApi?.[c]?.includes(code)) ??
    ERROR_CONDITIONS.find((c) => table[c] === code || table.extra?.any?.[c]?.includes(code))
  );
}

/** True when `e` is a ServiceError of the given condition. */
export function isServiceCondition(e: unknown, condition: ErrorCondition, table?: ErrorCodeTable): boolean {
  return e instanceof ServiceError && errorCondition(e, table) === condition;
}

// ---------------------------------------------------------------------------------------------
// Job and task failure codes (cli_error_code), in plain words
// ---------------------------------------------------------------------------------------------

/** What a failure code means and what to do about it (plain sentences, no markup). */
export interface FailureExplanation {
  meaning: string;
  next: string;
}

/**
 * The failure codes of watermarking tasks (`cli_error_code`, or the task status when no code was
 * given) in plain words. The spec lists no table ("any other value means failure"), so the bot
 * gives no code a meaning of its own: a real code `3` must not get a made-up cause. The one
 * built-in entry is the spec's own task status FAIL reported without a code. Deployments that
 * know their pre-embedder's codes give them words with env JOB_FAILURE_CODES = JSON
 * {"<code>": {"meaning": "...", "next": "..."}} (same loader as SERVICE_ERROR_CODES; examples in
 * docs/configuration.md). Codes are matched case-insensitively after trimming; a code not in the
 * table is shown as "unknown (CODE)" with `UNKNOWN_FAILURE_NEXT`.
 */
export const DEFAULT_FAILURE_CODES: Readonly<Record<string, FailureExplanation>> = {
  TK005: {
    meaning: 'the task failed and the service gave no error code',
    next: 'Export the job as CSV for the full task list; if it repeats, send the job id to the watermarking provider.',
  },
};

/** The next step shown with a code the table does not know. */
export const UNKNOWN_FAILURE_NEXT =
  "Export CSV shows each recipient's result; if this code comes back, send the job id and the code to the watermarking provider.";

export type FailureCodeTable = Readonly<Record<string, FailureExplanation>>;

const failureOverrideSchema = z.record(
  z.string().trim().min(1).max(64),
  z.object({ meaning: z.string().trim().min(1).max(300), next: z.string().trim().min(1).max(500) }).strict(),
);

/** Uppercased, trimmed: the table's key form. */
const failureKey = (code: string) => code.trim().toUpperCase();

/**
 * The built-in failure table with entries from a JSON string (normally env JOB_FAILURE_CODES)
 * replacing or adding codes. Malformed JSON or a wrong shape throws with a clear message.
 */
export function loadFailureCodes(json: string | undefined = process.env.JOB_FAILURE_CODES): FailureCodeTable {
  const table: Record<string, FailureExplanation> = {};
  for (const [k, v] of Object.entries(DEFAULT_FAILURE_CODES)) table[failureKey(k)] = v;
  const overrides = readOverride('JOB_FAILURE_CODES', json, failureOverrideSchema, {
    example: '{"E-417":{"meaning":"embedding failed","next":"start the job again"}}',
    wrongShape: 'a JSON object of code to {"meaning": text, "next": text}.',
  });
  for (const [k, v] of Object.entries(overrides ?? {})) table[failureKey(k)] = v;
  return table;
}

/** The process failure table (loaded lazily from the environment), and its replacement (tests, the config loader). */
export const { get: failureCodes, set: setFailureCodes } = processTable(() => loadFailureCodes());

export interface ExplainedFailure extends FailureExplanation {
  /** The code as given (trimmed). */
  code: string;
  known: boolean;
}

/** A failure code in plain words: the table's entry, or "unknown (CODE)" and a generic next step. */
export function explainFailureCode(code: string, table: FailureCodeTable = failureCodes()): ExplainedFailure {
  const c = code.trim();
  const hit = Object.hasOwn(table, failureKey(c)) ? table[failureKey(c)] : undefined;
  if (hit) return { code: c, known: true, ...hit };
  return { code: c, known: false, meaning: `unknown (${c})`, next: UNKNOWN_FAILURE_NEXT };
}

// ---------------------------------------------------------------------------------------------
// License failure codes (error_code of a failed DRM license record), in plain words
// ---------------------------------------------------------------------------------------------

/**
 * Words for the error codes of failed license records. The Service API spec says only that
 * "0000" means the license was issued ("the list of other error codes and their causes: not
 * shown"), so nothing is built in: a deployment that knows its codes gives them words with env
 * LICENSE_ERROR_CODES = JSON {"<code>": "<meaning>"} (same loader as SERVICE_ERROR_CODES). Codes
 * are matched after trimming, case-insensitively; an unknown code is shown as it is.
 */
export type LicenseErrorTable = Readonly<Record<string, string>>;

const licenseOverrideSchema = z.record(z.string().trim().min(1).max(64), z.string().trim().min(1).max(200));

export function loadLicenseErrorCodes(
  json: string | undefined = process.env.LICENSE_ERROR_CODES,
): LicenseErrorTable {
  const table: Record<string, string> = {};
  const overrides = readOverride('LICENSE_ERROR_CODES', json, licenseOverrideSchema, {
    example: '{"E-LIC-07":"the device is not allowed by the license policy"}',
    wrongShape: 'a JSON object of license error code to its meaning (text).',
  });
  for (const [k, v] of Object.entries(overrides ?? {})) table[failureKey(k)] = v;
  return table;
}

const licenseTable = processTable(() => loadLicenseErrorCodes());

/** Replace the process license error table (tests, or the config loader). */
export const setLicenseErrorCodes = licenseTable.set;

/** The meaning LICENSE_ERROR_CODES gives a license error code, or undefined (shown as it is). */
export function explainLicenseError(code: string, table?: LicenseErrorTable): string | undefined {
  const active = licenseTable.get();
  const t = table ?? active;
  const k = failureKey(code);
  return k !== '' && Object.hasOwn(t, k) ? t[k] : undefined;
}
