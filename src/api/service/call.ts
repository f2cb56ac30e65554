/**
 * How one Service API call goes out and comes back: where its parameters go (`placeServiceParams`,
 * the ONE placement rule), the JWT it carries (re-signed once after a 401), and the envelope it
 * is read into. Every endpoint group of the client (sites, DRM data, members, settings) calls
 * through the `ServiceCall` made here; a change of the wire convention lands here only.
 *
 * Parameter placement. GET: every parameter (and api_code) in the query string, as the spec says.
 * POST/PUT: the spec does not show the placement. Default: `api_code` in the query string (so it
 * is present whatever body parser the server uses) and the other fields as a JSON body;
 * `bodyEncoding` 'form' (urlencoded) or 'query' (everything in the query string) and `apiCodeIn`
 * 'body' or 'both' for a deployment that wants otherwise. The certificate upload (18) carries
 * files, so it is always multipart form data (undici FormData + Blob), with api_code placed by
 * `apiCodeIn`.
 */
import type { FormData } from 'undici';
import { API_CODE, type ServiceEndpointName } from '../codes.js';
import { decodeEnvelope, type Envelope } from '../envelope.js';
import { AuthError } from '../errors.js';
import type { HttpClient, HttpMethod, QueryParams, RequestBody } from '../http.js';
import { runCall } from '../http.js';
import type { JwtSigner } from '../jwt.js';
import type { ServiceApiCredentials } from '../types.js';

/** SERVICE_BODY_ENCODING: where the non-header parameters of a POST/PUT go. */
export type BodyEncoding = 'json' | 'form' | 'query';
/** SERVICE_API_CODE_IN: where api_code goes in a POST/PUT. */
export type ApiCodeIn = 'query' | 'body' | 'both';

export interface ParamPlacement {
  bodyEncoding: BodyEncoding;
  apiCodeIn: ApiCodeIn;
}

/**
 * Where one Service API call's parameters go (the ONE placement rule; the spec shows it only for
 * GET). GET: everything in the query string. POST/PUT: `bodyEncoding` json (a JSON body), form
 * (an urlencoded body) or query (everything in the query string, no body); `apiCodeIn` query, body
 * or both. A multipart upload (endpoint 18) keeps its fields and files in the form whatever the
 * encoding (its secrets never go into a URL); its api_code follows `apiCodeIn`. With query
 * encoding and no multipart there is no body: api_code goes in the query string (config refuses
 * `body` with `query`).
 */
export function placeServiceParams(
  method: HttpMethod,
  apiCode: string,
  params: QueryParams,
  placement: ParamPlacement,
  multipart?: FormData,
): { query: QueryParams; body?: RequestBody } {
  if (method === 'GET') return { query: { api_code: apiCode, ...params } };
  const inQuery = placement.apiCodeIn !== 'body';
  const inBody = placement.apiCodeIn !== 'query';
  if (multipart) {
    if (inBody) multipart.set('api_code', apiCode);
    return { query: inQuery ? { api_code: apiCode } : {}, body: { kind: 'multipart', value: multipart } };
  }
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) fields[k] = v;
  if (placement.bodyEncoding === 'query') return { query: { api_code: apiCode, ...params } };
  const query: QueryParams = inQuery ? { api_code: apiCode } : {};
  const withCode = inBody ? { api_code: apiCode, ...fields } : fields;
  if (placement.bodyEncoding === 'form') {
    const form: Record<string, string> = {};
    for (const [k, v] of Object.entries(withCode)) form[k] = String(v);
    return { query, body: { kind: 'form', value: form } };
  }
  return { query, body: { kind: 'json', value: withCode } };
}

/**
 * Calls whose answer's data the client never reads (updates, the password reset, the certificate
 * upload): an HTTP 204 or an empty body is their success (decodeEnvelope `noData`). `verify` is
 * not one: it is there to prove a real envelope comes back.
 */
const NO_DATA_CALLS: ReadonlySet<ServiceEndpointName> = new Set<ServiceEndpointName>([
  'resetSubMemberPassword',
  'updateSubMember',
  'updateSettings',
  'uploadFpsCert',
]);

/** One logical call of an endpoint: its parameters placed, signed, sent, its envelope decoded. */
export type ServiceCall = (
  name: ServiceEndpointName,
  method: HttpMethod,
  path: string,
  params?: QueryParams,
  multipart?: FormData,
) => Promise<Envelope>;

export interface ServiceCallDeps {
  http: HttpClient;
  jwt: JwtSigner;
  /** The bot's clock (compared with the server's Date header on a 401). Default Date.now. */
  now?: () => number;
}

/** The calls of one set of credentials: JWT, request, envelope; one re-sign and retry on 401. */
export function serviceCall(
  creds: ServiceApiCredentials,
  deps: ServiceCallDeps,
  placement: ParamPlacement,
): ServiceCall {
  const { http, jwt } = deps;
  return (name, method, path, params = {}, multipart) => {
    const endpoint = `svc.${name}`;
    const { query, body } = placeServiceParams(method, API_CODE[name], params, placement, multipart);
    const once = async () => {
      const authorization = await jwt.header(creds);
      const res = await http.request({
        endpoint,
        method,
        baseUrl: creds.baseUrl,
        path: `/api/v2${path}`,
        query,
        body,
        headers: { authorization },
      });
      return decodeEnvelope(endpoint, res, {
        api: 'svc',
        noData: NO_DATA_CALLS.has(name),
        ...(deps.now ? { now: deps.now } : {}),
      });
    };
    return runCall(endpoint, async () => {
      try {
        return await once();
      } catch (e) {
        if (!(e instanceof AuthError)) throw e;
        // A 401 was not processed: re-sign (clock skew, expiry race) and try once more.
        jwt.invalidate(creds);
        return once();
      }
    });
  };
}
