/**
 * Response envelope handling for both APIs (zod at the boundary).
 *
 * HTTP status: 2xx -> read the envelope; 401 -> AuthError; 403 -> PermissionError; anything else
 * -> TransportError (the HTTP layer already retried what could be retried).
 * Envelope: `error_code` "0000" -> data; any other code -> ServiceError(code, message).
 *
 * Tolerant where reality varies (a real service drifts from its spec; one odd detail must not fail
 * a whole command or list):
 * - numbers sent as strings are coerced, unknown fields are ignored;
 * - an optional text field may be a string, a number, null or left out entirely (all read as "");
 * - codes are read case-insensitively ("dm500" -> DM500); a status or product code the specs do
 *   not list is kept as its raw text (renderers show it as "unknown (CODE)", `codeLabel`), and
 *   logged once per code;
 * - `time_zone` with or without its sign ("09:00" -> "+09:00"); a value that is not an offset at
 *   all ("Asia/Seoul", "GMT+09:00", "") is ignored with a warning (logged once per value) and the
 *   client falls back to the offset it asked for;
 * - `error_code` as "0000" or the number 0 (other zero forms are failure codes, logged once).
 * Strict where it matters: ids must be integers that a JavaScript number holds exactly (an id
 * above 2^53-1, sent as a string, is refused with a ProtocolError instead of being silently
 * rounded to another id), site ids 4 alphanumerics; a violation is a ProtocolError naming the
 * field path ("data[3].job_id").
 */

import { z } from 'zod';
import { logger } from '../log.js';
import { AuthError, PermissionError, ProtocolError, ServiceError, TransportError } from './errors.js';
import { cleanInt, countLike, errorCodeSchema, text, timeZoneSchema } from './fields.js';
import type { HttpResponse } from './http.js';
import { cleanServerText, serverText } from './server-text.js';
import { normalizeTimeZone } from './time.js';

const warnedZones = new Set<string>();

const envelopeSchema = z.object({
  error_code: errorCodeSchema,
  error_message: text.optional(),
  time_zone: z.union([timeZoneSchema, z.null()]).optional(),
  total_count: countLike,
  count: countLike,
  data: z.unknown().optional(),
});

type EnvelopeWire = z.output<typeof envelopeSchema>;

/**
 * The envelope's keys in camelCase (`errorCode`, `errorMessage`, `totalCount`, `timeZone`), read
 * when the snake_case key is absent: "not shown" in the specs (they spell every key in snake_case),
 * but a service serialising its envelope class with a camelCase default was seen. The snake_case
 * key wins when both are present. Returns `j` itself when nothing is renamed.
 */
const CAMEL_ENVELOPE_KEYS = [
  ['error_code', 'errorCode'],
  ['error_message', 'errorMessage'],
  ['total_count', 'totalCount'],
  ['time_zone', 'timeZone'],
] as const;
function snakeEnvelope(j: Record<string, unknown>): Record<string, unknown> {
  let out = j;
  for (const [snake, camel] of CAMEL_ENVELOPE_KEYS) {
    if (out[snake] === undefined && out[camel] !== undefined) {
      if (out === j) out = { ...j };
      out[snake] = out[camel];
    }
  }
  return out;
}

/** Time zone texts already seen in envelopes and their normalised form (a handful per process). */
const cleanZones = new Map<string, string | null>();

/**
 * The envelope of a successful answer in its usual, already-clean shape ("0000", a "+hh:mm"
 * time_zone, integer counts), read without zod; undefined for anything else (then the zod
 * schema decides, with its tolerance, warnings and errors). Same output as the schema.
 */
function cleanEnvelope(j: Record<string, unknown>): EnvelopeWire | undefined {
  if (j.error_code !== '0000') return undefined;
  const msg = j.error_message;
  if (msg !== undefined && typeof msg !== 'string') return undefined;
  const tzText = j.time_zone;
  let tz: string | undefined;
  if (tzText !== undefined) {
    if (typeof tzText !== 'string') return undefined;
    let n = cleanZones.get(tzText);
    if (n === undefined) {
      n = normalizeTimeZone(tzText);
      if (cleanZones.size < 64) cleanZones.set(tzText, n);
    }
    if (n === null) return undefined;
    tz = n;
  }
  const total = j.total_count;
  const count = j.count;
  if (total !== undefined && total !== null && cleanInt(total) === undefined) return undefined;
  if (count !== undefined && count !== null && cleanInt(count) === undefined) return undefined;
  const env: EnvelopeWire = { error_code: '0000', data: j.data };
  if (msg !== undefined) env.error_message = msg;
  if (tz !== undefined) env.time_zone = { tz };
  if (total !== undefined) env.total_count = total as number | null;
  if (count !== undefined) env.count = count as number | null;
  return env;
}

export interface Envelope {
  errorCode: string;
  errorMessage: string;
  /** Normalised "+hh:mm" when present and an offset. */
  timeZone?: string;
  /** The envelope's time_zone when it was not an offset (then ignored; see timeZoneSchema). */
  timeZoneIgnored?: string;
  totalCount?: number;
  count?: number;
  data: unknown;
  /**
   * The whole envelope object as received. For the rare response whose fields are documented
   * without saying they sit in `data` (Service endpoint 8), so a client can look at both places.
   */
  raw: Record<string, unknown>;
  /**
   * How far the server's clock (its Date header) was from the bot's when it answered, ms
   * (positive: the server is ahead); absent without a readable Date header. Set by the clients.
   */
  serverClockSkewMs?: number;
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

/**
 * Array data of `item`s; null/absent/""/{} (an empty result some services send) is an empty list. One
 * schema per item schema, built once: a list schema built per call costs its construction and
 * zod's first-parse set-up on every response (most of a poll's validation garbage).
 */
export function listOf<S extends z.ZodType>(item: S): ListSchema<S> {
  const cached = LIST_SCHEMAS.get(item) as ListSchema<S> | undefined;
  if (cached) return cached;
  const s = buildList(item);
  LIST_SCHEMAS.set(item, s);
  return s;
}
const buildList = <S extends z.ZodType>(item: S) => z.preprocess(emptyAsList, z.array(item));
/**
 * null, absent, "" and {} are an empty list: how a service says "none" is "not shown" in the
 * specs, and each of these has been seen for it.
 * A list wrapped in an object (`{ "list": [...] }`, also `items`, `rows`, `content`, `data`, as
 * paging frameworks write it) is the array inside: "not shown" in the specs (they put the array
 * in `data` itself). Read only when exactly one of those keys holds an array; other keys (a
 * framework's own total, page number) are ignored, and two such arrays stay a ProtocolError.
 */
const LIST_WRAPPER_KEYS = ['list', 'items', 'rows', 'content', 'data'] as const;
function emptyAsList(v: unknown): unknown {
  if (v === null || v === undefined || v === '') return [];
  if (typeof v === 'object' && !Array.isArray(v)) {
    let inner: unknown;
    let arrays = 0;
    for (const k of LIST_WRAPPER_KEYS) {
      const x = (v as Record<string, unknown>)[k];
      if (Array.isArray(x)) {
        inner = x;
        arrays++;
      }
    }
    if (arrays === 1) return inner;
    for (const _ in v) return v;
    return [];
  }
  return v;
}
type ListSchema<S extends z.ZodType> = ReturnType<typeof buildList<S>>;
const LIST_SCHEMAS = new WeakMap<z.ZodType, unknown>();

/**
 * The common, already-clean shape of a list, read without zod: `data` is an array and `read`
 * accepts every item (returns undefined for anything it is not sure of). undefined when any item
 * (or `data` itself) is not of that shape: the caller then validates the whole list with zod,
 * which accepts the tolerated variants and names the field of a real violation. The result must
 * be exactly what the zod schema would give for the same input (tests compare both paths).
 *
 * Why: the watcher validates a page of jobs at every poll; zod's generic parse was the largest
 * source of garbage per poll in the 1,000-site benchmark (figure 3).
 */
export function readCleanList<T>(
  data: unknown,
  read: (item: Record<string, unknown>) => T | undefined,
): T[] | undefined {
  if (!Array.isArray(data)) return undefined;
  const out: T[] = new Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const item: unknown = data[i];
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
    const v = read(item as Record<string, unknown>);
    if (v === undefined) return undefined;
    out[i] = v;
  }
  return out;
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
 * When a 2xx body that is not JSON is a web page (an HTML content type, or a body opening like
 * one): its <title>, cleaned ('' when none); else undefined. "Not shown" in the specs: such a
 * page comes from a wrong base URL, a proxy, or a sign-in page, not from the service, and the
 * error says so instead of "not JSON".
 */
function webPageTitle(res: HttpResponse): string | undefined {
  const type = res.headers['content-type'];
  const html = /html/i.test(Array.isArray(type) ? type.join(',') : (type ?? ''));
  const head = res.text.trimStart().slice(0, 2000);
  if (!html && !/^<(!doctype\s+html|html|head|body|title|meta)\b/i.test(head)) return undefined;
  // `[^<>]*`: an attribute run stops at the next tag, so "<title<title…" costs linear time.
  const title = /<title[^<>]*>([^<]*)<\/title>/i.exec(head)?.[1] ?? '';
  return cleanServerText(title, 80);
}

/** Options of decodeEnvelope. */
export interface DecodeOptions {
  /** The bot's clock, to compare with the server's Date header on a 401. Default Date.now. */
  now?: () => number;
  /** Which API: the Service API's 401 may come from the JWT claims or lifetime (settings hint). */
  api?: 'wm' | 'svc';
  /**
   * The call's success answer carries nothing the bot reads (an update or a delete): an HTTP 204
   * or an empty 2xx body is then a success (see decodeEnvelope). Default false.
   */
  noData?: boolean;
}

/** Skews below this are normal (network time, rounding of the Date header to seconds). */
const SKEW_NOTE_MS = 60_000;

/**
 * The server's explanation of a 401/403, as plain text fit for a message: the envelope's
 * error_message (or message/error), else the body text; control characters dropped, anything
 * shaped like a credential or a registered secret masked, at most 200 characters. '' when none.
 */
export function serverMessage(res: HttpResponse): string {
  return serverText(res.text);
}

/**
 * The error envelope of a non-2xx answer ({"error_code": "E1001", "error_message": ...}), or
 * undefined when the body is not one (or says "0000"). The spec documents errors as HTTP 200
 * envelopes only; a service that sends them with a 4xx is read the same way ("not shown": the
 * choice is to keep the server's code, so error conditions work, and its cleaned message).
 */
function errorEnvelopeOf(res: HttpResponse): { code: string; message: string } | undefined {
  const t = res.text.trim();
  if (!t.startsWith('{')) return undefined;
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(t) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  j = snakeEnvelope(j);
  const code = errorCodeSchema.safeParse(j.error_code);
  if (!code.success || code.data === '' || code.data === '0000') return undefined;
  return { code: code.data.slice(0, 40), message: serverMessage(res) };
}

/**
 * How far the server's clock (its Date header) is from ours, ms (positive: server ahead), or
 * undefined when there is no readable Date header.
 */
export function serverClockSkewMs(res: HttpResponse, nowMs: number): number | undefined {
  const d = res.headers.date;
  const v = Array.isArray(d) ? d[0] : d;
  if (!v) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t - nowMs;
}

function describeSkew(skewMs: number): string {
  const s = Math.round(Math.abs(skewMs) / 1000);
  const amount = s >= 120 ? `${Math.round(s / 60)} minutes` : `${s} seconds`;
  return `The server's clock (its Date header) is ${amount} ${skewMs > 0 ? 'ahead of' : 'behind'} this bot's clock`;
}

const CLAIMS_WORDS = /claim|audience|issuer|subject|\baud\b|\biss\b|\bsub\b|expir|\bexp\b|jwt|signature/i;

function authMessage(endpoint: string, res: HttpResponse, opts: DecodeOptions): string {
  const said = serverMessage(res);
  const skew = serverClockSkewMs(res, (opts.now ?? Date.now)());
  const parts = [
    `${endpoint}: the service refused the credentials or token (HTTP 401)${said ? `, saying "${said}"` : ''}.`,
  ];
  const skewed = skew !== undefined && Math.abs(skew) > SKEW_NOTE_MS;
  if (skewed) {
    parts.push(
      `${describeSkew(skew)}: a token can look expired or not yet valid to it.` +
        (opts.api === 'svc'
          ? ' Fix the clock of either side, or lengthen (or, with 0, leave out) the token lifetime with SERVICE_JWT_TTL_SECONDS.'
          : ' Fix the clock of either side.'),
    );
  }
  if (opts.api === 'svc' && (skewed || CLAIMS_WORDS.test(said))) {
    parts.push(
      'If the account id and secret key are right, the JWT claims may not be what this server expects: check SERVICE_JWT_SUB, SERVICE_JWT_AUD, SERVICE_JWT_ISS, SERVICE_JWT_ACCOUNT_SEQ_TYPE and SERVICE_JWT_SECRET_ENCODING.',
    );
  }
  return parts.join(' ');
}

/**
 * Turn an HTTP response into an envelope, or throw the matching ApiError.
 * A ServiceError carries the service's code and (length-capped) message. A 401/403 carries the
 * server's own explanation (secrets masked) and, on a 401, a note when the server's clock is off.
 */
export function decodeEnvelope(endpoint: string, res: HttpResponse, opts: DecodeOptions = {}): Envelope {
  if (res.status === 401) {
    throw new AuthError(endpoint, authMessage(endpoint, res, opts));
  }
  if (res.status === 403) {
    const said = serverMessage(res);
    throw new PermissionError(
      endpoint,
      `${endpoint}: this account has no permission for this API (HTTP 403)${said ? `, the service says "${said}"` : ''}.`,
    );
  }
  if (res.status < 200 || res.status >= 300) {
    // A 4xx with an error envelope is the service refusing the request: a ServiceError with its
    // code. 429 and 5xx stay TransportErrors (come back later; a 5xx may have been processed).
    const refusal =
      res.status >= 400 && res.status < 500 && res.status !== 429 ? errorEnvelopeOf(res) : undefined;
    if (refusal) throw new ServiceError(endpoint, refusal.code, refusal.message, res.status);
    const said = serverMessage(res);
    throw new TransportError(
      endpoint,
      `${endpoint}: the service answered HTTP ${res.status}${said ? `, saying "${said}"` : ''}`,
      res.status,
      res.attempts,
      undefined,
      res.status >= 500,
    );
  }
  if (res.status === 204 || res.text.trim() === '') {
    // "Not shown" in the specs (every answer is documented as an envelope), but a service or a
    // proxy answering an update with 204 No Content or an empty 200 was seen. For a call that
    // reads nothing from the answer, that is the success it reports; a call that needs data
    // cannot be answered by it, and the error says what was expected.
    if (opts.noData) return { errorCode: '0000', errorMessage: '', data: undefined, raw: {} };
    const what = res.status === 204 ? 'HTTP 204 (no content)' : `an empty body (HTTP ${res.status})`;
    throw new ProtocolError(
      endpoint,
      'body',
      `${what}, where a JSON envelope with error_code "0000" and the answer's data was expected`,
      { reason: 'no-answer', what },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    const page = webPageTitle(res);
    if (page !== undefined) {
      throw new ProtocolError(
        endpoint,
        'body',
        `the service answered with a web page${page ? ` titled "${page}"` : ''} (HTML), not a JSON envelope: check the base URL, and whether a proxy or a login page stands between the bot and the service`,
        { reason: 'web-page', title: page, next: { do: 'setup' } },
      );
    }
    throw new ProtocolError(endpoint, 'body', `not JSON (${res.text.length} bytes)`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new ProtocolError(endpoint, 'body', 'expected a JSON object envelope');
  }
  json = snakeEnvelope(json as Record<string, unknown>);
  const env = cleanEnvelope(json as Record<string, unknown>) ?? parseWith(endpoint, envelopeSchema, json, '');
  if (env.error_code !== '0000') {
    throw new ServiceError(endpoint, env.error_code, cleanServerText(env.error_message ?? '', 500));
  }
  const tz = env.time_zone ?? undefined;
  const out: Envelope = {
    errorCode: env.error_code,
    errorMessage: env.error_message ?? '',
    totalCount: env.total_count ?? undefined,
    count: env.count ?? undefined,
    data: env.data,
    raw: json as Record<string, unknown>,
  };
  if (tz && 'tz' in tz) out.timeZone = tz.tz;
  else if (tz && 'ignored' in tz) {
    out.timeZoneIgnored = tz.ignored;
    if (!warnedZones.has(tz.ignored) && warnedZones.size < 1000) {
      warnedZones.add(tz.ignored);
      logger.warn(
        { endpoint, timeZone: tz.ignored },
        'the service sent a time_zone that is not a +hh:mm offset; the requested offset is used instead',
      );
    }
  }
  return out;
}

/** Decode the envelope and validate its data. */
export function decodeData<S extends z.ZodType>(
  endpoint: string,
  res: HttpResponse,
  dataSchema: S,
  opts: DecodeOptions = {},
): { env: Envelope; data: z.output<S> } {
  const env = decodeEnvelope(endpoint, res, opts);
  return { env, data: parseWith(endpoint, dataSchema, env.data, 'data') };
}
