/**
 * Socket Mode end to end, on loopback: the real bot (startBot, SLACK_APP_TOKEN set) asks the fake
 * Slack's apps.connections.open for a WebSocket URL, connects to a local stand-in of Slack's
 * Socket Mode server, acknowledges a slash command envelope within Slack's 3 s, answers through
 * the response_url, and /readyz follows the connection (down before hello and after a drop, up
 * again after the reconnection).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../dev/emulator/index.js';
import { FakeSlack } from '../../../dev/fakeslack/index.js';
import { type RunningBot, startBot } from '../../../src/main.js';
import { type FakeSocketMode, startFakeSocketMode } from '../../harness/socket-mode.js';

const TEAM = 'T0SOCKET';
const USER = 'U0SOCKUSER';
const CHANNEL = 'C0SOCKCHAN';
const BOT_TOKEN = `xoxb-socket-${randomBytes(6).toString('hex')}`;
const APP_TOKEN = `xapp-1-A0FAKEAPP-${randomBytes(6).toString('hex')}`;

let fake: FakeSlack;
let sm: FakeSocketMode;
let emu: Awaited<ReturnType<typeof startEmulator>>;
let bot: RunningBot;

async function waitFor(
  cond: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const socketCheck = async () => (await bot.handle.readiness()).checks.find((c) => c.name === 'socket');

beforeAll(async () => {
  fake = await FakeSlack.start();
  fake.addWorkspace({
    teamId: TEAM,
    botToken: BOT_TOKEN,
    botId: 'B0SOCK',
    botUserId: 'U0SOCKBOT',
    users: [{ id: USER, name: 'sam' }],
    channels: [{ id: CHANNEL, name: 'media' }],
  });
  sm = await startFakeSocketMode();
  fake.setSocketModeUrl(sm.url);
  emu = await startEmulator();
  bot = await startBot({
    watch: false,
    resumeRegistrations: false,
    env: {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: APP_TOKEN,
      SLACK_BOT_ID: 'B0SOCK',
      SLACK_BOT_USER_ID: 'U0SOCKBOT',
      SLACK_API_URL: fake.apiUrl,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      STORE_URL: 'memory://',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DWM_SITE_IDS: emu.demo.siteIds.join(','),
      DWM_DEFAULT_SITE: emu.demo.defaultSiteId,
      DWM_BASE_URL: emu.wmBaseUrl,
      DWM_ACCOUNT_ID: emu.demo.watermarking.accountId,
      DWM_ACCESS_KEY: emu.demo.watermarking.accessKey,
    },
  });
}, 30_000);

afterAll(async () => {
  await bot?.shutdown('test end');
  await sm?.close();
  await emu?.close();
  await fake?.close();
});

describe('Socket Mode (loopback)', () => {
  it('connects with the app token through apps.connections.open and is ready after hello', async () => {
    expect(bot.config.mode).toBe('socket');
    await sm.waitOpened(1);
    const open = fake.calls('apps.connections.open');
    expect(open.length).toBeGreaterThanOrEqual(1);
    expect(open.every((c) => c.ok)).toBe(true);
    await waitFor(async () => (await socketCheck())?.ok === true, 'socket readiness');
    const r = await bot.handle.readiness();
    expect(r.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['store', 'slack', 'socket']));
    expect(r.ready).toBe(true);
  });

  it('acks a slash command envelope and answers through the response_url', async () => {
    const responseUrl = fake.responseUrl(TEAM, { channel: CHANNEL, userId: USER });
    const ack = await sm.send('slash_commands', {
      token: 'deprecated',
      team_id: TEAM,
      team_domain: 'socket',
      channel_id: CHANNEL,
      channel_name: 'media',
      user_id: USER,
      user_name: 'sam',
      command: '/dwm',
      text: 'jobs',
      api_app_id: 'A0FAKEAPP',
      is_enterprise_install: 'false',
      response_url: responseUrl,
      trigger_id: fake.issueTrigger(TEAM, USER),
    });
    expect(ack.envelope_id).toBeTruthy();
    const reply = await fake.waitFor((c) => c.method === 'response_url' && c.ok, 10_000);
    // The job list of the emulator's default site, not an error.
    expect(JSON.stringify(reply.args)).toContain('DEMO');
    expect(JSON.stringify(reply.args)).not.toContain(':x:');
  });

  it('an events_api envelope Slack redelivers (retry_attempt > 0) is handled once', async () => {
    const event = {
      token: 'deprecated',
      team_id: TEAM,
      api_app_id: 'A0FAKEAPP',
      type: 'event_callback',
      event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: TEAM, user_id: 'U0SOCKBOT', is_bot: true, is_enterprise_install: false }],
      event: { type: 'app_home_opened', user: USER, channel: 'D0SOCK', tab: 'home' },
    };
    const publishes = () => fake.calls('views.publish').filter((c) => c.ok).length;
    /** Wait until no new views.publish came for 600 ms; the count then. */
    const settled = async () => {
      let n = publishes();
      for (let i = 0; i < 50; i++) {
        await new Promise((r) => setTimeout(r, 600));
        if (publishes() === n) return n;
        n = publishes();
      }
      return n;
    };
    const before = publishes();
    await sm.send('events_api', event);
    const once = await settled();
    expect(once).toBeGreaterThan(before);
    const again = await sm.send('events_api', event, 5000, 1);
    expect(again.envelope_id).toBeTruthy();
    expect(await settled()).toBe(once);
    // Another event is handled as usual.
    await sm.send('events_api', { ...event, event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}` });
    expect(await settled()).toBeGreaterThan(once);
  });

  it('serves the health routes on HOST only (as in HTTP mode), on the port it reports', async () => {
    const srv = (bot.handle.app as unknown as { receiver: { httpServer?: import('node:http').Server } })
      .receiver.httpServer;
    const addr = srv?.address() as import('node:net').AddressInfo;
    expect(addr.address).toBe('127.0.0.1');
    expect(bot.port).toBe(addr.port);
    expect((await fetch(`http://127.0.0.1:${bot.port}/healthz`)).status).toBe(200);
  });

  it("Slack's routine refresh: the client closes, reconnects through apps.connections.open and is ready again", async () => {
    const before = sm.opened();
    sm.refresh();
    await sm.waitOpened(before + 1, 20_000);
    await waitFor(async () => (await socketCheck())?.ok === true, 'ready after the refresh', 20_000);
  }, 30_000);

  it('a dropped connection makes it not ready, and the client reconnects by itself', async () => {
    const before = sm.opened();
    sm.drop();
    await waitFor(async () => (await socketCheck())?.ok === false, 'not ready after the drop');
    expect((await bot.handle.readiness()).ready).toBe(false);
    await sm.waitOpened(before + 1, 20_000);
    await waitFor(async () => (await socketCheck())?.ok === true, 'ready after the reconnection', 20_000);
  }, 30_000);

  it('stopping while a reconnection is under way leaves no unhandled rejection (the last test: it stops the bot)', async () => {
    const rejections: unknown[] = [];
    const onRejection = (r: unknown) => rejections.push(r ?? 'undefined');
    process.on('unhandledRejection', onRejection);
    try {
      const before = sm.opened();
      sm.refresh();
      // The new connection is open; its hello is not handled yet when the stop begins.
      await sm.waitOpened(before + 1, 20_000);
      await bot.shutdown('test: stop during a reconnection');
      await new Promise((r) => setTimeout(r, 300));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  }, 30_000);
});
