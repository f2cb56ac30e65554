/**
 * OAuth distribution: install routes, the installation store, several workspaces isolated from
 * each other, and uninstall cleanup of one workspace only.
 */
import type { App, Installation } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { activeCredentials, retentionOf } from '../../../src/ops/retention.js';
import { createInstallationStore } from '../../../src/slack/installation-store.js';
import { runRetentionSweep } from '../../../src/slack/lifecycle.js';
import { botScopesOf } from '../../../src/slack/oauth.js';
import { OPTIONAL_SCOPES, SCOPE_FEATURES } from '../../../src/slack/startup-check.js';
import { SCOPE_FIX_FOR_INSTALLER } from '../../../src/slack/welcome.js';
import { startTestBot, type TestBot, testWorkspace } from '../../harness/index.js';

async function until<T>(fn: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A tiny command that posts in the channel it was invoked from, with the installation's token. */
function echoRegister(app: App): void {
  app.command('/dwm', async ({ ack, client, command }) => {
    await ack();
    try {
      await client.chat.postMessage({ channel: command.channel_id, text: `echo ${command.text}` });
    } catch {
      // The fake's refusal is what the test checks.
    }
  });
}

describe('OAuth distribution with two workspaces', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ workspaces: 2, register: (app) => echoRegister(app) });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('redirects the install path to the Slack authorize URL with client id, scopes and a state', async () => {
    const r = await bot.get('/slack/install');
    expect(r.status).toBe(302);
    const location = new URL(r.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${bot.fake.url}/oauth/v2/authorize`);
    expect(location.searchParams.get('client_id')).toBe(bot.config.slack.clientId);
    expect(location.searchParams.get('scope')).toContain('commands');
    expect(location.searchParams.get('state')).toMatch(/.{10,}/);
    expect(r.headers.get('set-cookie')).toContain('slack-app-oauth-state=');
  });

  it('completes an install on the redirect route and stores the installation (encrypted)', async () => {
    const { spec, ...ws } = testWorkspace(7);
    bot.fake.addWorkspace(spec);
    const install = await bot.get('/slack/install');
    const state = new URL(install.headers.get('location')!).searchParams.get('state')!;
    const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0]!;
    const code = bot.fake.oauthCode({ teamId: ws.teamId, userId: ws.admin });
    const r = await bot.get(
      `/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`,
      {
        cookie,
      },
    );
    expect(r.status).toBe(200);
    expect(bot.fake.calls('oauth.v2.access').at(-1)?.ok).toBe(true);
    const saved = (await bot.store.installations.get(ws.teamId)) as {
      bot?: { token?: string; userId?: string };
    };
    expect(saved?.bot?.token).toBe(ws.botToken);
    expect(saved?.bot?.userId).toBe(ws.botUserId);
  });

  it('installs end to end through the (fake) Slack authorize page, as a browser would', async () => {
    const { spec, ...ws } = testWorkspace(10);
    bot.fake.addWorkspace(spec);
    bot.fake.oauthRedirectUri = `${bot.url}/slack/oauth_redirect`;
    const install = await bot.get('/slack/install');
    const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0]!;
    const authorize = new URL(install.headers.get('location')!);
    authorize.searchParams.set('team', ws.teamId);
    const approved = await fetch(authorize, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const callback = new URL(approved.headers.get('location')!);
    expect(callback.pathname).toBe('/slack/oauth_redirect');
    const done = await bot.get(`${callback.pathname}${callback.search}`, { cookie });
    expect(done.status).toBe(200);
    const saved = (await bot.store.installations.get(ws.teamId)) as {
      bot?: { token?: string };
      user?: { id?: string };
    };
    expect(saved?.bot?.token).toBe(ws.botToken);
    // The app's first words: the installer gets one message saying what to do next.
    const welcome = await bot.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === saved?.user?.id,
      5000,
    );
    expect(String(welcome.args.text)).toMatch(/DRM ChatOps is installed\.\* Next: run `\/dwm setup`/);
    // Slack granted every scope the install page asked for: nothing is said about scopes.
    expect(String(welcome.args.text)).not.toContain('did not grant');
  });

  /** Install `ws` through the redirect route with Slack granting `scopes`; the welcome DM's text. */
  async function installGranting(ws: ReturnType<typeof testWorkspace>, scopes: string[]): Promise<string> {
    const install = await bot.get('/slack/install');
    const state = new URL(install.headers.get('location')!).searchParams.get('state')!;
    const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0]!;
    const code = bot.fake.oauthCode({ teamId: ws.teamId, userId: ws.admin, scope: scopes.join(',') });
    const r = await bot.get(
      `/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`,
      { cookie },
    );
    expect(r.status).toBe(200);
    const dm = await bot.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.ok && c.args.channel === ws.admin,
      5000,
    );
    return String(dm.args.text);
  }

  it('an install Slack granted fewer scopes: the welcome says which features are off and what to do', async () => {
    const ws = testWorkspace(11);
    bot.fake.addWorkspace(ws.spec);
    const granted = botScopesOf(bot.config).filter(
      (x) => !['files:read', 'files:write', 'users:read'].includes(x),
    );
    const text = await installGranting(ws, granted);
    expect(text).toMatch(/DRM ChatOps is installed\.\* Next: run `\/dwm setup`/);
    expect(text).toContain('Slack did not grant 3 scopes the bot asks for, so these are off:');
    expect(text).toContain(`files:write: ${SCOPE_FEATURES['files:write']} is off`);
    expect(text).toContain(`users:read: ${SCOPE_FEATURES['users:read']} is off`);
    expect(text).toContain(SCOPE_FIX_FOR_INSTALLER);
    // The operator's log says it too, with the workspace.
    const warn = bot.logs.lines().find((l) => l.includes('did not grant') && l.includes(ws.teamId));
    expect(warn).toBeDefined();
  });

  it('a least-privilege install (no history or DM-read scopes): the welcome says what is off, as a choice', async () => {
    const ws = testWorkspace(12);
    bot.fake.addWorkspace(ws.spec);
    const granted = botScopesOf(bot.config).filter((x) => !OPTIONAL_SCOPES.has(x));
    const text = await installGranting(ws, granted);
    expect(text).toContain('the bot asks for, so these are off:');
    expect(text).toContain(`im:read: ${SCOPE_FEATURES['im:read']} is off`);
    expect(text).toContain('(A least-privilege install: fine if intended.)');
    expect(text).not.toContain(SCOPE_FIX_FOR_INSTALLER);
  });

  it('an install in a workspace whose setup is still saved is not told to run /dwm setup again', async () => {
    const { spec, ...ws } = testWorkspace(11);
    bot.fake.addWorkspace(spec);
    const creds = bot.config.envCredentials ?? {
      siteIds: ['DEMO'],
      defaultSiteId: 'DEMO',
      service: {
        accountId: 'a',
        accountSeq: '1',
        secretKey: 's'.repeat(32),
        baseUrl: 'http://127.0.0.1:9/svc',
      },
    };
    await bot.store.credentials.put(ws.teamId, {
      credentials: creds,
      verifiedAt: new Date().toISOString(),
      savedBy: ws.admin,
    });
    const seq = bot.fake.lastSeq();
    const install = await bot.get('/slack/install');
    const state = new URL(install.headers.get('location')!).searchParams.get('state')!;
    const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0]!;
    const code = bot.fake.oauthCode({ teamId: ws.teamId, userId: ws.admin });
    const r = await bot.get(
      `/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`,
      { cookie },
    );
    expect(r.status).toBe(200);
    // This install's welcome (earlier tests of the file installed for the same admin).
    const welcome = await bot.fake.waitFor(
      (c) => c.seq > seq && c.method === 'chat.postMessage' && c.ok && c.args.channel === ws.admin,
      5000,
    );
    expect(String(welcome.args.text)).toContain('already connected');
    expect(String(welcome.args.text)).not.toContain('Next: run `/dwm setup`');
  });

  it('refuses a state that was already used, even with its cookie and a new code', async () => {
    const { spec, ...ws } = testWorkspace(9);
    bot.fake.addWorkspace(spec);
    const install = await bot.get('/slack/install');
    const state = new URL(install.headers.get('location')!).searchParams.get('state')!;
    const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0]!;
    const callback = (code: string) =>
      bot.get(`/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`, {
        cookie,
      });
    const first = await callback(bot.fake.oauthCode({ teamId: ws.teamId, userId: ws.admin }));
    expect(first.status).toBe(200);
    const exchanges = bot.fake.calls('oauth.v2.access').length;
    await bot.store.installations.delete(ws.teamId);
    const replay = await callback(bot.fake.oauthCode({ teamId: ws.teamId, userId: ws.admin }));
    expect(replay.status).toBeGreaterThanOrEqual(400);
    // The replayed code was never exchanged and nothing was installed.
    expect(bot.fake.calls('oauth.v2.access').length).toBe(exchanges);
    expect(await bot.store.installations.get(ws.teamId)).toBeUndefined();
  });

  it('refuses the redirect without the state cookie', async () => {
    const { spec, ...ws } = testWorkspace(8);
    bot.fake.addWorkspace(spec);
    const install = await bot.get('/slack/install');
    const state = new URL(install.headers.get('location')!).searchParams.get('state')!;
    const code = bot.fake.oauthCode({ teamId: ws.teamId, userId: ws.admin });
    const r = await bot.get(
      `/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`,
    );
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(await bot.store.installations.get(ws.teamId)).toBeUndefined();
  });

  it("acts in each workspace with that workspace's own token", async () => {
    const [a, b] = bot.workspaces as [typeof bot.ws, typeof bot.ws];
    await bot.command('from-a', { team: a });
    await bot.command('from-b', { team: b });
    const ca = await bot.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.args.text === 'echo from-a',
    );
    const cb = await bot.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.args.text === 'echo from-b',
    );
    expect(ca).toMatchObject({ teamId: a.teamId, ok: true });
    expect(cb).toMatchObject({ teamId: b.teamId, ok: true });
    expect(bot.fake.messages(a.channel).map((m) => m.text)).toContain('echo from-a');
    expect(bot.fake.messages(b.channel).map((m) => m.text)).toContain('echo from-b');
  });

  it("a request from workspace A naming B's channel cannot post there (the fake enforces it)", async () => {
    const [a, b] = bot.workspaces as [typeof bot.ws, typeof bot.ws];
    await bot.command('cross', { team: a, channel: b.channel });
    const call = await bot.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.args.text === 'echo cross',
    );
    expect(call).toMatchObject({ teamId: a.teamId, ok: false, error: 'channel_not_found' });
    expect(bot.fake.messages(b.channel).map((m) => m.text)).not.toContain('echo cross');
  });

  it("a token of A directly cannot read B's users or post in B's channels", async () => {
    const [a, b] = bot.workspaces as [typeof bot.ws, typeof bot.ws];
    const client = new WebClient(a.botToken, { slackApiUrl: bot.fake.apiUrl, retryConfig: { retries: 0 } });
    await expect(client.chat.postMessage({ channel: b.channel, text: 'x' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });
    await expect(client.users.info({ user: b.admin })).rejects.toMatchObject({
      data: { error: 'user_not_found' },
    });
  });

  it('tells the user when their workspace has no installation, and runs nothing', async () => {
    const { spec, ...ws } = testWorkspace(9);
    bot.fake.addWorkspace(spec);
    const r = await bot.command('ghost', { team: ws });
    expect(r.status).toBe(200);
    const resp = await bot.fake.waitFor((c) => c.method === 'response_url' && c.teamId === ws.teamId);
    expect(String(resp.args.text)).toMatch(/not installed in this workspace/);
    expect(bot.fake.calls('chat.postMessage').filter((c) => c.args.text === 'echo ghost')).toEqual([]);
  });

  it('/readyz checks Slack with api.test (no token) under OAuth', async () => {
    const r = await bot.get('/readyz');
    expect(r.status).toBe(200);
    expect(bot.fake.calls('api.test').length).toBe(1);
  });

  it('logs carry no secret after the session', () => {
    expect(bot.logs.lines().length).toBeGreaterThan(0);
    expect(bot.logs.leaked(bot.secrets())).toEqual([]);
  });
});

describe('uninstall: grace period, then deletion', () => {
  let bot: TestBot;
  let t = Date.now();
  const DAY = 86_400_000;
  beforeAll(async () => {
    bot = await startTestBot({ workspaces: 3, register: () => undefined, now: () => t });
  });
  afterAll(async () => {
    await bot?.close();
  });
  // Signed requests are checked against the bot's clock: each test starts at the real time.
  beforeEach(() => {
    t = Date.now();
  });

  async function seed(key: string) {
    await bot.store.settings.put(key, { adminUserIds: ['U1'], auditChannelId: 'C1' });
    await bot.store.audit.append(key, { userId: 'U1', action: 'setup.save', detail: 'saved', result: 'ok' });
    await bot.store.docs<{ n: number }>('reports').put(key, 'r1', { n: 1 });
    await bot.store.docs<{ n: number }>('watches').put(key, 'w1', { n: 2 });
  }

  async function snapshot(key: string) {
    return {
      installation: await bot.store.installations.get(key),
      credentials: await bot.store.credentials.get(key),
      settings: await bot.store.settings.get(key),
      audit: await bot.store.audit.list(key),
      reports: await bot.store.docs('reports').list(key),
      watches: await bot.store.docs('watches').list(key),
    };
  }
  const uninstalled = async (key: string) => ((await retentionOf(bot.store, key)) ? true : undefined);

  it("app_uninstalled keeps that workspace's data for the grace period (nothing runs), then deletes all but the audit, then the audit", async () => {
    const [a, b] = bot.workspaces as [typeof bot.ws, typeof bot.ws];
    await seed(a.teamId);
    await seed(b.teamId);
    const aBefore = await snapshot(a.teamId);
    const bBefore = await snapshot(b.teamId);
    expect(aBefore.credentials).toBeDefined();

    const r = await bot.event({ type: 'app_uninstalled' }, { team: a });
    expect(r.status).toBe(200);
    await until(() => uninstalled(a.teamId));
    // The dead installation goes at once; the rest is kept, but background work gets no credentials.
    const aGrace = await snapshot(a.teamId);
    expect(aGrace.installation).toBeUndefined();
    expect({ ...aGrace, installation: aBefore.installation }).toEqual(aBefore);
    expect(await activeCredentials(bot.deps, a.teamId)).toBeUndefined();
    expect(await activeCredentials(bot.deps, b.teamId)).toBeDefined();

    // Within the grace period the sweep deletes nothing.
    t += 2 * DAY;
    expect((await runRetentionSweep(bot.deps))?.deleted).toEqual([]);
    expect((await snapshot(a.teamId)).credentials).toBeDefined();

    // After it: everything but the audit entries goes.
    t += 2 * DAY;
    expect((await runRetentionSweep(bot.deps))?.deleted).toEqual([a.teamId]);
    const aAfter = await snapshot(a.teamId);
    expect(aAfter.credentials).toBeUndefined();
    expect(aAfter.settings.adminUserIds).toEqual([]);
    expect(aAfter.reports).toEqual([]);
    expect(aAfter.watches).toEqual([]);
    expect(aAfter.audit.map((e) => e.action)).toEqual(['setup.save']);

    // The audit entries are kept AUDIT_RETENTION_DAYS (90) more.
    t += 89 * DAY;
    expect((await runRetentionSweep(bot.deps))?.auditDeleted).toEqual([]);
    t += 2 * DAY;
    expect((await runRetentionSweep(bot.deps))?.auditDeleted).toEqual([a.teamId]);
    expect((await snapshot(a.teamId)).audit).toEqual([]);
    expect(await retentionOf(bot.store, a.teamId)).toBeUndefined();

    expect(await snapshot(b.teamId)).toEqual(bBefore);
    expect(bot.logs.text()).toContain('workspace uninstalled');
  });

  it('a reinstall within the grace period restores the workspace: nothing is deleted', async () => {
    const c = bot.workspaces[2]!;
    await seed(c.teamId);
    const before = await snapshot(c.teamId);
    await bot.event({ type: 'app_uninstalled' }, { team: c });
    await until(() => uninstalled(c.teamId));
    // Reinstalled: Bolt's OAuth callback saves a new installation.
    await createInstallationStore(bot.store, bot.deps.logger).storeInstallation(
      before.installation as Installation,
    );
    expect(await retentionOf(bot.store, c.teamId)).toBeUndefined();
    t += 30 * DAY;
    await runRetentionSweep(bot.deps);
    expect(await snapshot(c.teamId)).toEqual(before);
    expect(await activeCredentials(bot.deps, c.teamId)).toBeDefined();
  });

  it('a deletion the store refuses is retried at the next sweep until it succeeds', async () => {
    const b = bot.workspaces[1]!;
    await bot.event({ type: 'app_uninstalled' }, { team: b });
    await until(() => uninstalled(b.teamId));
    t += 4 * DAY;
    const purge = bot.store.purgeWorkspace;
    let fail = 2;
    const deps = {
      ...bot.deps,
      store: Object.assign(Object.create(bot.store), {
        purgeWorkspace: (k: string, o?: { keepAudit?: boolean }) =>
          fail-- > 0 ? Promise.reject(new Error('store down')) : purge.call(bot.store, k, o),
      }),
    };
    expect((await runRetentionSweep(deps))?.failed).toEqual([b.teamId]);
    expect((await retentionOf(bot.store, b.teamId))?.attempts).toBe(1);
    expect((await runRetentionSweep(deps))?.failed).toEqual([b.teamId]);
    expect(await bot.store.credentials.get(b.teamId)).toBeDefined();
    expect((await runRetentionSweep(deps))?.deleted).toEqual([b.teamId]);
    expect(await bot.store.credentials.get(b.teamId)).toBeUndefined();
  });

  it('tokens_revoked for user tokens only keeps everything; for the bot token starts the grace period', async () => {
    const { spec, ...d } = testWorkspace(5);
    bot.fake.addWorkspace(spec);
    await bot.store.installations.save(d.teamId, {
      team: { id: d.teamId },
      bot: { token: 'xoxb-5-revoked-test', userId: d.botUserId, id: d.botId },
      isEnterpriseInstall: false,
    });
    await bot.event({ type: 'tokens_revoked', tokens: { oauth: ['U1'], bot: [] } }, { team: d });
    await new Promise((res) => setTimeout(res, 150));
    expect(await bot.store.installations.get(d.teamId)).toBeDefined();
    expect(await retentionOf(bot.store, d.teamId)).toBeUndefined();

    await bot.event({ type: 'tokens_revoked', tokens: { bot: [d.botUserId] } }, { team: d });
    await until(() => uninstalled(d.teamId));
    expect(await bot.store.installations.get(d.teamId)).toBeUndefined();
  });
});
