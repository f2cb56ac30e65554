/**
 * Service error conditions. The specs do not list the error_code values; this is the project's
 * agreed set (the emulator answers with it). A real deployment may use other codes, so the table
 * is overridable with env SERVICE_ERROR_CODES = JSON {"<condition>": "<code>"}. Upper layers
 * explain a failure by condition (`errorCondition(err)`), never by message text.
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
export type ErrorCodeTable = Record<ErrorCondition, string>;

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

const overrideSchema = z.record(z.string(), z.string().min(1));

/**
 * The default table, with overrides from a JSON string (normally env SERVICE_ERROR_CODES).
 * Unknown condition names in the override are ignored; malformed JSON throws with a clear message.
 */
export function loadErrorCodes(json: string | undefined = process.env.SERVICE_ERROR_CODES): ErrorCodeTable {
  const table: ErrorCodeTable = { ...DEFAULT_ERROR_CODES };
  if (!json || json.trim() === '') return table;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error('SERVICE_ERROR_CODES is not valid JSON: use {"duplicateRecipient":"E2002", ...}.');
  }
  const r = overrideSchema.safeParse(parsed);
  if (!r.success) {
    throw new Error('SERVICE_ERROR_CODES must be a JSON object of condition name to code strings.');
  }
  for (const [k, v] of Object.entries(r.data)) {
    if ((ERROR_CONDITIONS as string[]).includes(k)) table[k as ErrorCondition] = v;
  }
  return table;
}

let active: ErrorCodeTable | undefined;

/** The process table (loaded lazily from the environment). */
export function errorCodes(): ErrorCodeTable {
  active ??= loadErrorCodes();
  return active;
}

/** Replace the process table (tests, or a config loader). */
export function setErrorCodes(table: ErrorCodeTable): void {
  active = table;
}

/** The condition of a ServiceError (or a raw code), if it is a known one. */
export function errorCondition(
  errOrCode: unknown,
  table: ErrorCodeTable = errorCodes(),
): ErrorCondition | undefined {
  const code =
    typeof errOrCode === 'string'
      ? errOrCode
      : errOrCode instanceof ServiceError
        ? errOrCode.code
        : undefined;
  if (code === undefined) return undefined;
  return ERROR_CONDITIONS.find((c) => table[c] === code);
}

/** True when `e` is a ServiceError of the given condition. */
export function isServiceCondition(e: unknown, condition: ErrorCondition, table?: ErrorCodeTable): boolean {
  return e instanceof ServiceError && errorCondition(e, table) === condition;
}
