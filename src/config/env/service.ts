/**
 * The two upstream APIs (watermarking and the Service API): their base URLs and the single
 * workspace's credentials and site ids, the JWT claims and lifetime, the calls' timeouts and
 * retries, the choices the spec leaves open (encodings, time zones, error code tables), and which
 * hosts the bot may call and how much it reads (src/api/origins.ts, http.ts).
 */
import { z } from 'zod';
import { loadErrorCodes, loadFailureCodes, loadLicenseErrorCodes } from '../../api/error-codes.js';
import { parseAllowedOrigin } from '../../api/origins.js';
import { loadSiteRequestStatuses } from '../../api/site-request-statuses.js';
import { normalizeTimeZone } from '../../api/time.js';
import { checkSiteId } from '../../api/validate.js';
import { commaList, httpUrl, intIn, nonEmpty, type VariableSpec } from '../spec.js';

/** The API module's own site id rule (exactly 4 letters or digits), with its message. */
const siteId = z.string().superRefine((v, c) => {
  const problem = checkSiteId(v);
  if (problem) c.addIssue({ code: 'custom', message: problem });
});

/** A UTC offset setting: UTC, Z or an offset such as +09:00, normalised ("+09:00"). */
function offsetSetting() {
  return z
    .string()
    .trim()
    .transform((x, ctx) => {
      const n = normalizeTimeZone(x);
      if (n === null) {
        ctx.addIssue({ code: 'custom', message: 'must be UTC or an offset such as +09:00 or -05:30' });
        return z.NEVER;
      }
      return n;
    });
}

/** A JSON table setting: valid when its loader (src/api) reads it. */
function jsonTable(load: (text: string) => unknown, error: string) {
  return z.string().refine(
    (x) => {
      try {
        load(x);
        return true;
      } catch {
        return false;
      }
    },
    { error },
  );
}

export const SERVICE_ACCOUNT_VARIABLES: VariableSpec[] = [
  {
    name: 'DWM_BASE_URL',
    required: 'minimum (for watermarking)',
    description:
      'Watermarking API base URL, given by your service provider (a path prefix is allowed). `/dwm setup` sends the keys an admin types only here: an admin cannot type another host unless it is in UPSTREAM_ALLOWED_ORIGINS.',
    schema: httpUrl.transform((s) => s.replace(/\/+$/, '')),
  },
  {
    name: 'SERVICE_API_BASE_URL',
    required: 'minimum (for the Service API)',
    description:
      'Service API base URL, given by your service provider; /api/v2/... paths are appended. Like DWM_BASE_URL, the only host `/dwm setup` sends the Service API key to, unless UPSTREAM_ALLOWED_ORIGINS lists others.',
    schema: httpUrl.transform((s) => s.replace(/\/+$/, '')),
  },
  {
    name: 'DWM_SITE_IDS',
    required: 'single workspace with env credentials',
    description: 'Comma-separated site ids the workspace may use.',
    schema: commaList(siteId).pipe(z.array(z.string()).min(1, 'must list at least one site id')),
  },
  {
    name: 'DWM_DEFAULT_SITE',
    required: 'no',
    default: 'first of DWM_SITE_IDS',
    description: 'Site used when a command names none; must be one of DWM_SITE_IDS.',
    schema: siteId,
  },
  {
    name: 'DWM_ACCOUNT_ID',
    required: 'with DWM_ACCESS_KEY',
    description: 'Watermarking API account id (single workspace).',
    schema: nonEmpty,
  },
  {
    name: 'DWM_ACCESS_KEY',
    required: 'with DWM_ACCOUNT_ID',
    description: 'Watermarking API access key (single workspace).',
    schema: nonEmpty,
    secret: true,
  },
  {
    name: 'SERVICE_API_ACCOUNT_ID',
    required: 'with the other SERVICE_API_* credentials',
    description: 'Service API account id (single workspace).',
    schema: nonEmpty,
  },
  {
    name: 'SERVICE_API_ACCOUNT_SEQ',
    required: 'with the other SERVICE_API_* credentials',
    description: 'Service API account sequence number.',
    schema: z.string().regex(/^\d+$/, 'must be the numeric account sequence'),
  },
  {
    name: 'SERVICE_API_SECRET_KEY',
    required: 'with the other SERVICE_API_* credentials',
    description: 'Service API HS256 secret key.',
    schema: nonEmpty,
    secret: true,
  },
  {
    name: 'SERVICE_JWT_SUB',
    required: 'no',
    default: 'ServiceAPI',
    description: 'JWT `sub` claim for the Service API.',
    schema: nonEmpty,
  },
  {
    name: 'SERVICE_JWT_AUD',
    required: 'no',
    default: 'AUDIENCE',
    description: 'JWT `aud` claim.',
    schema: nonEmpty,
  },
  {
    name: 'SERVICE_JWT_ISS',
    required: 'no',
    default: 'Service',
    description: 'JWT `iss` claim.',
    schema: nonEmpty,
  },
];

export const SERVICE_CALL_VARIABLES: VariableSpec[] = [
  {
    name: 'SERVICE_TIMEOUT_MS',
    required: 'no',
    default: '10000',
    description:
      'Idle timeout of a call to the service APIs, ms: the longest wait for the response headers, and for each next piece of the body. It does not bound a whole call: a server that keeps sending a byte now and then is cut off by UPSTREAM_CALL_DEADLINE_MS.',
    schema: intIn(100, 300_000),
  },
  {
    name: 'SERVICE_RETRIES',
    required: 'no',
    default: '2',
    description: 'Retries of an idempotent service call after a network error, 429 or 5xx.',
    schema: intIn(0, 10),
  },
];

// The spec does not show these; the defaults follow it as written, and a deployment whose
// service differs can say so here (see src/api/service.ts, jwt.ts, wm-token.ts, error-codes.ts).
export const SERVICE_SPEC_VARIABLES: VariableSpec[] = [
  {
    name: 'SERVICE_BODY_ENCODING',
    required: 'no',
    default: 'json',
    description:
      'Where the parameters of Service API POST/PUT calls go (the spec: "Placement of api_code and of other non-header parameters in POST and PUT calls (query string, JSON body or multipart form): not shown"): json (a JSON body), form (an urlencoded body) or query (all in the query string). The certificate upload is always a multipart form.',
    schema: z.enum(['json', 'form', 'query'], { error: 'must be json, form or query' }),
  },
  {
    name: 'SERVICE_API_CODE_IN',
    required: 'no',
    default: 'query',
    description:
      'Where api_code goes in Service API POST/PUT calls, the certificate upload included (the spec: "Placement of api_code ... in POST and PUT calls ...: not shown"): query (the query string), body (the JSON body or form) or both. body needs SERVICE_BODY_ENCODING json or form.',
    schema: z.enum(['query', 'body', 'both'], { error: 'must be query, body or both' }),
  },
  {
    // The spec gives license reg_time no zone (only reg_dt/update_dt say UTC); src/api/service.ts.
    name: 'SERVICE_LICENSE_TIME_ZONE',
    required: 'no',
    default: 'UTC',
    description:
      'UTC offset the Service API writes license times (reg_time of the license list) in; the spec does not say. UTC, or an offset such as +09:00. License alerts count the records of their window by this time: set it if alerts count too few or too many licenses. A time sent with its own offset keeps it.',
    schema: offsetSetting(),
  },
  {
    // The spec zones only reg_dt/update_dt ("UTC +00:00"); additional-site and packaging times
    // have none (src/api/service.ts). Their reading: the request lists, outcomes and packaging.
    name: 'SERVICE_TIME_ZONE',
    required: 'no',
    default: 'UTC',
    description:
      'UTC offset the Service API writes the times its spec leaves unzoned in: additional-site requests (reg_time, update_time) and packaging history (created_time, update_time; its from/to days are sent as the days of this offset that cover the days asked); the spec gives a zone only for reg_dt/update_dt of plan requests ("UTC +00:00"). UTC, or an offset such as +09:00. Set it when request or packaging times show hours off, or a from:/to: day misses rows at its edges. License times have their own setting (SERVICE_LICENSE_TIME_ZONE); a time sent with its own offset keeps it.',
    schema: offsetSetting(),
  },
  {
    name: 'SERVICE_JWT_ACCOUNT_SEQ_TYPE',
    required: 'no',
    default: 'string',
    description: 'JSON type of the account_seq claim in the Service API JWT: string or number.',
    schema: z.enum(['string', 'number'], { error: 'must be string or number' }),
  },
  {
    name: 'SERVICE_JWT_SECRET_ENCODING',
    required: 'no',
    default: 'utf8',
    description: 'How the Service API secret key is turned into HMAC key bytes: utf8 (as typed) or base64.',
    schema: z.enum(['utf8', 'base64'], { error: 'must be utf8 or base64' }),
  },
  {
    name: 'WM_TOKEN_MAX_AGE_SECONDS',
    required: 'no',
    default: '3000',
    description:
      'Watermarking API tokens are reused until a 401 or this age, whichever comes first (the spec does not show their lifetime).',
    schema: intIn(60, 86_400),
  },
  {
    name: 'SERVICE_ERROR_CODES',
    required: 'no',
    description:
      'JSON object mapping conditions to the service\'s error_code values, when they differ from the defaults (e.g. {"recipientInUse":"E2003"}): the specs list no error codes ("not shown"). A condition may take several codes (["E2003","409"]), and a key prefixed wm. or svc. (e.g. "svc.requestNotFound") gives codes that mean it on that API only, since the two APIs are separate services. See src/api/error-codes.ts.',
    schema: jsonTable(
      loadErrorCodes,
      'must be a JSON object of condition name (optionally prefixed wm. or svc.) to a code string or a list of them, like {"recipientInUse":"E2003","svc.requestNotFound":["E4001","404"]}',
    ),
  },
  {
    name: 'LICENSE_ERROR_CODES',
    required: 'no',
    description:
      'JSON object giving the error codes of failed DRM license records words, e.g. {"E-LIC-07":"the device is not allowed by the license policy"}. The spec says only that "0000" means the license was issued ("the list of other error codes and their causes: not shown"), so the bot ships none: codes not given here are shown as they are. Used in license lists and license alerts.',
    schema: jsonTable(
      loadLicenseErrorCodes,
      'must be a JSON object of license error code to its meaning (text)',
    ),
  },
  {
    name: 'SERVICE_SITE_REQUEST_STATUSES',
    required: 'no',
    description:
      'JSON object of additional-site request status words to what they mean: pending, approved or cancelled, e.g. {"WAIT":"pending","OK":"approved","NG":"cancelled"} (the spec: "Allowed values of req_status: not shown"). Adds to or replaces the built-in words (src/api/site-request-statuses.ts). Only a word read as approved or cancelled ends the follow-up of a request; another word keeps it followed and is announced as it is once it has stood SITE_REQUEST_UNKNOWN_STATUS_MINUTES.',
    schema: jsonTable(
      loadSiteRequestStatuses,
      'must be a JSON object of status word to "pending", "approved" or "cancelled"',
    ),
  },
  {
    name: 'SITE_REQUEST_UNKNOWN_STATUS_MINUTES',
    required: 'no',
    default: '60',
    description:
      'An additional-site request whose status is a word SERVICE_SITE_REQUEST_STATUSES does not know stays followed; the requester is told the word as it is once it has stood unchanged this long (the spec: "Transitions ... of additional-site request status ...: not shown"). Also applies to a plan request status the spec does not list. 0 tells it at the next poll.',
    schema: intIn(0, 43_200),
  },
  {
    name: 'JOB_FAILURE_CODES',
    required: 'no',
    description:
      'JSON object giving job/task failure codes (cli_error_code) words, e.g. {"E-417":{"meaning":"embedding failed","next":"start the job again"}}. The spec says only that "0" means success and "any other value means failure", so the bot ships no meaning of its own (a code 3 must not get a made-up cause): codes not given here show as "unknown (CODE)". Examples in docs/configuration.md.',
    schema: jsonTable(loadFailureCodes, 'must be a JSON object of code to {"meaning": text, "next": text}'),
  },
];

// Upstream connections (src/api/origins.ts and http.ts; docs/security.md "Which hosts the bot
// talks to").
export const UPSTREAM_VARIABLES: VariableSpec[] = [
  {
    name: 'UPSTREAM_ALLOWED_ORIGINS',
    required: 'no',
    description:
      'Comma-separated origins (scheme://host[:port], no path) the bot may call besides DWM_BASE_URL and SERVICE_API_BASE_URL, e.g. a base URL an admin enters in setup. https only, unless an origin is listed as http://host:port (port required). Cloud metadata addresses are always refused.',
    schema: z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .superRefine((items, c) => {
        for (const item of items) {
          const r = parseAllowedOrigin(item);
          if ('problem' in r) c.addIssue({ code: 'custom', message: r.problem });
        }
      })
      .transform((items) => items.map((i) => (parseAllowedOrigin(i) as { origin: string }).origin)),
  },
  {
    name: 'UPSTREAM_MAX_RESPONSE_BYTES',
    required: 'no',
    default: '10485760',
    description:
      'Largest answer read from the service APIs, bytes (default 10 MB); a larger one is refused with a clear error and not read.',
    schema: intIn(1024, 1024 * 1024 * 1024),
  },
  {
    name: 'UPSTREAM_CALL_DEADLINE_MS',
    required: 'no',
    default: '30000',
    description:
      'Whole-call deadline of one service call, ms: every attempt and retry wait, the connection, the headers and the whole body, however the time is spent (a server sending a byte every few seconds, each gap within SERVICE_TIMEOUT_MS, is cut off here). The same for commands and the job watcher; a command is acked at once and its answer follows, so a slow service delays the answer, never the ack.',
    schema: intIn(500, 600_000),
  },
];

export const SERVICE_JWT_TTL_VARIABLES: VariableSpec[] = [
  {
    name: 'SERVICE_JWT_TTL_SECONDS',
    required: 'no',
    default: '300',
    description:
      "Lifetime (exp) of a Service API JWT, seconds. Lengthen it when the server's clock runs ahead of the bot's; 0 leaves exp out (the spec allows it).",
    schema: intIn(0, 86_400),
  },
];
