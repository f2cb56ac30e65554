/**
 * The offline demo's stack, all in this process and on 127.0.0.1: the service emulator, the fake
 * Slack Web API, an in-memory store, the real bot (Bolt, HTTP mode) and its job watcher, plus a
 * Slack stand-in that sends signed requests exactly as Slack does (slash commands, block actions,
 * view submissions, events). Every secret is generated here at start; nothing touches the network.
 *
 * This is the same wiring as the test harness (test/harness/), reduced to what the demo needs, so
 * `npm run demo` has no dependency on test code.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createApi } from '../../src/api/index.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createLogger, type Logger, setLogger } from '../../src/log.js';
import { createSlackApp, type SlackAppHandle } from '../../src/slack/app.js';
import type { AppDeps } from '../../src/slack/deps.js';
import { createWatchRuntime, type WatchRuntime } from '../../src/slack/watch-runtime.js';
import { createStore } from '../../src/store/index.js';
import { startEmulator } from '../emulator/index.js';
import type { EmulatorHandle } from '../emulator/types.js';
import { type FakeCall, FakeSlack } from '../fakeslack/index.js';

type Obj = Record<string, unknown>;

export interface DemoWorkspace {
  teamId: string;
  teamDomain: string;
  botToken: string;
  botId: string;
  botUserId: string;
  admin: string;
  member: string;
  channel: string;
}

export interface DemoStack {
  url: string;
  config: Config;
  deps: AppDeps;
  fake: FakeSlack;
  emulator: EmulatorHandle;
  handle: SlackAppHandle;
  watch: WatchRuntime;
  ws: DemoWorkspace;
  /** Log lines (JSON) written by the bot during the session. */
  logLines(): string[];
  /** Every secret generated for the session (for the "no secret leaked" check). */
  secrets(): string[];
  /** Highest call sequence number recorded by the fake Slack so far. */
  lastSeq(): number;
  command(text: string, o?: { user?: string; command?: '/dwm' | '/drm' }): Promise<{ status: number }>;
  action(o: {
    actionId: string;
    user?: string;
    value?: string;
    viewId?: string;
  }): Promise<{ status: number }>;
  submitView(o: {
    user?: string;
    viewId?: string;
    values?: Obj;
  }): Promise<{ status: number; json?: unknown }>;
  event(event: Obj): Promise<{ status: number }>;
  waitFor(pred: (c: FakeCall) => boolean, timeoutMs?: number): Promise<FakeCall>;
  close(): Promise<void>;
}

function signature(secret: string, ts: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
}

export async function startDemoStack(opts: { logLevel?: string } = {}): Promise<DemoStack> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  try {
    const lines: string[] = [];
    const logger: Logger = createLogger({
      level: opts.logLevel ?? 'info',
      destination: { write: (s: string) => void lines.push(s) },
    });
    setLogger(logger);

    const signingSecret = randomBytes(16).toString('hex');
    const encryptionKey = randomBytes(32).toString('base64');
    const ws: DemoWorkspace = {
      teamId: 'T0DEMO001',
      teamDomain: 'acme-films',
      botToken: `xoxb-2000-${randomBytes(6).toString('hex')}-${randomBytes(12).toString('hex')}`,
      botId: 'B0DEMOBOT',
      botUserId: 'U0DEMOBOT',
      admin: 'U0ADMIN01',
      member: 'U0MEMBER1',
      channel: 'C0RELEASES',
    };

    const fake = await FakeSlack.start();
    cleanups.push(() => fake.close());
    fake.addWorkspace({
      teamId: ws.teamId,
      teamName: 'Acme Films',
      domain: ws.teamDomain,
      botToken: ws.botToken,
      botId: ws.botId,
      botUserId: ws.botUserId,
      users: [
        { id: ws.admin, name: 'dana.admin', tz: 'Asia/Seoul', isAdmin: true },
        { id: ws.member, name: 'sam.ops', tz: 'America/New_York' },
      ],
      channels: [{ id: ws.channel, name: 'releases', botIsMember: true }],
    });

    const emulator = await startEmulator();
    cleanups.push(() => emulator.close());

    const config = loadConfig({
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_BOT_TOKEN: ws.botToken,
      SLACK_BOT_ID: ws.botId,
      SLACK_BOT_USER_ID: ws.botUserId,
      SLACK_API_URL: fake.apiUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      STORE_URL: 'memory://',
      ENCRYPTION_KEY: encryptionKey,
      LOG_LEVEL: opts.logLevel ?? 'info',
      DWM_BASE_URL: emulator.wmBaseUrl,
      SERVICE_API_BASE_URL: emulator.serviceBaseUrl,
    });
    const store = await createStore({
      url: config.storeUrl,
      encryptionKey: config.encryptionKey,
      previousEncryptionKeys: config.previousEncryptionKeys,
    });
    cleanups.push(() => store.close());
    const api = createApi({
      logger,
      claims: {
        subject: config.serviceJwt.sub,
        audience: config.serviceJwt.aud,
        issuer: config.serviceJwt.iss,
      },
    });
    cleanups.push(() => api.close());
    const deps: AppDeps = { config, store, api, logger, now: Date.now };

    const handle = createSlackApp(deps, { retryConfig: { retries: 0 } });
    const { port } = await handle.start();
    cleanups.push(() => handle.stop());
    const url = `http://127.0.0.1:${port}`;

    // The watcher is driven step by step by the demo (pollOnce), not by its timer.
    const watch = createWatchRuntime(deps, handle.app, { watcher: { jitter: 0, channelIntervalMs: 1100 } });
    cleanups.push(() => watch.stop());

    async function send(body: string, contentType: string) {
      const ts = Math.floor(Date.now() / 1000);
      const res = await fetch(`${url}/slack/events`, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          'x-slack-request-timestamp': String(ts),
          'x-slack-signature': signature(signingSecret, ts, body),
        },
        body,
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, ...(json !== undefined ? { json } : {}) };
    }
    const sendPayload = (payload: Obj) =>
      send(
        new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
        'application/x-www-form-urlencoded',
      );
    const userObj = (id: string) => ({
      id,
      username: id.toLowerCase(),
      name: id.toLowerCase(),
      team_id: ws.teamId,
    });
    const team = { id: ws.teamId, domain: ws.teamDomain };

    const stack: DemoStack = {
      url,
      config,
      deps,
      fake,
      emulator,
      handle,
      watch,
      ws,
      logLines: () => [...lines],
      secrets: () => [
        signingSecret,
        encryptionKey,
        ws.botToken,
        emulator.demo.watermarking.accessKey,
        emulator.demo.service.secretKey,
      ],
      lastSeq: () => fake.calls().reduce((m, c) => Math.max(m, c.seq), 0),

      command(text, o = {}) {
        const user = o.user ?? ws.member;
        const form = new URLSearchParams({
          token: 'unused',
          team_id: ws.teamId,
          team_domain: ws.teamDomain,
          channel_id: ws.channel,
          channel_name: 'releases',
          user_id: user,
          user_name: user.toLowerCase(),
          command: o.command ?? '/dwm',
          text,
          api_app_id: 'A0DEMOAPP',
          is_enterprise_install: 'false',
          response_url: fake.responseUrl(ws.teamId, { channel: ws.channel, userId: user }),
          trigger_id: fake.issueTrigger(ws.teamId, user),
        });
        return send(form.toString(), 'application/x-www-form-urlencoded');
      },

      action(o) {
        const user = o.user ?? ws.member;
        const view = o.viewId ? fake.view(o.viewId) : undefined;
        const actionTs = (Date.now() / 1000).toFixed(6);
        return sendPayload({
          type: 'block_actions',
          user: userObj(user),
          api_app_id: 'A0DEMOAPP',
          token: 'unused',
          trigger_id: fake.issueTrigger(ws.teamId, user),
          team,
          enterprise: null,
          is_enterprise_install: false,
          actions: [
            {
              action_id: o.actionId,
              block_id: 'b0',
              type: 'button',
              action_ts: actionTs,
              ...(o.value !== undefined ? { value: o.value } : {}),
            },
          ],
          state: { values: {} },
          ...(view
            ? {
                container: { type: 'view', view_id: view.id },
                view: {
                  id: view.id,
                  type: view.type,
                  team_id: ws.teamId,
                  blocks: view.blocks,
                  private_metadata: view.privateMetadata ?? '',
                  callback_id: view.callbackId ?? '',
                  state: { values: {} },
                  hash: view.hash,
                  app_id: 'A0DEMOAPP',
                  bot_id: ws.botId,
                },
              }
            : {
                container: {
                  type: 'message',
                  message_ts: actionTs,
                  channel_id: ws.channel,
                  is_ephemeral: true,
                },
                channel: { id: ws.channel, name: 'releases' },
                response_url: fake.responseUrl(ws.teamId, { channel: ws.channel, userId: user }),
              }),
        });
      },

      submitView(o) {
        const user = o.user ?? ws.member;
        const v = o.viewId ? fake.view(o.viewId) : fake.lastView(user, 'modal');
        if (!v) throw new Error(`no modal is open for ${user}`);
        fake.closeView(v.id);
        return sendPayload({
          type: 'view_submission',
          team,
          user: userObj(user),
          api_app_id: 'A0DEMOAPP',
          token: 'unused',
          trigger_id: fake.issueTrigger(ws.teamId, user),
          view: {
            id: v.id,
            team_id: ws.teamId,
            type: v.type,
            blocks: v.blocks,
            private_metadata: v.privateMetadata ?? '',
            callback_id: v.callbackId ?? '',
            state: { values: o.values ?? {} },
            hash: v.hash,
            title: v.view.title,
            previous_view_id: v.previousViewId,
            root_view_id: v.rootViewId,
            app_id: 'A0DEMOAPP',
            bot_id: ws.botId,
          },
          response_urls: [],
          is_enterprise_install: false,
          enterprise: null,
        });
      },

      event(event) {
        return send(
          JSON.stringify({
            token: 'unused',
            team_id: ws.teamId,
            api_app_id: 'A0DEMOAPP',
            event: { event_ts: (Date.now() / 1000).toFixed(6), ...event },
            type: 'event_callback',
            event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
            event_time: Math.floor(Date.now() / 1000),
            authorizations: [
              { team_id: ws.teamId, user_id: ws.botUserId, is_bot: true, is_enterprise_install: false },
            ],
          }),
          'application/json',
        );
      },

      waitFor: (pred, timeoutMs = 10_000) => fake.waitFor(pred, timeoutMs),
      close: cleanup,
    };
    return stack;
  } catch (e) {
    await cleanup();
    throw e;
  }
}
