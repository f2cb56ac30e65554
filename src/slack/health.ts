/**
 * Operational HTTP routes served next to the Slack endpoints:
 *   /healthz  liveness: the process answers (no dependency checked; a restart would not help them),
 *             with the app's version (package.json) so a rolling upgrade can be followed.
 *   /readyz   readiness: the store answers a ping and Slack's Web API is reachable with our
 *             credentials (auth.test in single-workspace mode, api.test with OAuth). The Slack
 *             result is cached (success 60 s, failure 10 s) so probes don't hammer Slack.
 *   /metrics  Prometheus text format from src/metrics.ts.
 * With METRICS_TOKEN set, /readyz and /metrics answer only requests carrying
 * `Authorization: Bearer <token>` (401 otherwise, compared in constant time); /healthz stays open
 * (it tells nothing but "the process answers", and container health checks call it).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { registry, setStoreProbe } from '../metrics.js';
import { versions } from '../ops/debug.js';
import type { AppDeps } from './deps.js';
import { slackApiUrl } from './kit/web/client.js';
import { describeSlackFailure } from './startup-check.js';

export interface ReadinessCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface HealthOptions {
  /** WebClient pointed at the configured Slack API (already carrying the bot token in single mode). */
  client: WebClient;
  /** How long a successful Slack check is reused, ms (default 60 000). */
  okTtlMs?: number;
  /** How long a failed Slack check is reused, ms (default 10 000). */
  failTtlMs?: number;
  /** Extra checks registered by features (e.g. the watcher). */
  extraChecks?: Array<() => Promise<ReadinessCheck>>;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export function createHealth(deps: AppDeps, opts: HealthOptions) {
  const okTtl = opts.okTtlMs ?? 60_000;
  const failTtl = opts.failTtlMs ?? 10_000;
  let slackCache: { at: number; check: ReadinessCheck } | undefined;
  let inflight: Promise<ReadinessCheck> | undefined;
  const version = versions().app;
  setStoreProbe(() => deps.store.ping());

  async function slackCheck(): Promise<ReadinessCheck> {
    const now = deps.now();
    if (slackCache && now - slackCache.at < (slackCache.check.ok ? okTtl : failTtl)) return slackCache.check;
    if (!inflight) {
      inflight = (async (): Promise<ReadinessCheck> => {
        try {
          if (deps.config.distribution === 'single') {
            const r = await opts.client.auth.test();
            return { name: 'slack', ok: Boolean(r.ok), detail: `team ${String(r.team_id ?? '?')}` };
          }
          const r = await opts.client.api.test();
          return { name: 'slack', ok: Boolean(r.ok) };
        } catch (e) {
          // In words, with the Slack error code (e.g. invalid_auth) or the network error's: never
          // the token.
          const f = describeSlackFailure(e, 'SLACK_BOT_TOKEN', slackApiUrl(deps.config));
          return { name: 'slack', ok: false, detail: f.words };
        }
      })().then((check) => {
        slackCache = { at: deps.now(), check };
        inflight = undefined;
        return check;
      });
    }
    return inflight;
  }

  async function storeCheck(): Promise<ReadinessCheck> {
    try {
      const ok = await deps.store.ping();
      return { name: 'store', ok, detail: deps.store.backend };
    } catch (e) {
      return { name: 'store', ok: false, detail: `${deps.store.backend}: ${(e as Error).name}` };
    }
  }

  async function readiness(): Promise<{ ready: boolean; checks: ReadinessCheck[] }> {
    const checks = await Promise.all([
      storeCheck(),
      slackCheck(),
      ...(opts.extraChecks ?? []).map((c) =>
        c().catch((e: unknown) => ({ name: 'extra', ok: false, detail: (e as Error).name })),
      ),
    ]);
    return { ready: checks.every((c) => c.ok), checks };
  }

  const token = deps.config.metricsToken;
  const digest = (x: string) => createHash('sha256').update(x).digest();
  /** True when the request may see /readyz and /metrics; answers 401 itself otherwise. */
  const authorized = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!token) return true;
    // `\s+` then `\S`: the two parts cannot take the same characters (no backtracking between them).
    const given = /^Bearer\s+(\S.*)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (timingSafeEqual(digest(given), digest(token))) return true;
    res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    return false;
  };

  const routes: CustomRoute[] = [
    {
      path: '/healthz',
      method: ['GET', 'HEAD'],
      handler: (_req: IncomingMessage, res: ServerResponse) => sendJson(res, 200, { status: 'ok', version }),
    },
    {
      path: '/readyz',
      method: ['GET', 'HEAD'],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        if (!authorized(req, res)) return;
        readiness().then(
          (r) =>
            sendJson(res, r.ready ? 200 : 503, { status: r.ready ? 'ready' : 'not ready', checks: r.checks }),
          () => sendJson(res, 503, { status: 'not ready' }),
        );
      },
    },
    {
      path: '/metrics',
      method: ['GET'],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        if (!authorized(req, res)) return;
        registry.metrics().then(
          (text) => {
            res.writeHead(200, { 'content-type': registry.contentType });
            res.end(text);
          },
          () => sendJson(res, 500, { error: 'metrics unavailable' }),
        );
      },
    },
  ];

  return { routes, readiness, slackCheck };
}
