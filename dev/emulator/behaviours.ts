/**
 * Switchable deviations of a real service from the specs (what an audit saw real services do),
 * applied to the wire only: the emulator's state and rules stay those of the specs, so a test can
 * compute the data the bot must show under each deviation.
 *
 * - omitEmptyFields: optional fields whose value is "" or null are left out of every data object
 *   (instead of being sent as "" / null).
 * - unknownCodes: codes the specs do not list replace some listed ones on the way out:
 *   UNKNOWN_CODE_MAP (an in-flight job, a progressing task, a suspended product, an inactive
 *   member, a pending request). Filters still work on the emulator's own codes.
 * - bigIds: every id (job_id, dwm_id, seq, member_seq) is sent as a string of digits, shifted by
 *   BIG_ID_OFFSET so that it is near 2^53 (still exact); ids coming back in paths and bodies are
 *   shifted back.
 * - idsBeyondSafe: the same, shifted by 2^53: every id is beyond what a JavaScript number holds
 *   exactly (the client must refuse such an answer clearly, never round it to another id).
 * - clockSkewMs: the emulator's clock runs this far ahead: its Date header, token and JWT expiry
 *   checks and the times it records.
 * - duplicateCode: the error_code of a duplicate-recipient refusal (instead of the project's E2002).
 * - timeZoneText: the envelope's time_zone is sent as this text ("Asia/Seoul", "GMT+09:00", "")
 *   instead of the offset applied (times are still in the requested offset).
 * - pageCap: a page never holds more than this many items, whatever page_unit asks (page_index
 *   counts pages of the capped size), as a service with a lower maximum page size does.
 * - omitTotalCount: lists leave total_count out of the envelope.
 * - planNone: how endpoint 8 says a site's product has no request yet (not shown in the spec):
 *   'null' (data null, the default), 'empty' (an empty list) or 'notFound' (a refusal with
 *   planNoneCode, default the agreed requestNotFound code).
 * - siteRequestStatusWords: the additional-site request status words the service uses instead of
 *   the emulator's own ("requested", "approved", "cancelled", ...), e.g. {"requested": "WAITING"};
 *   on the way out only (req_status filters still take the emulator's words).
 * - errorCodes: the error_code of each condition named (e.g. {"jobNotFound": "404"}) instead of
 *   the project's agreed one, as a service with its own codes answers.
 * - writeParamsIn: a POST/PUT's parameters (api_code included) are read only from the query
 *   string, a JSON body or a form body (http.ts `parseParams`); otherwise every placement is read.
 * - wmDatesUtc: the watermarking job and recipient searches read `from`/`to` as UTC days (the
 *   vendor's convention), not in the query's time_zone.
 * - serviceTimeZone: the Service API times the spec leaves unzoned (additional-site reg_time /
 *   update_time, packaging created_time / update_time) are written in this offset ("+09:00")
 *   instead of UTC; the packaging cursors sent back, and the packaging `from`/`to` days, are read in it. reg_dt / update_dt (UTC per
 *   the spec) and the license list's compact reg_time (SERVICE_LICENSE_TIME_ZONE) are untouched.
 * - taskListCap: the task list of a job (4.4) holds at most this many tasks while its
 *   total_count still counts them all (the spec shows no paging for that list).
 * - clockSkewMs may be negative: the service's clock is behind the bot's.
 */

import type { EmuCondition } from './errors.js';
import type { ParamSource } from './http.js';

export interface EmulatorBehaviours {
  omitEmptyFields?: boolean;
  unknownCodes?: boolean;
  bigIds?: boolean;
  idsBeyondSafe?: boolean;
  clockSkewMs?: number;
  duplicateCode?: string;
  timeZoneText?: string;
  pageCap?: number;
  omitTotalCount?: boolean;
  planNone?: 'null' | 'empty' | 'notFound';
  planNoneCode?: string;
  siteRequestStatusWords?: Readonly<Record<string, string>>;
  writeParamsIn?: ParamSource;
  errorCodes?: Readonly<Partial<Record<EmuCondition, string>>>;
  wmDatesUtc?: boolean;
  serviceTimeZone?: string;
  taskListCap?: number;
}

/** Every behaviour on at once (tests "all of them"). */
export const ALL_BEHAVIOURS: Required<
  Omit<
    EmulatorBehaviours,
    | 'idsBeyondSafe'
    | 'pageCap'
    | 'omitTotalCount'
    | 'planNone'
    | 'planNoneCode'
    | 'siteRequestStatusWords'
    | 'writeParamsIn'
    | 'errorCodes'
    | 'wmDatesUtc'
    | 'serviceTimeZone'
    | 'taskListCap'
  >
> = {
  omitEmptyFields: true,
  unknownCodes: true,
  bigIds: true,
  clockSkewMs: 10 * 60_000,
  duplicateCode: 'DUP-01',
  timeZoneText: 'Asia/Seoul',
};

export const UNKNOWN_CODE_MAP: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  job_status: { DM001: 'DM002' },
  task_status: { TK001: 'TK003' },
  status_code: { SE001: 'SE002', MT002: 'MT003' },
  reg_status: { ST001: 'ST004' },
};

/** 2^53 - 2^40: every emulator id plus this stays below 2^53 - 1 (exact in a JS number). */
export const BIG_ID_OFFSET = 2 ** 53 - 2 ** 40;
const ID_KEYS = new Set(['job_id', 'dwm_id', 'seq', 'member_seq']);
/** Fields the specs require: never left out, even when empty. */
const REQUIRED_KEYS = new Set(['name', 'recipient', 'content_id', 'cid', 'member_email', 'req_group_id']);

/** 2^53: every emulator id plus this is beyond Number.MAX_SAFE_INTEGER. */
export const UNSAFE_ID_OFFSET = 2n ** 53n;

function offsetOf(b: EmulatorBehaviours): bigint | undefined {
  if (b.idsBeyondSafe) return UNSAFE_ID_OFFSET;
  if (b.bigIds) return BigInt(BIG_ID_OFFSET);
  return undefined;
}

export function bigId(n: number, offset: bigint = BigInt(BIG_ID_OFFSET)): string {
  return String(BigInt(n) + offset);
}

function transformValue(v: unknown, b: EmulatorBehaviours): unknown {
  if (Array.isArray(v)) return v.map((x) => transformValue(x, b));
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (b.omitEmptyFields && (x === '' || x === null) && !REQUIRED_KEYS.has(k)) continue;
    const offset = offsetOf(b);
    if (offset !== undefined && ID_KEYS.has(k) && typeof x === 'number') {
      out[k] = bigId(x, offset);
      continue;
    }
    const map = b.unknownCodes ? UNKNOWN_CODE_MAP[k] : undefined;
    if (map && typeof x === 'string' && map[x]) {
      out[k] = map[x];
      continue;
    }
    out[k] = transformValue(x, b);
  }
  return out;
}

/** Service API time keys the spec leaves unzoned (serviceTimeZone shifts them). */
const UNZONED_SVC_KEYS = new Set(['reg_time', 'update_time', 'created_time']);
const UTC_SPACE_RE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})$/;

function offsetMs(tz: string): number {
  const sign = tz.startsWith('-') ? -1 : 1;
  return sign * (Number(tz.slice(1, 3)) * 60 + Number(tz.slice(4, 6))) * 60_000;
}

/** A `yyyy-MM-dd HH:mm:ss` time moved by `deltaMs` (same shape); other text unchanged. */
function shiftTime(text: string, deltaMs: number): string {
  const m = UTC_SPACE_RE.exec(text);
  if (!m) return text;
  const ms = Date.parse(`${m[1]}T${m[2]}Z`);
  if (Number.isNaN(ms)) return text;
  const sep = text.charAt(10);
  return new Date(ms + deltaMs).toISOString().slice(0, 19).replace('T', sep);
}

function shiftUnzoned(v: unknown, deltaMs: number): unknown {
  if (Array.isArray(v)) return v.map((x) => shiftUnzoned(x, deltaMs));
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    out[k] = UNZONED_SVC_KEYS.has(k) && typeof x === 'string' ? shiftTime(x, deltaMs) : x;
  }
  return out;
}

/** The packaging cursors of a Service API query read back from serviceTimeZone into UTC. */
export function unzoneQuery(query: URLSearchParams, b: EmulatorBehaviours): URLSearchParams {
  if (!b.serviceTimeZone) return query;
  const q = new URLSearchParams(query);
  for (const k of ['last_created_time_cid', 'last_update_time']) {
    const v = q.get(k);
    if (v) q.set(k, shiftTime(v, -offsetMs(b.serviceTimeZone)));
  }
  return q;
}

/** The envelope as the deviating service sends it (`api`: which API answers; default wm). */
export function applyBehaviours(body: unknown, b: EmulatorBehaviours, api: 'wm' | 'svc' = 'wm'): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const env = { ...(body as Record<string, unknown>) };
  if (api === 'svc' && b.serviceTimeZone && 'data' in env)
    env.data = shiftUnzoned(env.data, offsetMs(b.serviceTimeZone));
  if (
    api === 'wm' &&
    b.taskListCap !== undefined &&
    Array.isArray(env.data) &&
    env.data.length > b.taskListCap &&
    env.data.some((x) => x && typeof x === 'object' && 'task_status' in x)
  )
    env.data = env.data.slice(0, b.taskListCap);
  if ('data' in env) env.data = transformValue(env.data, b);
  if (b.timeZoneText !== undefined && 'time_zone' in env) env.time_zone = b.timeZoneText;
  if (b.omitTotalCount) delete env.total_count;
  return env;
}

/** The query as a service with a lower maximum page size reads it (pageCap: page_unit lowered). */
export function capPaging(query: URLSearchParams, b: EmulatorBehaviours): URLSearchParams {
  const cap = b.pageCap;
  if (cap === undefined) return query;
  const asked = Number(query.get('page_unit') ?? 25);
  if (!(asked > cap)) return query;
  const q = new URLSearchParams(query);
  q.set('page_unit', String(cap));
  return q;
}

/** Path with big ids shifted back ("/api/job/AB12/9007...123" -> "/api/job/AB12/123"). */
export function unshiftPath(path: string, b: EmulatorBehaviours): string {
  const offset = offsetOf(b);
  if (offset === undefined) return path;
  return path.replace(/\/(\d{10,})(?=\/|$)/g, (_m, d: string) => {
    const n = BigInt(d) - offset;
    return `/${n >= 0n ? n.toString() : d}`;
  });
}

/** JSON body with big ids (member_seq) shifted back. */
export function unshiftBody(body: Buffer, b: EmulatorBehaviours): Buffer {
  const offset = offsetOf(b);
  if (offset === undefined || body.length === 0) return body;
  const text = body.toString('utf8');
  if (!text.trimStart().startsWith('{')) {
    // urlencoded form bodies (SERVICE_BODY_ENCODING=form)
    if (!/^[\w.%+-]+=/.test(text)) return body;
    return Buffer.from(
      text.replace(/(^|&)(member_seq|seq)=(\d{10,})/g, (_m, pre: string, k: string, d: string) => {
        return `${pre}${k}=${(BigInt(d) - offset).toString()}`;
      }),
    );
  }
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    let changed = false;
    for (const k of ID_KEYS) {
      const v = j[k];
      if ((typeof v === 'number' || typeof v === 'string') && /^\d{10,}$/.test(String(v))) {
        j[k] = Number(BigInt(String(v)) - offset);
        changed = true;
      }
    }
    return changed ? Buffer.from(JSON.stringify(j)) : body;
  } catch {
    return body;
  }
}
