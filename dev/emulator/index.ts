/**
 * The emulator: one node:http server on loopback with the watermarking API at /wm and the
 * Service API at /svc, in-memory state, deterministic seed data, fault injection and latency.
 *
 *   const emu = await startEmulator();
 *   emu.wmBaseUrl      // http://127.0.0.1:PORT/wm
 *   emu.serviceBaseUrl // http://127.0.0.1:PORT/svc  (paths /api/v2/... follow)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  applyBehaviours,
  capPaging,
  type EmulatorBehaviours,
  unshiftBody,
  unshiftPath,
  unzoneQuery,
} from './behaviours.js';
import { EmuError, HttpRefusal } from './errors.js';
import { Faults } from './faults.js';
import { type Reply, type Router, readBody, sendJson, sendText } from './http.js';
import { DEMO_CREDENTIALS, seed } from './seed.js';
import { EmulatorState } from './state.js';
import { svcRouter } from './svc-routes.js';
import { addLicenseRecords, cancelStatusRequestElsewhere, decideSiteRequest } from './svc-state.js';
import type { EmulatorHandle, EmulatorOptions, FaultRule } from './types.js';
import { wmRouter } from './wm-routes.js';

export {
  ALL_BEHAVIOURS,
  BIG_ID_OFFSET,
  bigId,
  type EmulatorBehaviours,
  UNKNOWN_CODE_MAP,
  UNSAFE_ID_OFFSET,
} from './behaviours.js';
export { DEMO_CREDENTIALS } from './seed.js';
export type { EmulatorHandle, EmulatorOptions, FaultRule } from './types.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const DEFAULT_TOKEN_TTL_MS = 60 * 60 * 1000;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const host = opts.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new Error(`emulator: host ${host} refused; only loopback is allowed.`);
  const baseNow = opts.now ?? Date.now;
  let behaviours: EmulatorBehaviours = { ...opts.behaviours };
  // The emulator's own clock: the bot's plus the switchable skew (Date header, expiry, times).
  const now = () => baseNow() + (behaviours.clockSkewMs ?? 0);
  const state = new EmulatorState({ now, tokenTtlMs: opts.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS });
  const demo = opts.seed === false ? DEMO_CREDENTIALS : seed(state);
  const faults = new Faults();
  let latencyMs = opts.latencyMs ?? 0;
  let counts = new Map<string, number>();

  const mounts: { prefix: string; router: Router }[] = [
    { prefix: '/wm', router: wmRouter(state, { behaviours: () => behaviours }) },
    {
      prefix: '/svc',
      router: svcRouter(state, {
        cidLicensePath: opts.cidLicensePath ?? 'cid-License',
        jwt: {
          subject: opts.serviceJwt?.subject ?? 'ServiceAPI',
          audience: opts.serviceJwt?.audience ?? 'AUDIENCE',
          issuer: opts.serviceJwt?.issuer ?? 'Service',
        },
        behaviours: () => behaviours,
      }),
    },
  ];

  function applyAction(res: ServerResponse, req: IncomingMessage, rule: FaultRule): void {
    if (rule.drop) {
      req.socket.destroy();
      return;
    }
    if (rule.status !== undefined) {
      const headers: Record<string, string> = {};
      if (rule.retryAfterSeconds !== undefined) headers['retry-after'] = String(rule.retryAfterSeconds);
      sendText(res, rule.status, rule.status >= 500 ? 'Service Unavailable' : '', headers);
      return;
    }
    if (rule.malformed) {
      res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' });
      res.end('{"error_code": "0000", "data": [ <html>oops');
      return;
    }
    if (rule.body !== undefined) {
      sendJson(res, 200, rule.body);
      return;
    }
    if (rule.errorCode) {
      sendJson(res, 200, { error_code: rule.errorCode.code, error_message: rule.errorCode.message });
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const rawUrl = req.url ?? '/';
    const url = new URL(rawUrl, 'http://127.0.0.1');
    const fullPath = unshiftPath(url.pathname, behaviours);
    const mount = mounts.find((m) => fullPath === m.prefix || fullPath.startsWith(`${m.prefix}/`));
    const path = mount ? fullPath.slice(mount.prefix.length) || '/' : fullPath;
    const match = mount?.router.match(method, path);
    const countKey = match && mount ? `${method} ${mount.prefix}${match.template}` : `${method} ${fullPath}`;
    counts.set(countKey, (counts.get(countKey) ?? 0) + 1);

    let body: Buffer;
    try {
      body = unshiftBody(await readBody(req), behaviours);
    } catch {
      sendJson(res, 413, { error_code: 'E1001', error_message: 'The body is too large.' });
      return;
    }
    const decision = faults.take(`${method} ${fullPath}`);
    const delay = latencyMs + decision.latencyMs;
    if (delay > 0) await sleep(delay);
    if (decision.action) {
      applyAction(res, req, decision.action);
      return;
    }
    if (!match) {
      sendJson(res, 404, { error_code: '404', error_message: `No such endpoint: ${method} ${fullPath}` });
      return;
    }
    let reply: Reply;
    try {
      reply = await match.handler({
        method,
        path,
        fullPath,
        rawUrl,
        query: capPaging(
          mount?.prefix === '/svc' ? unzoneQuery(url.searchParams, behaviours) : url.searchParams,
          behaviours,
        ),
        params: match.params,
        headers: req.headers,
        body,
      });
    } catch (err) {
      if (err instanceof EmuError) {
        const code =
          err.condition === 'duplicateRecipient' && behaviours.duplicateCode
            ? behaviours.duplicateCode
            : err.overridden
              ? err.code
              : (behaviours.errorCodes?.[err.condition] ?? err.code);
        reply = { status: 200, body: { error_code: code, error_message: err.message } };
      } else if (err instanceof HttpRefusal) {
        reply = { status: err.status, body: { error_code: String(err.status), error_message: err.message } };
      } else {
        reply = {
          status: 200,
          body: { error_code: 'E9999', error_message: 'Internal error in the emulator.' },
        };
      }
    }
    res.setHeader('date', new Date(now()).toUTCString());
    const api = mount?.prefix === '/svc' ? 'svc' : 'wm';
    sendJson(res, reply.status, applyBehaviours(reply.body, behaviours, api), reply.headers);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error_code: 'E9999', error_message: 'Internal error.' });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostInUrl = host === '::1' ? '[::1]' : host === 'localhost' ? '127.0.0.1' : host;
  const base = `http://${hostInUrl}:${port}`;

  const handle_: EmulatorHandle = {
    wmBaseUrl: `${base}/wm`,
    serviceBaseUrl: `${base}/svc`,
    port,
    demo,
    faults,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    addWatermarkingAccount: (acc) => state.addWmAccount(acc),
    addServiceAccount: (acc) => state.addSvcAccount(acc),
    createJob: (siteId, contentId, tasks, o) => state.createJob(siteId, contentId, tasks, o).jobId,
    bulkCreateJobs: (siteId, count, o) => state.bulkCreateJobs(siteId, count, o),
    setJobStatus: (siteId, jobId, status) => state.setJobStatus(siteId, jobId, status),
    setTaskStatus: (siteId, jobId, dwmId, status, cli) =>
      state.setTaskStatus(siteId, jobId, dwmId, status, cli),
    finishJob: (siteId, jobId, o) => state.finishJob(siteId, jobId, o),
    getJob: (siteId, jobId) => {
      const job = state.site(siteId)?.jobs.get(jobId);
      return job ? state.toEmulatorJob(job) : undefined;
    },
    expireTokens: () => state.expireTokens(),
    credentialsSeen: () => [...state.credentialsSeen],
    requestCounts: () => Object.fromEntries(counts),
    resetRequestCounts: () => {
      counts = new Map();
    },
    recipientCount: (siteId) => state.site(siteId)?.recipients.size ?? 0,
    setLatency: (ms) => {
      latencyMs = ms;
    },
    setBehaviours: (b) => {
      behaviours = { ...b };
    },
    behaviours: () => ({ ...behaviours }),
    approveRequest: (siteId, requestId) => state.approveRequest(siteId, requestId),
    cancelRequestElsewhere: (siteId, requestId) =>
      cancelStatusRequestElsewhere(state.requireSite(siteId).svc, requestId, state.now()),
    decideSiteRequest: (accountId, seq, status, siteId) => {
      const acc = state.svcAccounts.get(accountId);
      if (!acc) throw new Error(`emulator: unknown service account ${accountId}`);
      decideSiteRequest(acc, seq, status, state.now(), siteId);
    },
    addLicenses: (siteId, records) => addLicenseRecords(state.requireSite(siteId).svc, records),
    certificateUploads: (siteId) => [...(state.site(siteId)?.svc.certUploads ?? [])],
    registrationPostsPerName: (siteId) => {
      const out = new Map<string, number>();
      for (const [k, n] of state.registrationPosts) {
        if (k.startsWith(`${siteId}:`)) out.set(k.slice(siteId.length + 1), n);
      }
      return out;
    },
    stateSnapshot: () =>
      JSON.stringify([...state.sites.entries()], (_k, v: unknown) =>
        v instanceof Map ? [...v.entries()] : v instanceof Set ? [...v] : v,
      ),
  };
  return handle_;
}
