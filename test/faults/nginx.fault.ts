/**
 * HTTP mode with three replicas behind the shipped load balancer (deploy/nginx.conf, the
 * `http-replicas` compose profile): three bot processes (src/main.ts, each on its own loopback
 * port, one Redis), nginx in front on loopback with the shipped config (only the replicas'
 * addresses, the listen address and its file paths rewritten: dev/testing/nginx.ts). Signed
 * slash commands sent to nginx's one URL are all answered and spread over the three; after one
 * replica is killed with SIGKILL, every request is still answered (nginx skips the dead one).
 * Skipped, saying so, when nginx is not installed (.ci/run installs nginx-light).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../dev/fakeslack/index.js';
import { signatureHeaders } from '../../dev/testing/bot-stack.js';
import { type ChildHandle, startChild } from '../../dev/testing/child.js';
import { findNginx, type NginxHandle, startNginx } from '../../dev/testing/nginx.js';
import { freeLoopbackPort } from '../../dev/testing/ports.js';
import { startTestRedis, type TestRedis } from '../../dev/testing/redis.js';
import { scenario } from './support/summary.js';

const repo = resolve(new URL('../..', import.meta.url).pathname);
const nginx = findNginx();
if (!nginx) {
  console.warn(
    'nginx.fault.ts SKIPPED: nginx is not installed (apt-get install -y nginx-light); the ' +
      'load-balanced HTTP topology (deploy/nginx.conf) was NOT checked in this run.',
  );
}

const TEAM = 'T0NGINXLB';
const USER = 'U0NGINXUSR';
const CHANNEL = 'C0NGINXCH';
const BOT_TOKEN = `xoxb-nginx-${randomBytes(6).toString('hex')}`;
const SECRET = randomBytes(16).toString('hex');

let fake: FakeSlack;
let redis: TestRedis | undefined;
let lb: NginxHandle | null = null;
const replicas: Array<{ port: number; child: ChildHandle }> = [];

async function ready(port: number, child: ChildHandle, ms: number) {
  const end = Date.now() + ms;
  for (;;) {
    const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (r?.status === 200) return;
    if (Date.now() > end) throw new Error(`replica on ${port} not ready: ${child.stderr().slice(-1500)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

beforeAll(async () => {
  if (!nginx) return;
  fake = await FakeSlack.start();
  fake.addWorkspace({
    teamId: TEAM,
    botToken: BOT_TOKEN,
    users: [{ id: USER, name: 'lee', isAdmin: false, tz: 'UTC' }],
    channels: [{ id: CHANNEL, name: 'releases' }],
  });
  redis = await startTestRedis();
  const key = randomBytes(32).toString('base64');
  for (let i = 0; i < 3; i++) {
    const port = await freeLoopbackPort();
    const child = startChild(
      'src/main.ts',
      {
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SECRET,
        SLACK_API_URL: fake.apiUrl,
        ENCRYPTION_KEY: key,
        STORE_URL: redis.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      repo,
    );
    replicas.push({ port, child });
  }
  await Promise.all(replicas.map((r) => ready(r.port, r.child, 40_000)));
  lb = await startNginx(replicas.map((r) => r.port));
}, 60_000);

afterAll(async () => {
  await lb?.stop();
  for (const r of replicas) await r.child.kill9();
  await redis?.stop();
  await fake?.close();
});

/** A signed /dwm help through nginx; resolves with the HTTP status. */
async function command(n: number): Promise<number> {
  const body = new URLSearchParams({
    token: 'deprecated',
    team_id: TEAM,
    team_domain: 'lb',
    channel_id: CHANNEL,
    channel_name: 'releases',
    user_id: USER,
    user_name: 'lee',
    command: '/dwm',
    text: `help ${n}`,
    api_app_id: 'A0NGINX',
    is_enterprise_install: 'false',
    response_url: fake.responseUrl(TEAM, { channel: CHANNEL, userId: USER }),
    trigger_id: fake.issueTrigger(TEAM, USER),
  }).toString();
  const r = await fetch(`http://127.0.0.1:${lb!.port}/slack/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...signatureHeaders(SECRET, body) },
    body,
  });
  await r.text();
  return r.status;
}

/** The access log's lines for /slack/events: the replica port(s) each request went to. */
function upstreams(): string[][] {
  return lb!
    .accessLog()
    .split('\n')
    .filter((l) => l.includes('/slack/events'))
    .map((l) =>
      [...(/upstream=(.*?) upstream_status=/.exec(l)?.[1] ?? '').matchAll(/:(\d+)/g)].map((m) => m[1]!),
    );
}

async function answers(n: number, ms = 15_000): Promise<number> {
  const end = Date.now() + ms;
  for (;;) {
    const got = fake.calls('response_url').filter((c) => c.ok).length;
    if (got >= n || Date.now() > end) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!nginx)('three HTTP replicas behind nginx (deploy/nginx.conf)', () => {
  it('signed requests to the one URL are answered and spread over all three; with one killed, still all answered', async () => {
    await scenario(
      { scenario: 'lb: three HTTP replicas behind nginx', injected: 'kill -9 of one replica' },
      async () => {
        const ports = replicas.map((r) => String(r.port));
        for (let i = 0; i < 12; i++) expect(await command(i)).toBe(200);
        expect(await answers(12)).toBe(12);
        const first = upstreams();
        expect(first).toHaveLength(12);
        const per = ports.map((p) => first.filter((u) => u.at(-1) === p).length);
        expect(
          per.every((n) => n >= 2),
          `requests per replica ${per.join('/')}`,
        ).toBe(true);

        // One replica dies (kill -9): nginx skips it; no request goes unanswered.
        const dead = replicas[1]!;
        await dead.child.kill9();
        for (let i = 12; i < 21; i++) expect(await command(i)).toBe(200);
        expect(await answers(21)).toBe(21);
        const after = upstreams().slice(12);
        expect(after).toHaveLength(9);
        for (const u of after) expect(u.at(-1)).not.toBe(String(dead.port));
        const live = ports.filter((p) => p !== String(dead.port));
        for (const p of live) expect(after.some((u) => u.at(-1) === p)).toBe(true);
        const got = fake.calls('response_url').filter((c) => c.ok).length;
        return {
          outcome: `21 requests answered (${per.join('/')} before the kill), then by the other two`,
          lost: Math.max(0, 21 - got),
          duplicated: Math.max(0, got - 21),
        };
      },
    );
  });
});
