/**
 * A bot process for the faults suite's kill -9 scenario of the notifications (request outcomes,
 * license-failure alerts, daily digests; test/faults/notify.fault.ts): ONE notifier built by the
 * bot's own runtime (src/slack/notify-runtime.ts: the real Slack ports over the poster factory,
 * the features' renderers via `notifyRenderersOf(FEATURES)`, as src/main.ts builds it), on a
 * store shared across restarts (a SQLite file), against an emulator and a fake Slack in the
 * parent process. Single-workspace distribution: the bot token and the service credentials come
 * from the environment this child builds from its config, like a real deployment's.
 *
 * The runtime's own timer is not started: this loop runs the same scheduler pass
 * (`notifier.tick()`) every `tickMs` so that it can report each pass to the parent.
 *
 * Run: `node --import tsx dev/testing/notify-child.ts` with NOTIFY_CHILD_CONFIG = JSON of
 * `NotifyChildConfig`. Talks to the parent on stdout, one line per event:
 *   READY                                 the process is up (store open, runtime built)
 *   TICK <n> outbox=<entries> tracked=<pending requests>   a scheduler pass finished
 *   FAIL <message>                        a start-up failure (no secrets)
 * It is killed with SIGKILL at random points; nothing it does may depend on a clean exit.
 * Never for production use: it exists only to be killed.
 */
import { randomBytes } from 'node:crypto';
import { createApi } from '../../src/api/index.js';
import type { WorkspaceCredentials } from '../../src/api/types.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import type { AppDeps } from '../../src/slack/deps.js';
import { FEATURES } from '../../src/slack/features/index.js';
import { notifyRenderersOf } from '../../src/slack/kit/features.js';
import { createNotifyRuntime } from '../../src/slack/notify-runtime.js';
import { createStore } from '../../src/store/index.js';
import { credentialsEnv } from './credentials.js';

export interface NotifyChildConfig {
  storeUrl: string;
  encryptionKey: string;
  namespace: string;
  /** The workspace the parent set the notices up in (counted in TICK lines). */
  workspace: string;
  slackApiUrl: string;
  botToken: string;
  botId: string;
  botUserId: string;
  /** Service + watermarking credentials (emulator URLs on loopback). */
  creds: WorkspaceCredentials;
  /** The same on every start: a restarted process takes its predecessor's leases at once. */
  holderId: string;
  /** Request and alert poll interval (ms). */
  intervalMs: number;
  /** Scheduler pass interval (ms). */
  tickMs: number;
  /** Slack pacing per channel / DM (ms). */
  laneIntervalMs: number;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const raw = process.env.NOTIFY_CHILD_CONFIG;
  if (!raw) throw new Error('NOTIFY_CHILD_CONFIG is not set');
  const c = JSON.parse(raw) as NotifyChildConfig;
  if (!c.creds.service || !c.creds.watermarking)
    throw new Error('service and watermarking credentials are required');
  const config = loadConfig({
    SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
    SLACK_API_URL: c.slackApiUrl,
    SLACK_BOT_TOKEN: c.botToken,
    SLACK_BOT_ID: c.botId,
    SLACK_BOT_USER_ID: c.botUserId,
    PORT: '0',
    HOST: '127.0.0.1',
    STORE_URL: c.storeUrl,
    ENCRYPTION_KEY: c.encryptionKey,
    LOG_LEVEL: 'warn',
    ...credentialsEnv(c.creds),
  });
  const logger = createLogger({ level: 'warn', destination: process.stderr });
  const store = await createStore({
    url: config.storeUrl,
    encryptionKey: config.encryptionKey,
    namespace: c.namespace,
  });
  const api = createApi({
    logger,
    retries: { max: 1, baseMs: 20 },
    claims: {
      subject: config.serviceJwt.sub,
      audience: config.serviceJwt.aud,
      issuer: config.serviceJwt.iss,
    },
  });
  const deps: AppDeps = { config, store, api, logger, now: Date.now };
  const runtime = createNotifyRuntime(deps, {
    features: FEATURES,
    renderers: notifyRenderersOf(FEATURES),
    holderId: c.holderId,
    notifier: {
      intervalMs: c.intervalMs,
      tickMs: c.tickMs,
      laneIntervalMs: c.laneIntervalMs,
    },
  });
  if (runtime.missingRenderers.length)
    throw new Error(`missing renderers ${runtime.missingRenderers.join(',')}`);
  const { notifier } = runtime;
  // Diagnostics for the parent (printed when the scenario fails); the runtime's own event
  // handling (paused DMs, Home refresh) stays as wired.
  notifier.on((e) => {
    if (e.type !== 'notify-delivered') process.stderr.write(`EVENT ${JSON.stringify(e)}\n`);
  });
  say('READY');
  let n = 0;
  for (;;) {
    await notifier.tick().catch((err: unknown) => logger.error({ err }, 'notify tick failed'));
    const outbox = await notifier.outbox.size(c.workspace);
    const tracked = (await notifier.tracker.list(c.workspace)).length;
    say(`TICK ${++n} outbox=${outbox} tracked=${tracked}`);
    await new Promise((r) => setTimeout(r, c.tickMs));
  }
}

main().catch((e: unknown) => {
  say(`FAIL ${e instanceof Error ? e.message.slice(0, 300) : 'unknown error'}`);
  process.exit(2);
});
