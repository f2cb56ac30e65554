/**
 * What the bot says at start-up about its Slack token and scopes: a refused token or an unreachable
 * Slack is one error line in words (what to check), never an unhandled rejection; /readyz says the
 * same; the scopes Slack granted are compared with what the bot asks for and each missing one is
 * named with the feature that is off. The real app (createSlackApp, HTTP mode) against the fake
 * Slack on loopback; "unreachable" is a closed loopback port.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../../dev/fakeslack/index.js';
import { captureLogs } from '../../../dev/testing/bot-stack.js';
import { createApi } from '../../../src/api/index.js';
import { loadConfig } from '../../../src/config.js';
import { createSlackApp, type SlackAppHandle } from '../../../src/slack/app.js';
import { BOT_SCOPES, botScopesOf } from '../../../src/slack/oauth.js';
import { describeSlackFailure, scopeReport } from '../../../src/slack/startup-check.js';
import { createStore } from '../../../src/store/index.js';

const TEAM = 'T0START';
const TOKEN = 'xoxb-start-0000000001';
let fake: FakeSlack;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  fake = await FakeSlack.start();
  fake.addWorkspace({
    teamId: TEAM,
    botToken: TOKEN,
    scopes: BOT_SCOPES.filter((s) => !['files:write', 'channels:history'].includes(s)),
  });
});
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(async () => {
  await fake?.close();
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function start(token: string, apiUrl: string, extra: Record<string, string> = {}) {
  const config = loadConfig({
    ...extra,
    SLACK_BOT_TOKEN: token,
    SLACK_SIGNING_SECRET: randomBytes(8).toString('hex'),
    SLACK_API_URL: apiUrl,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PORT: '0',
    HOST: '127.0.0.1',
  });
  const store = await createStore({ url: 'memory://', encryptionKey: config.encryptionKey });
  const api = createApi();
  const { logger, capture } = captureLogs('info');
  const rejections: unknown[] = [];
  const onRejection = (r: unknown) => rejections.push(r);
  process.on('unhandledRejection', onRejection);
  const handle: SlackAppHandle = createSlackApp(
    { config, store, api, logger, now: Date.now },
    { register: () => undefined, retryConfig: { retries: 0 } },
  );
  closers.push(async () => {
    process.off('unhandledRejection', onRejection);
    await handle.stop();
    await api.close();
    await store.close();
  });
  await handle.start();
  // Let any stray promise settle (an unhandled rejection is reported after a tick).
  await new Promise((r) => setTimeout(r, 200));
  return { handle, capture, rejections };
}

describe('start-up check of the Slack token', () => {
  it('a refused token: one error in words (which token, where to find it), /readyz says it, no unhandled rejection', async () => {
    const { handle, capture, rejections } = await start('xoxb-start-wrong-0000', fake.apiUrl);
    expect(rejections).toEqual([]);
    const errors = capture.entries().filter((e) => e.level === 'error');
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.msg)).toMatch(
      /^Slack refused SLACK_BOT_TOKEN \(invalid_auth\): check that it is the app's Bot User OAuth Token/,
    );
    expect(capture.text()).not.toContain('xoxb-start-wrong');
    expect(capture.text()).not.toMatch(/\n\s+at /);
    const r = await handle.readiness();
    expect(r.ready).toBe(false);
    expect(r.checks.find((c) => c.name === 'slack')?.detail).toMatch(/^Slack refused SLACK_BOT_TOKEN/);
  });

  it('Slack unreachable: says to check outbound HTTPS, keeps running, no unhandled rejection', async () => {
    const port = await closedPort();
    const { handle, capture, rejections } = await start(TOKEN, `http://127.0.0.1:${port}/api/`);
    expect(rejections).toEqual([]);
    const errors = capture.entries().filter((e) => e.level === 'error');
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.msg)).toMatch(
      /^Could not reach Slack's Web API at http:\/\/127\.0\.0\.1:\d+\/api\/ \(ECONNREFUSED\): check outbound HTTPS/,
    );
    expect((await handle.readiness()).ready).toBe(false);
  });

  it('names each scope Slack did not grant with the feature that is off', async () => {
    const { capture } = await start(TOKEN, fake.apiUrl);
    const warn = capture.entries().find((e) => e.level === 'warn' && /did not grant/.test(String(e.msg)));
    expect(warn?.missing).toEqual(['channels:history', 'files:write']);
    expect(String(warn?.msg)).toContain(
      'files:write: CSV exports (job tasks, registration reports, DRM data) is off',
    );
    expect(String(warn?.msg)).toContain('reinstall');
    expect(capture.entries().filter((e) => e.level === 'error')).toEqual([]);
  });
});

describe('the service URLs at start-up', () => {
  it('says that setup cannot save anything without DWM_BASE_URL or SERVICE_API_BASE_URL, and not when one is set', async () => {
    const { capture } = await start(TOKEN, fake.apiUrl);
    expect(capture.text()).toContain(
      'Neither DWM_BASE_URL nor SERVICE_API_BASE_URL is set: /dwm setup cannot save',
    );
    const { capture: withUrl } = await start(TOKEN, fake.apiUrl, { DWM_BASE_URL: 'https://wm.example.com' });
    expect(withUrl.text()).not.toContain('Neither DWM_BASE_URL');
  });
});

describe('a least-privilege install (SLACK_BOT_SCOPES=minimal)', () => {
  it('is expected: no warning when Slack granted the minimal set', async () => {
    const t = 'xoxb-start-minimal-0002';
    fake.addWorkspace({
      teamId: 'T0STARTMIN',
      botToken: t,
      scopes: botScopesOf({ slack: { scopeSet: 'minimal' } }),
    });
    const { capture } = await start(t, fake.apiUrl, { SLACK_BOT_SCOPES: 'minimal' });
    expect(capture.text()).not.toContain('did not grant');
    expect(capture.text()).toContain('Slack granted every scope the bot asks for');
  });
});

describe('scopeReport and describeSlackFailure', () => {
  it('a least-privilege install (no history scopes) is not essential; without chat:write it is', () => {
    const min = scopeReport(['commands', 'chat:write'], ['commands', 'chat:write', 'channels:history']);
    expect(min).toMatchObject({ missing: ['channels:history'], essential: false });
    expect(min.off[0]).toMatch(/^channels:history: finding a notification again after a crash/);
    expect(scopeReport(['commands'], ['commands', 'chat:write']).essential).toBe(true);
  });

  it('an app-level token refused names SLACK_APP_TOKEN and connections:write', () => {
    const f = describeSlackFailure(
      { data: { error: 'invalid_auth' } },
      'SLACK_APP_TOKEN',
      'https://slack.com/api/',
    );
    expect(f.words).toMatch(/^Slack refused SLACK_APP_TOKEN \(invalid_auth\).*connections:write/);
  });
});
