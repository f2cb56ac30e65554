/**
 * The one bot stack builder of the repository: the REAL Bolt app in HTTP mode on 127.0.0.1
 * (port 0), the fake Slack, the service emulator and a store, wired like production, plus a Slack
 * stand-in that signs requests exactly as Slack signs them. The e2e tests use it through
 * test/harness/ (see its README), the offline demo through dev/demo/stack.ts, the fault suite and
 * the benchmarks through test/harness/ as well. It lives in dev/ (not test/) so that the demo
 * depends on no test file; like all of dev/ it is never built into dist/ or the image.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Installation } from '@slack/bolt';
import {
  loadFailureCodes,
  loadLicenseErrorCodes,
  setFailureCodes,
  setLicenseErrorCodes,
} from '../../src/api/error-codes.js';
import { type ApiOptions, createApi } from '../../src/api/index.js';
import type { WorkspaceCredentials } from '../../src/api/types.js';
import { type Config, type Env, loadConfig } from '../../src/config.js';
import { createLogger, type Logger, logger as processLogger, setLogger } from '../../src/log.js';
import { createSlackApp, type RegisterFn, type SlackAppHandle } from '../../src/slack/app.js';
import type { AppDeps } from '../../src/slack/deps.js';
import { BOT_SCOPES } from '../../src/slack/oauth.js';
import { createStore, runMigrations } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { WATCH_MIGRATIONS } from '../../src/watch/migrations.js';
import { startEmulator } from '../emulator/index.js';
import type { EmulatorHandle } from '../emulator/types.js';
import { FakeSlack, type FakeView, type FakeWorkspaceSpec, viewAckProblems } from '../fakeslack/index.js';
import { credentialsEnv, emulatorCredentials } from './credentials.js';

type Obj = Record<string, unknown>;

// -------------------------------------------------------------------------------------------------
// Options and results
// -------------------------------------------------------------------------------------------------

export interface TestWorkspace {
  teamId: string;
  teamDomain: string;
  enterpriseId?: string;
  botToken: string;
  botId: string;
  botUserId: string;
  /** A workspace admin (Slack is_admin), tz Asia/Seoul. */
  admin: string;
  /** A regular member, tz America/New_York. */
  member: string;
  /** A public channel the bot is in. */
  channel: string;
  /** A public channel the bot is NOT in. */
  channelWithoutBot: string;
}

/** A workspace of the stack: its ids for requests, and what the fake Slack knows of it. */
export type WorkspaceFixture = TestWorkspace & { spec: FakeWorkspaceSpec };

export interface StartTestBotOptions {
  /** Default 1. More than one implies OAuth distribution (installations in the store). */
  workspaces?: number;
  /**
   * The workspaces themselves (default `testWorkspace(i)` for i < `workspaces`); when given,
   * `workspaces` is their count. The demo passes its own named team, people and channels.
   */
  workspaceFixtures?: WorkspaceFixture[];
  /** Default 'single' for one workspace, 'oauth' for several. */
  distribution?: 'single' | 'oauth';
  /** Default 'memory'. 'redis' starts a private redis-server (./redis.ts; TEST_REDIS_URL wins). */
  store?: 'memory' | 'sqlite' | 'redis';
  /** An explicit STORE_URL (e.g. a Redis the test stops and starts); wins over `store`. */
  storeUrl?: string;
  /**
   * Service credentials: 'env' (single only: DWM_* / SERVICE_API_* variables), 'store' (saved in
   * the vault per workspace), 'none'. Default 'env' for single, 'store' for OAuth.
   */
  credentials?: 'env' | 'store' | 'none';
  /** Start the emulator (default true). */
  emulator?: boolean;
  /** Listener registration; default every feature (the real registerFeatures). */
  register?: RegisterFn;
  /**
   * Extra/override environment variables for loadConfig; a function gets the emulator (started
   * first) for variables that name its URLs.
   */
  env?: Env | ((started: { emulator?: EmulatorHandle; fake: FakeSlack }) => Env);
  /** Clock for AppDeps and the fake Slack (trigger expiry). Default Date.now. */
  now?: () => number;
  /** Web API retries of the bot's WebClient (default 0: scripted failures surface at once). */
  slackRetries?: number;
  /** Options of createApi (defaults: production). */
  apiOptions?: ApiOptions;
  /** Captured log level (default 'debug', so secret checks see everything). */
  logLevel?: string;
}

export type SignatureMode =
  | 'valid'
  | 'bad'
  | 'missing'
  | 'stale'
  | 'future'
  | { timestamp?: number; secret?: string; signature?: string };

export interface SendResult {
  status: number;
  text: string;
  /** Parsed body when it is JSON. */
  json?: unknown;
  headers: Headers;
  /** Time from sending to the full response (the ack), ms. */
  ackMs: number;
}

export interface CommandResult extends SendResult {
  responseUrl: string;
  triggerId: string;
}

export interface LogCapture {
  /** Raw JSON lines written so far. */
  lines(): string[];
  text(): string;
  entries(): Obj[];
  /** Secrets from the list that appear anywhere in the logs. */
  leaked(secrets: string[]): string[];
  clear(): void;
}

export interface TestBot {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  config: Config;
  deps: AppDeps;
  store: Store;
  /** The store's key root (a second store on the same STORE_URL needs it to see the same data). */
  storeNamespace: string;
  fake: FakeSlack;
  emulator?: EmulatorHandle;
  handle: SlackAppHandle;
  workspaces: TestWorkspace[];
  /** Workspace 0. */
  ws: TestWorkspace;
  signingSecret: string;
  logs: LogCapture;
  /** Every secret of this session (signing secret, tokens, keys, service credentials). */
  secrets(): string[];

  /** Slash command, form-encoded like Slack. */
  command(text: string, o?: CommandOptions): Promise<CommandResult>;
  /** block_actions payload (button, select...). */
  action(o: ActionOptions): Promise<SendResult & { responseUrl?: string; triggerId: string }>;
  /** view_submission of a modal (default: the user's last view on the fake). */
  viewSubmission(o: ViewOptions): Promise<SendResult>;
  viewClosed(o: ViewOptions): Promise<SendResult>;
  /** Global shortcut, or message shortcut when `message` is given. */
  shortcut(o: ShortcutOptions): Promise<SendResult & { triggerId: string }>;
  /** Events API event_callback. */
  event(event: Obj, o?: { team?: TestWorkspace; signature?: SignatureMode }): Promise<SendResult>;
  /**
   * A Workflow Builder step runs: starts an execution on the fake (execution id + xwfp token) and
   * sends the signed `function_executed` event as Slack sends it (event_callback with the
   * function's definition, inputs, function_execution_id, workflow_execution_id, bot_access_token).
   */
  functionExecuted(
    o: FunctionExecutedOptions,
  ): Promise<SendResult & { executionId: string; workflowExecutionId: string }>;
  urlVerification(challenge: string, signature?: SignatureMode): Promise<SendResult>;
  /** Low level: POST a raw body to a path with a signature. */
  send(path: string, body: string, contentType: string, signature?: SignatureMode): Promise<SendResult>;
  /** GET a path (health routes, install pages). */
  get(path: string, headers?: Record<string, string>): Promise<SendResult>;
  /** Install the app in a workspace through the installation store (as the OAuth callback would). */
  install(ws: TestWorkspace, opts?: { enterprise?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export interface FunctionExecutedOptions {
  callbackId: string;
  inputs?: Obj;
  title?: string;
  team?: TestWorkspace;
  signature?: SignatureMode;
  /** Reuse an execution (a redelivered event); default a new one. */
  execution?: { executionId: string; token: string };
}

export interface CommandOptions {
  command?: '/dwm' | '/drm';
  team?: TestWorkspace;
  user?: string;
  channel?: string;
  signature?: SignatureMode;
}

export interface ActionOptions {
  actionId: string;
  blockId?: string;
  value?: string;
  /** Element type; default button. */
  type?: string;
  selectedOption?: { value: string; text?: string };
  team?: TestWorkspace;
  user?: string;
  /**
   * The clicking user's own team (`user.team_id`), when it is not the workspace's: a user of
   * another organisation in a Slack Connect channel (Slack's `team` stays the app's workspace).
   */
  userTeamId?: string;
  channel?: string;
  /** The message the button is on (its ts); default: none (ephemeral container). */
  messageTs?: string;
  /** Action inside a modal: the view (from fake.lastView). */
  view?: FakeView;
  /** Extra state values of the surface. */
  state?: Obj;
  signature?: SignatureMode;
}

export interface ViewOptions {
  team?: TestWorkspace;
  user?: string;
  view?: FakeView;
  /** state.values: { [blockId]: { [actionId]: { type, value | selected_option | ... } } }. */
  values?: Obj;
  signature?: SignatureMode;
}

export interface ShortcutOptions {
  callbackId: string;
  team?: TestWorkspace;
  user?: string;
  message?: { ts: string; channel: string; text?: string };
  signature?: SignatureMode;
}

// -------------------------------------------------------------------------------------------------
// Signing
// -------------------------------------------------------------------------------------------------

/** Slack's request signature: v0= HMAC-SHA256 of "v0:{timestamp}:{raw body}". */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export function signatureHeaders(
  secret: string,
  body: string,
  mode: SignatureMode = 'valid',
): Record<string, string> {
  const nowSec = Math.floor(Date.now() / 1000);
  if (mode === 'missing') return {};
  if (mode === 'valid') {
    return {
      'x-slack-request-timestamp': String(nowSec),
      'x-slack-signature': slackSignature(secret, nowSec, body),
    };
  }
  if (mode === 'bad') {
    return {
      'x-slack-request-timestamp': String(nowSec),
      'x-slack-signature': slackSignature(`${secret}-wrong`, nowSec, body),
    };
  }
  if (mode === 'stale' || mode === 'future') {
    // Correctly signed, but outside Slack's 5-minute window.
    const ts = mode === 'stale' ? nowSec - 6 * 60 : nowSec + 6 * 60;
    return { 'x-slack-request-timestamp': String(ts), 'x-slack-signature': slackSignature(secret, ts, body) };
  }
  const ts = mode.timestamp ?? nowSec;
  return {
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': mode.signature ?? slackSignature(mode.secret ?? secret, ts, body),
  };
}

// -------------------------------------------------------------------------------------------------
// Logs
// -------------------------------------------------------------------------------------------------

export function captureLogs(level = 'debug'): { logger: Logger; capture: LogCapture } {
  const lines: string[] = [];
  const logger = createLogger({ level, destination: { write: (s: string) => void lines.push(s) } });
  const capture: LogCapture = {
    lines: () => [...lines],
    text: () => lines.join(''),
    entries: () =>
      lines.map((l) => {
        try {
          return JSON.parse(l) as Obj;
        } catch {
          return { raw: l };
        }
      }),
    leaked: (secrets) => {
      const all = lines.join('');
      return secrets.filter((s) => s.length >= 6 && all.includes(s));
    },
    clear: () => {
      lines.length = 0;
    },
  };
  return { logger, capture };
}

// -------------------------------------------------------------------------------------------------
// Workspaces
// -------------------------------------------------------------------------------------------------

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function testWorkspace(i: number): WorkspaceFixture {
  const l = LETTERS[i % 26]!;
  const teamId = `T0TEST0${l}`;
  const ws: TestWorkspace = {
    teamId,
    teamDomain: `team-${l.toLowerCase()}`,
    botToken: `xoxb-${1000 + i}-${randomBytes(6).toString('hex')}-${randomBytes(12).toString('hex')}`,
    botId: `B0TEST0${l}`,
    botUserId: `U0BOT00${l}`,
    admin: `U0ADMIN${l}`,
    member: `U0USER0${l}`,
    channel: `C0GENER${l}`,
    channelWithoutBot: `C0NOBOT${l}`,
  };
  const spec: FakeWorkspaceSpec = {
    teamId,
    teamName: `Team ${l}`,
    domain: ws.teamDomain,
    botToken: ws.botToken,
    botId: ws.botId,
    botUserId: ws.botUserId,
    users: [
      { id: ws.admin, name: `admin-${l.toLowerCase()}`, tz: 'Asia/Seoul', isAdmin: true },
      { id: ws.member, name: `member-${l.toLowerCase()}`, tz: 'America/New_York' },
    ],
    channels: [
      { id: ws.channel, name: `general-${l.toLowerCase()}`, botIsMember: true },
      { id: ws.channelWithoutBot, name: `random-${l.toLowerCase()}`, botIsMember: false },
    ],
  };
  return { ...ws, spec };
}

/** The Installation Bolt's OAuth callback would store for this workspace. */
export function installationOf(ws: TestWorkspace, opts: { enterprise?: boolean } = {}): Installation {
  const enterprise = opts.enterprise && ws.enterpriseId ? { id: ws.enterpriseId, name: 'Org' } : undefined;
  return {
    team: opts.enterprise ? undefined : { id: ws.teamId, name: ws.teamDomain },
    enterprise,
    user: { id: ws.admin, token: undefined, scopes: undefined },
    tokenType: 'bot',
    isEnterpriseInstall: Boolean(opts.enterprise),
    appId: 'A0FAKEAPP',
    authVersion: 'v2',
    bot: { scopes: BOT_SCOPES, token: ws.botToken, userId: ws.botUserId, id: ws.botId },
  } as Installation;
}

// -------------------------------------------------------------------------------------------------
// startTestBot
// -------------------------------------------------------------------------------------------------

export async function startTestBot(opts: StartTestBotOptions = {}): Promise<TestBot> {
  const count = opts.workspaceFixtures?.length ?? opts.workspaces ?? 1;
  if (count < 1) throw new Error('startTestBot: at least one workspace');
  const distribution = opts.distribution ?? (count > 1 ? 'oauth' : 'single');
  if (distribution === 'single' && count > 1)
    throw new Error('startTestBot: several workspaces need OAuth distribution');
  const credentialsMode = opts.credentials ?? (distribution === 'single' ? 'env' : 'store');
  if (credentialsMode === 'env' && distribution === 'oauth') {
    throw new Error('startTestBot: env credentials only exist in single-workspace distribution');
  }
  const now = opts.now ?? Date.now;
  const cleanups: Array<() => Promise<void>> = [];
  let closing: Promise<void> | undefined;
  const cleanup = () => {
    closing ??= (async () => {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
    })();
    return closing;
  };

  try {
    const { logger, capture } = captureLogs(opts.logLevel ?? 'debug');
    // `processLogger` is a live binding: keep the value it has now, and restore it only if no
    // other bot replaced ours meanwhile.
    const previousLogger = processLogger;
    setLogger(logger);
    cleanups.push(async () => {
      if (processLogger === logger) setLogger(previousLogger);
    });

    const signingSecret = randomBytes(16).toString('hex');
    const clientId = '1111111111.2222222222';
    const clientSecret = randomBytes(16).toString('hex');
    const stateSecret = randomBytes(20).toString('hex');
    const encryptionKey = randomBytes(32).toString('base64');

    const fake = await FakeSlack.start({ now, clientId, clientSecret });
    cleanups.push(() => fake.close());
    const workspaces: TestWorkspace[] = [];
    /** Channel names as the fake Slack knows them (Slack sends channel_name with commands). */
    const channelNames = new Map<string, string>();
    for (let i = 0; i < count; i++) {
      const { spec, ...ws } = opts.workspaceFixtures?.[i] ?? testWorkspace(i);
      fake.addWorkspace(spec);
      workspaces.push(ws);
      for (const c of spec.channels ?? []) channelNames.set(c.id, c.name);
    }
    const channelName = (id: string) => channelNames.get(id) ?? id.toLowerCase();
    const ws0 = workspaces[0]!;

    let emulator: EmulatorHandle | undefined;
    if (opts.emulator !== false) {
      emulator = await startEmulator({ now });
      cleanups.push(() => emulator!.close());
    }
    const demoCreds: WorkspaceCredentials | undefined = emulator ? emulatorCredentials(emulator) : undefined;

    // Store
    let storeUrl = 'memory://';
    const namespace = `t-${process.pid}-${randomBytes(4).toString('hex')}`;
    if (opts.store === 'sqlite') {
      const dir = await mkdtemp(join(tmpdir(), 'drm-chatops-test-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      storeUrl = `sqlite://${join(dir, 'bot.sqlite')}`;
    } else if (opts.store === 'redis') {
      const { startTestRedis } = await import('./redis.js');
      const redis = await startTestRedis();
      cleanups.push(() => redis.stop([namespace]));
      storeUrl = redis.url;
    }
    if (opts.storeUrl) storeUrl = opts.storeUrl;

    const env: Env = {
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: fake.apiUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      STORE_URL: storeUrl,
      ENCRYPTION_KEY: encryptionKey,
      LOG_LEVEL: opts.logLevel ?? 'debug',
      ...(distribution === 'single'
        ? { SLACK_BOT_TOKEN: ws0.botToken, SLACK_BOT_ID: ws0.botId, SLACK_BOT_USER_ID: ws0.botUserId }
        : { SLACK_CLIENT_ID: clientId, SLACK_CLIENT_SECRET: clientSecret, SLACK_STATE_SECRET: stateSecret }),
      ...(credentialsMode === 'env' && demoCreds ? credentialsEnv(demoCreds) : {}),
      ...(typeof opts.env === 'function' ? opts.env({ ...(emulator ? { emulator } : {}), fake }) : opts.env),
    };
    const config = loadConfig(env);
    // As main.ts does: the process's table of failure codes in words (JOB_FAILURE_CODES).
    setFailureCodes(loadFailureCodes(config.jobFailureCodes ?? '{}'));
    setLicenseErrorCodes(loadLicenseErrorCodes(config.licenseErrorCodes ?? '{}'));

    const store = await createStore({
      url: config.storeUrl,
      encryptionKey: config.encryptionKey,
      previousEncryptionKeys: config.previousEncryptionKeys,
      namespace,
      auditCap: config.auditCap,
    });
    cleanups.push(() => store.close());
    // As in main.ts: the stored data migrations run before anything is served.
    await runMigrations(store, WATCH_MIGRATIONS, { holder: `test-bot:${randomBytes(4).toString('hex')}` });
    const api = createApi({
      logger,
      clock: now,
      serviceLicenseTimeZone: config.serviceApi.licenseTimeZone,
      bodyEncoding: config.serviceApi.bodyEncoding,
      apiCodeIn: config.serviceApi.apiCodeIn,
      serviceTimeZone: config.serviceApi.timeZone,
      claims: {
        subject: config.serviceJwt.sub,
        audience: config.serviceJwt.aud,
        issuer: config.serviceJwt.iss,
      },
      ...opts.apiOptions,
    });
    cleanups.push(() => api.close());

    // As in main.ts: Slack requests use the bounded store.
    const deps: AppDeps = { config, store: store.bounded(config.storeRequestTimeoutMs), api, logger, now };

    if (distribution === 'oauth') {
      for (const ws of workspaces) await store.installations.save(ws.teamId, installationOf(ws));
    }
    if (credentialsMode === 'store' && demoCreds) {
      for (const ws of workspaces) {
        await store.credentials.put(ws.teamId, {
          credentials: demoCreds,
          verifiedAt: new Date(now()).toISOString(),
          savedBy: ws.admin,
        });
      }
    }

    const handle = createSlackApp(deps, {
      ...(opts.register ? { register: opts.register } : {}),
      retryConfig: { retries: opts.slackRetries ?? 0 },
    });
    const { port } = await handle.start();
    cleanups.push(() => handle.stop());
    const url = `http://127.0.0.1:${port}`;

    async function send(path: string, body: string, contentType: string, signature: SignatureMode = 'valid') {
      const started = performance.now();
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': contentType, ...signatureHeaders(signingSecret, body, signature) },
        body,
      });
      const text = await res.text();
      const ackMs = performance.now() - started;
      return result(res, text, ackMs);
    }

    function result(res: Response, text: string, ackMs: number): SendResult {
      let json: unknown;
      if ((res.headers.get('content-type') ?? '').includes('json') && text) {
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
      }
      return {
        status: res.status,
        text,
        headers: res.headers,
        ackMs,
        ...(json !== undefined ? { json } : {}),
      };
    }

    const sendPayload = (payload: Obj, signature?: SignatureMode) =>
      send(
        '/slack/events',
        new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
        'application/x-www-form-urlencoded',
        signature,
      );

    const userObj = (ws: TestWorkspace, user: string) => ({
      id: user,
      username: user.toLowerCase(),
      name: user.toLowerCase(),
      team_id: ws.teamId,
    });
    const teamObj = (ws: TestWorkspace) => ({ id: ws.teamId, domain: ws.teamDomain });

    function viewPayload(v: FakeView, values: Obj = {}): Obj {
      const raw = v.view;
      return {
        id: v.id,
        team_id: v.teamId,
        type: v.type,
        blocks: v.blocks,
        private_metadata: v.privateMetadata ?? '',
        callback_id: v.callbackId ?? '',
        state: { values },
        hash: v.hash,
        title: raw.title,
        clear_on_close: Boolean(raw.clear_on_close),
        notify_on_close: Boolean(raw.notify_on_close),
        close: raw.close ?? null,
        submit: raw.submit ?? null,
        previous_view_id: v.previousViewId,
        root_view_id: v.rootViewId,
        app_id: 'A0FAKEAPP',
        external_id: v.externalId ?? '',
        app_installed_team_id: v.teamId,
        bot_id: workspaces.find((w) => w.teamId === v.teamId)?.botId ?? ws0.botId,
      };
    }

    const bot: TestBot = {
      url,
      port,
      config,
      deps,
      store,
      storeNamespace: namespace,
      fake,
      ...(emulator ? { emulator } : {}),
      handle,
      workspaces,
      ws: ws0,
      signingSecret,
      logs: capture,
      secrets: () => [
        signingSecret,
        clientSecret,
        stateSecret,
        encryptionKey,
        ...workspaces.map((w) => w.botToken),
        ...(demoCreds ? [demoCreds.watermarking!.accessKey, demoCreds.service!.secretKey] : []),
      ],

      async command(text, o = {}) {
        const ws = o.team ?? ws0;
        const user = o.user ?? ws.member;
        const channel = o.channel ?? ws.channel;
        const responseUrl = fake.responseUrl(ws.teamId, { channel, userId: user });
        const triggerId = fake.issueTrigger(ws.teamId, user);
        const form = new URLSearchParams({
          token: 'deprecated-verification-token',
          team_id: ws.teamId,
          team_domain: ws.teamDomain,
          channel_id: channel,
          channel_name: channelName(channel),
          user_id: user,
          user_name: user.toLowerCase(),
          command: o.command ?? '/dwm',
          text,
          api_app_id: 'A0FAKEAPP',
          is_enterprise_install: 'false',
          response_url: responseUrl,
          trigger_id: triggerId,
        });
        const r = await send(
          '/slack/events',
          form.toString(),
          'application/x-www-form-urlencoded',
          o.signature,
        );
        return { ...r, responseUrl, triggerId };
      },

      async action(o) {
        const ws = o.team ?? ws0;
        const user = o.user ?? ws.member;
        const channel = o.channel ?? ws.channel;
        const triggerId = fake.issueTrigger(ws.teamId, user);
        const responseUrl = o.view
          ? undefined
          : fake.responseUrl(ws.teamId, {
              channel,
              userId: user,
              ...(o.messageTs ? { messageTs: o.messageTs } : {}),
            });
        const actionTs = (now() / 1000).toFixed(6);
        const action: Obj = {
          action_id: o.actionId,
          block_id: o.blockId ?? 'b0',
          type: o.type ?? 'button',
          action_ts: actionTs,
          ...(o.value !== undefined ? { value: o.value } : {}),
          ...(o.selectedOption
            ? {
                selected_option: {
                  value: o.selectedOption.value,
                  text: { type: 'plain_text', text: o.selectedOption.text ?? o.selectedOption.value },
                },
              }
            : {}),
        };
        const original = o.messageTs ? fake.messages(channel).find((m) => m.ts === o.messageTs) : undefined;
        const payload: Obj = {
          type: 'block_actions',
          user: { ...userObj(ws, user), ...(o.userTeamId ? { team_id: o.userTeamId } : {}) },
          api_app_id: 'A0FAKEAPP',
          token: 'deprecated-verification-token',
          trigger_id: triggerId,
          team: teamObj(ws),
          enterprise: null,
          is_enterprise_install: false,
          actions: [action],
          state: { values: o.state ?? {} },
          ...(o.view
            ? { container: { type: 'view', view_id: o.view.id }, view: viewPayload(o.view, o.state) }
            : {
                container: o.messageTs
                  ? { type: 'message', message_ts: o.messageTs, channel_id: channel, is_ephemeral: false }
                  : { type: 'message', message_ts: actionTs, channel_id: channel, is_ephemeral: true },
                channel: { id: channel, name: channelName(channel) },
                response_url: responseUrl,
                ...(original
                  ? {
                      message: {
                        type: 'message',
                        ts: original.ts,
                        text: original.text ?? '',
                        blocks: original.blocks ?? [],
                        bot_id: original.botId,
                        user: original.user,
                      },
                    }
                  : {}),
              }),
        };
        const r = await sendPayload(payload, o.signature);
        return { ...r, triggerId, ...(responseUrl ? { responseUrl } : {}) };
      },

      async viewSubmission(o) {
        const ws = o.team ?? ws0;
        const user = o.user ?? ws.member;
        const v = o.view ?? fake.lastView(user, 'modal');
        if (!v) throw new Error(`harness: no modal open for ${user} on the fake Slack`);
        const payload: Obj = {
          type: 'view_submission',
          team: teamObj(ws),
          user: userObj(ws, user),
          api_app_id: 'A0FAKEAPP',
          token: 'deprecated-verification-token',
          trigger_id: fake.issueTrigger(ws.teamId, user),
          view: viewPayload(v, o.values),
          response_urls: [],
          is_enterprise_install: false,
          enterprise: null,
        };
        const r = await sendPayload(payload, o.signature);
        // Slack refuses an answer it cannot show (the user sees only a generic error): so does this.
        const refused = r.status === 200 ? viewAckProblems(v, Object.keys(o.values ?? {}), r.json) : [];
        if (refused.length > 0) {
          throw new Error(`harness: Slack would refuse the answer to this submission: ${refused.join('; ')}`);
        }
        return r;
      },

      async viewClosed(o) {
        const ws = o.team ?? ws0;
        const user = o.user ?? ws.member;
        const v = o.view ?? fake.lastView(user, 'modal');
        if (!v) throw new Error(`harness: no modal open for ${user} on the fake Slack`);
        fake.closeView(v.id);
        const payload: Obj = {
          type: 'view_closed',
          team: teamObj(ws),
          user: userObj(ws, user),
          api_app_id: 'A0FAKEAPP',
          token: 'deprecated-verification-token',
          view: viewPayload(v, o.values),
          is_cleared: false,
          is_enterprise_install: false,
          enterprise: null,
        };
        return sendPayload(payload, o.signature);
      },

      async shortcut(o) {
        const ws = o.team ?? ws0;
        const user = o.user ?? ws.member;
        const triggerId = fake.issueTrigger(ws.teamId, user);
        const common = {
          token: 'deprecated-verification-token',
          action_ts: (now() / 1000).toFixed(6),
          team: teamObj(ws),
          user: userObj(ws, user),
          is_enterprise_install: false,
          enterprise: null,
          callback_id: o.callbackId,
          trigger_id: triggerId,
        };
        const payload: Obj = o.message
          ? {
              ...common,
              type: 'message_action',
              message_ts: o.message.ts,
              channel: { id: o.message.channel, name: channelName(o.message.channel) },
              message: { type: 'message', ts: o.message.ts, text: o.message.text ?? '' },
              response_url: fake.responseUrl(ws.teamId, { channel: o.message.channel, userId: user }),
            }
          : { ...common, type: 'shortcut' };
        const r = await sendPayload(payload, o.signature);
        return { ...r, triggerId };
      },

      async event(event, o = {}) {
        const ws = o.team ?? ws0;
        const body = JSON.stringify({
          token: 'deprecated-verification-token',
          team_id: ws.teamId,
          api_app_id: 'A0FAKEAPP',
          event: { event_ts: (now() / 1000).toFixed(6), ...event },
          type: 'event_callback',
          event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
          event_time: Math.floor(now() / 1000),
          authorizations: [
            {
              enterprise_id: null,
              team_id: ws.teamId,
              user_id: ws.botUserId,
              is_bot: true,
              is_enterprise_install: false,
            },
          ],
          is_ext_shared_channel: false,
        });
        return send('/slack/events', body, 'application/json', o.signature);
      },

      async functionExecuted(o) {
        const ws = o.team ?? ws0;
        const ex = o.execution ?? fake.startFunctionExecution(ws.teamId);
        const workflowExecutionId = `Wx${randomBytes(5).toString('hex').toUpperCase()}`;
        const r = await bot.event(
          {
            type: 'function_executed',
            function: {
              id: `Fn${randomBytes(5).toString('hex').toUpperCase()}`,
              callback_id: o.callbackId,
              title: o.title ?? o.callbackId,
              description: '',
              type: 'app',
              input_parameters: [],
              output_parameters: [],
              app_id: 'A0FAKEAPP',
              date_created: Math.floor(now() / 1000),
              date_updated: 0,
              date_deleted: 0,
            },
            inputs: o.inputs ?? {},
            function_execution_id: ex.executionId,
            workflow_execution_id: workflowExecutionId,
            bot_access_token: ex.token,
          },
          { team: ws, ...(o.signature ? { signature: o.signature } : {}) },
        );
        return { ...r, executionId: ex.executionId, workflowExecutionId };
      },

      urlVerification(challenge, signature) {
        const body = JSON.stringify({
          token: 'deprecated-verification-token',
          challenge,
          type: 'url_verification',
        });
        return send('/slack/events', body, 'application/json', signature);
      },

      send,

      async get(path, headers = {}) {
        const started = performance.now();
        const res = await fetch(`${url}${path}`, { headers, redirect: 'manual' });
        const text = await res.text();
        return result(res, text, performance.now() - started);
      },

      async install(ws, o = {}) {
        await store.installations.save(
          o.enterprise && ws.enterpriseId ? ws.enterpriseId : ws.teamId,
          installationOf(ws, o),
        );
      },

      close: cleanup,
    };
    return bot;
  } catch (e) {
    await cleanup();
    throw e;
  }
}
