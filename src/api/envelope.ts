/**
 * Response envelope handling for both APIs (zod at the boundary).
 *
 * HTTP status: 2xx -> read the envelope; 401 -> AuthError; 403 -> PermissionError; anything else
 * -> TransportError (the HTTP layer already retried what could be retried).
 * Envelope: `error_code` "0000" -> data; any other code -> ServiceError(code, message).
 *
 * Tolerant where reality varies: numbers sent as strings are coerced, unknown fields are ignored,
 * `time_zone` with or without its sign ("09:00" -> "+09:00"), `error_code` as 0 / "0" / "0000".
 * Strict where it matters: ids must be integers, site ids 4 alphanumerics, status codes must be
 * known codes; a violation is a ProtocolError naming the field path ("data[3].job_status").
 */
import { z } from 'zod';
import { AuthError, PermissionError, ProtocolError, ServiceError, TransportError } from './errors.js';
import type { HttpResponse } from './http.js';
import { normalizeTimeZone, parseServiceTime } from './time.js';
import type { TimeValue } from './types.js';

// ---------------------------------------------------------------------------------------------
// Reusable field schemas
// ---------------------------------------------------------------------------------------------

/** An integer, also when sent as a string of digits ("42"). */
export const intLike = z.union([
  z.number().int(),
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, 'expected an integer')
    .transform(Number),
]);

/** A string, also when sent as a number; null/absent -> "". */
export const text = z
  .union([z.string(), z.number().transform(String), z.null(), z.undefined()])
  .transform((v) => v ?? '');

/** A required string (numbers accepted and turned into strings). */
export const reqText = z.union([z.string(), z.number().transform(String)]);

export const siteIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9]{4}$/, 'expected a 4-character alphanumeric site id');

/** A known code from one of the tables of codes.ts. */
export function codeOf<const T extends string>(codes: readonly T[]) {
  return z.enum(codes as unknown as [T, ...T[]], {
    error: (iss) => `unknown code ${JSON.stringify(iss.input)}; expected one of ${codes.join(', ')}`,
  });
}

export const errorCodeSchema = z.union([z.string(), z.number()]).transform((v) => {
  const s = String(v).trim();
  return /^0+$/.test(s) ? '0000' : s;
});

export const timeZoneSchema = z.string().transform((v, ctx) => {
  const n = normalizeTimeZone(v);
  if (!n) {
    ctx.addIssue({ code: 'custom', message: `"${v.slice(0, 20)}" is not a +hh:mm offset` });
    return z.NEVER;
  }
  return n;
});

/** A time string; turned into a TimeValue by the caller once the time zone is known. */
export const timeText = text;

export function toTime(raw: string, timeZone: string): TimeValue {
  return parseServiceTime(raw, timeZone);
}

// ---------------------------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------------------------

/**
 * A count of the envelope (`total_count`, `count`): a number, a digit string, or absent. A blank
 * string is read as absent (some services print an empty value): the count then falls back to the
 * page itself, which only weakens the "more pages?" hint, never the data. Any other text is a
 * ProtocolError: paging must not guess a total.
 */
const countLike = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
  z.union([intLike, z.null()]).optional(),
);

const envelopeSchema = z.object({
  error_code: errorCodeSchema,
  error_message: text.optional(),
  time_zone: z.union([timeZoneSchema, z.null()]).optional(),
  total_count: countLike,
  count: countLike,
  data: z.unknown().optional(),
});

export interface Envelope {
  errorCode: string;
  errorMessage: string;
  /** Normalised "+hh:mm" when present. */
  timeZone?: string;
  totalCount?: number;
  count?: number;
  data: unknown;
  /**
   * The whole envelope object as received. For the rare response whose fields are documented
   * without saying they sit in `data` (Service endpoint 8), so a client can look at both places.
   */
  raw: Record<string, unknown>;
}

/** "data[3].job_status" from a zod issue path and a prefix. */
export function formatPath(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  let out = prefix;
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || 'body';
}

function protocolFromZod(endpoint: string, prefix: string, err: z.ZodError): ProtocolError {
  const issue = err.issues[0];
  if (!issue) return new ProtocolError(endpoint, prefix || 'body', 'invalid value');
  // For a union, report the most specific branch message when there is one.
  let detail = issue.message;
  let path = issue.path;
  if (issue.code === 'invalid_union' && 'errors' in issue) {
    const branch = (issue.errors as z.core.$ZodIssue[][]).flat()[0];
    if (branch) {
      detail = branch.message;
      path = [...issue.path, ...branch.path];
    }
  }
  return new ProtocolError(endpoint, formatPath(prefix, path), detail);
}

/** Validate `value` with `schema`; failures become a ProtocolError naming the field path. */
export function parseWith<S extends z.ZodType>(
  endpoint: string,
  schema: S,
  value: unknown,
  prefix = 'data',
): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw protocolFromZod(endpoint, prefix, r.error);
  return r.data;
}

/**
 * Turn an HTTP response into an envelope, or throw the matching ApiError.
 * A ServiceError carries the service's code and (length-capped) message.
 */
export function decodeEnvelope(endpoint: string, res: HttpResponse): Envelope {
  if (res.status === 401) {
    throw new AuthError(endpoint, `${endpoint}: the service refused the credentials or token (HTTP 401).`);
  }
  if (res.status === 403) {
    throw new PermissionError(
      endpoint,
      `${endpoint}: this account has no permission for this API (HTTP 403).`,
    );
  }
  if (res.status < 200 || res.status >= 300) {
    throw new TransportError(
      endpoint,
      `${endpoint}: the service answered HTTP ${res.status}`,
      res.status,
      res.attempts,
      undefined,
      res.status >= 500,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    throw new ProtocolError(endpoint, 'body', `not JSON (${res.text.length} bytes)`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new ProtocolError(endpoint, 'body', 'expected a JSON object envelope');
  }
  const env = parseWith(endpoint, envelopeSchema, json, '');
  if (env.error_code !== '0000') {
    const msg = (env.error_message ?? '').slice(0, 500);
    throw new ServiceError(endpoint, env.error_code, msg);
  }
  return {
    errorCode: env.error_code,
    errorMessage: env.error_message ?? '',
    timeZone: env.time_zone ?? undefined,
    totalCount: env.total_count ?? undefined,
    count: env.count ?? undefined,
    data: env.data,
    raw: json as Record<string, unknown>,
  };
}

/** Decode the envelope and validate its data. */
export function decodeData<S extends z.ZodType>(
  endpoint: string,
  res: HttpResponse,
  dataSchema: S,
): { env: Envelope; data: z.output<S> } {
  const env = decodeEnvelope(endpoint, res);
  return { env, data: parseWith(endpoint, dataSchema, env.data, 'data') };
}
