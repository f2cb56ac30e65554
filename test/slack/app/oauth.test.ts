/**
 * OAuth distribution: install routes, the installation store, several workspaces isolated from
 * each other, and uninstall cleanup of one workspace only.
 */
import type { App } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('uninstall cleanup', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ workspaces: 2, register: () => undefined });
  });
  afterAll(async () => {
    await bot?.close();
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

  it("app_uninstalled removes that workspace's data and only that", async () => {
    const [a, b] = bot.workspaces as [typeof bot.ws, typeof bot.ws];
    await seed(a.teamId);
    await seed(b.teamId);
    const bBefore = await snapshot(b.teamId);
    expect(bBefore.installation).toBeDefined();
    expect(bBefore.credentials).toBeDefined();

    const r = await bot.event({ type: 'app_uninstalled' }, { team: a });
    expect(r.status).toBe(200);
    await until(async () => ((await bot.store.installations.get(a.teamId)) === undefined ? true : undefined));
    const aAfter = await snapshot(a.teamId);
    expect(aAfter.credentials).toBeUndefined();
    expect(aAfter.settings.adminUserIds).toEqual([]);
    expect(aAfter.settings.auditChannelId).toBeUndefined();
    expect(aAfter.audit).toEqual([]);
    expect(aAfter.reports).toEqual([]);
    expect(aAfter.watches).toEqual([]);

    expect(await snapshot(b.teamId)).toEqual(bBefore);
    expect(bot.logs.text()).toContain('workspace data removed after uninstall');
  });

  it('tokens_revoked for user tokens only keeps the data; for the bot token removes it', async () => {
    const b = bot.workspaces[1]!;
    await bot.event({ type: 'tokens_revoked', tokens: { oauth: ['U1'], bot: [] } }, { team: b });
    await new Promise((res) => setTimeout(res, 150));
    expect(await bot.store.installations.get(b.teamId)).toBeDefined();

    await bot.event({ type: 'tokens_revoked', tokens: { bot: [b.botUserId] } }, { team: b });
    await until(async () => ((await bot.store.installations.get(b.teamId)) === undefined ? true : undefined));
    expect(await bot.store.credentials.get(b.teamId)).toBeUndefined();
    expect(await bot.store.docs('reports').list(b.teamId)).toEqual([]);
  });
});
