/**
 * Process entry point: load the configuration, build logger / store / API clients, start the Slack
 * app, and shut down cleanly on SIGTERM/SIGINT (stop receiving, stop background jobs registered on
 * the lifecycle, close the API pools and the store, exit 0).
 *
 * A configuration problem is printed as a plain message naming the variables (no stack trace) and
 * the process exits 1.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { pathToFileURL } from 'node:url';
import {
  loadErrorCodes,
  loadFailureCodes,
  loadLicenseErrorCodes,
  setErrorCodes,
  setFailureCodes,
  setLicenseErrorCodes,
} from './api/error-codes.js';
import { createApi } from './api/index.js';
import { loadSiteRequestStatuses, setSiteRequestStatuses } from './api/site-request-statuses.js';
import { apiOptionsOf, type Config, ConfigError, type Env, loadConfig, unknownSettings } from './config.js';
import { loadEnvFile } from './env-file.js';
import { createLogger, type Logger, registerSecret, setLogger } from './log.js';
import { checkEncryptionKeys, keyReadinessCheck } from './ops/key-check.js';
import { createSlackApp, type RegisterFn, type SlackAppHandle } from './slack/app.js';
import { stopAppSender } from './slack/background-sender.js';
import type { AppDeps } from './slack/deps.js';
import { FEATURES, resumePendingRegistrations } from './slack/features/index.js';
import { notifyRenderersOf } from './slack/kit/features.js';
import { createLifecycle, type Lifecycle, startRetentionSweeper } from './slack/lifecycle.js';
import { createNotifyRuntime } from './slack/notify-runtime.js';
import { createWatchRuntime } from './slack/watch-runtime.js';
import { createStore, runMigrations, StoreConfigError } from './store/index.js';
import { WATCH_MIGRATIONS } from './watch/migrations.js';

export interface RunningBot {
  config: Config;
  deps: AppDeps;
  handle: SlackAppHandle;
  lifecycle: Lifecycle;
  port: number;
  /** Stop everything (idempotent). */
  shutdown(reason: string): Promise<void>;
}

export interface StartOptions {
  env?: Env;
  register?: RegisterFn;
  /** Extra background work: start it and register its stop on the lifecycle. */
  background?: (deps: AppDeps, lifecycle: Lifecycle) => Promise<void> | void;
  /** Run the job watcher (src/slack/watch-runtime.ts). Default true. */
  watch?: boolean;
  /**
   * Run the notifications (src/slack/notify-runtime.ts: request outcomes, license alerts, daily
   * digests). Default true.
   */
  notify?: boolean;
  /** Resume interrupted bulk registrations at start. Default true. */
  resumeRegistrations?: boolean;
}

/** Builds and starts everything. Throws ConfigError / StoreConfigError on bad configuration. */
export async function startBot(opts: StartOptions = {}): Promise<RunningBot> {
  const config = loadConfig(opts.env ?? process.env);
  // Secret values from the environment are censored in every log line (shapes alone miss a hex
  // signing secret or an access key); the vault's are registered as they are decrypted.
  registerSecret(
    config.slack.botToken,
    config.slack.appToken,
    config.slack.signingSecret,
    config.metricsToken,
    config.slack.clientSecret,
    config.slack.stateSecret,
    config.envCredentials?.watermarking?.accessKey,
    config.envCredentials?.service?.secretKey,
    config.encryptionKey,
    ...config.previousEncryptionKeys,
  );
  const logger = createLogger({ level: config.logLevel });
  setLogger(logger);
  setErrorCodes(loadErrorCodes(config.serviceErrorCodes ?? '{}'));
  setFailureCodes(loadFailureCodes(config.jobFailureCodes ?? '{}'));
  setSiteRequestStatuses(loadSiteRequestStatuses(config.siteRequestStatuses ?? '{}'));
  setLicenseErrorCodes(loadLicenseErrorCodes(config.licenseErrorCodes ?? '{}'));
  const store = await createStore({
    url: config.storeUrl,
    encryptionKey: config.encryptionKey,
    previousEncryptionKeys: config.previousEncryptionKeys,
    sqliteJournal: config.sqliteJournal,
    onNewerDocument: (d) =>
      logger.warn(
        { document: d.what, version: d.version, known: d.known },
        'a stored document was written by a newer release: left as it is (finish the rolling upgrade)',
      ),
    auditCap: config.auditCap,
  });
  // Stored data of an older release is moved to this release's layout once, before anything
  // reads it (one replica runs it under the store's lease; the others wait for it).
  await runMigrations(store, WATCH_MIGRATIONS, {
    holder: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    log: (message, fields) => logger.info(fields ?? {}, message),
  }).catch(async (err: unknown) => {
    await store.close().catch(() => undefined);
    throw err;
  });
  const api = createApi(apiOptionsOf(config, logger));
  // Slack requests use the bounded store (an outage is answered "storage is unavailable" within
  // seconds, never a hung ack); background work below uses the unbounded one and resumes after it.
  const deps: AppDeps = {
    config,
    store: store.bounded(config.storeRequestTimeoutMs),
    api,
    logger,
    now: Date.now,
  };
  const backgroundDeps: AppDeps = { ...deps, store };
  const lifecycle = createLifecycle();
  // Registered first, so it runs last: the queued audit lines of the other hooks' last work are
  // still sent (or dropped and logged) before the store closes.
  lifecycle.onStop('background messages', () => stopAppSender(deps));
  // A wrong ENCRYPTION_KEY is said at start and keeps /readyz false until it is fixed.
  const keys = await checkEncryptionKeys(store).catch(() => undefined);
  if (keys && !keys.ok)
    logger.error({ unreadable: keys.unreadable, kids: keys.kids }, keys.detail ?? 'unreadable records');
  const handle = createSlackApp(deps, {
    lifecycle,
    readinessChecks: [keyReadinessCheck(store, Date.now)],
    ...(opts.register ? { register: opts.register } : {}),
  });

  let shuttingDown: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    shuttingDown ??= (async () => {
      logger.info({ reason }, 'shutting down');
      // In-flight commands and buttons finish (bounded); new ones are told to try again.
      await handle
        .drain(config.shutdownDrainSeconds * 1000)
        .catch((err: unknown) => logger.error({ err }, 'error while draining requests'));
      await handle
        .stop()
        .catch((err: unknown) => logger.error({ err }, 'error while stopping the Slack app'));
      await lifecycle.stopAll(logger);
      await api.close().catch((err: unknown) => logger.error({ err }, 'error while closing API connections'));
      await store.close().catch((err: unknown) => logger.error({ err }, 'error while closing the store'));
      logger.info('stopped');
    })();
    return shuttingDown;
  };

  try {
    if (opts.background) await opts.background(deps, lifecycle);
    const { port } = await handle.start();
    if (opts.watch !== false) {
      // Started once the app receives, stopped (by the lifecycle) after it stopped receiving.
      // It also serves the Workflow Builder steps' durable waits (src/watch/job-waits.ts).
      const watch = createWatchRuntime(backgroundDeps, handle.app, {
        features: FEATURES,
        watcher: {
          activeIntervalMs: config.pollActiveIntervalSeconds * 1000,
          callBudgetPerMinute: config.watchCallBudgetPerMinute,
          concurrency: config.watchConcurrency,
          clockAllowanceMs: config.watchClockAllowanceSeconds * 1000,
          outageNoticeMs: config.watchOutageNoticeMinutes * 60_000,
          // Re-read the watched sites every 10 s, not at every tick (thousands of sites on Redis).
          targetsCacheMs: 10_000,
        },
      });
      lifecycle.onStop('watcher', () => watch.stop());
      watch.start();
    }
    if (opts.notify !== false) {
      // One notifier per process (unique holder id); started once the app receives, stopped by
      // the lifecycle after it stopped receiving. Renderers from the features, strictly: a notice
      // kind no feature renders refuses the start (notifyRenderersOf names it); the Home refresh
      // from the features too.
      const notify = createNotifyRuntime(backgroundDeps, {
        features: FEATURES,
        renderers: notifyRenderersOf(FEATURES),
      });
      lifecycle.onStop('notifications', () => notify.stop());
      notify.start();
    }
    // Uninstalled workspaces past their grace period, audit entries past their retention
    // (src/ops/retention.ts): deleted by a periodic sweep, retried until the store takes it.
    lifecycle.onStop('retention sweep', startRetentionSweeper(backgroundDeps));
    if (opts.resumeRegistrations !== false) {
      // Bulk registrations interrupted by a stop or crash continue from their stored report
      // (batches already done are never re-sent). Not awaited: start-up must not wait on the service.
      void resumePendingRegistrations(backgroundDeps, { lifecycle }).then(
        (r) => {
          if (r.resumed.length || r.deferred.length) logger.info(r, 'resumed pending registrations');
        },
        (err: unknown) => logger.error({ err }, 'could not resume pending registrations'),
      );
    }
    return { config, deps, handle, lifecycle, port, shutdown };
  } catch (err) {
    await shutdown('start failed');
    throw err;
  }
}

/**
 * Process-wide last resorts, through the redacting logger: an unhandled promise rejection is
 * logged with its error and the process keeps serving (one failed background task must not stop
 * every workspace's bot; Node's default would exit); an uncaught exception is logged before Node
 * exits as usual (`uncaughtExceptionMonitor` observes without swallowing it). Returns a function
 * that removes the handlers.
 */
export function installProcessHandlers(logger: Pick<Logger, 'error' | 'fatal'>): () => void {
  const onRejection = (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection (the bot keeps running)');
  };
  const onException = (err: Error, origin: string) => {
    logger.fatal({ err, origin }, 'uncaught exception: the process exits');
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtExceptionMonitor', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtExceptionMonitor', onException);
  };
}

/**
 * Entry point of `npm start`: loads .env, then exits 1 on a configuration error, 0 after a clean
 * shutdown.
 */
export async function main(): Promise<void> {
  let bot: RunningBot;
  try {
    // .env in the working directory, for what the environment does not set (src/env-file.ts).
    const envFile = loadEnvFile();
    if (envFile.cutAtHash.length)
      process.stderr.write(
        `Warning: in ${envFile.path}, ${envFile.cutAtHash.join(', ')} ${envFile.cutAtHash.length === 1 ? 'has' : 'have'} an unquoted value with "#": npm start reads only what comes before it. Put the value in single quotes (KEY='a#b'); see docs/configuration.md.\n`,
      );
    const unknown = unknownSettings([...envFile.loaded, ...envFile.overridden]);
    if (unknown.length)
      process.stderr.write(
        `Warning: in ${envFile.path}, ${unknown
          .map((u) => (u.meant ? `${u.name} (did you mean ${u.meant}?)` : u.name))
          .join(
            ', ',
          )} ${unknown.length === 1 ? 'is not a setting' : 'are not settings'} of drm-chatops and ${unknown.length === 1 ? 'is' : 'are'} ignored; see docs/configuration.md.\n`,
      );
    bot = await startBot();
  } catch (err) {
    if (err instanceof ConfigError || err instanceof StoreConfigError) {
      process.stderr.write(`drm-chatops cannot start.\n${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(
      `drm-chatops failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  }
  const onSignal = (signal: NodeJS.Signals) => {
    // A second signal while stopping forces the exit.
    if (stopping) process.exit(1);
    stopping = true;
    // The drain, then at most ~10 s for the background work and the store to stop.
    const force = setTimeout(() => process.exit(1), bot.config.shutdownDrainSeconds * 1000 + 15_000);
    force.unref();
    bot.shutdown(signal).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  let stopping = false;
  installProcessHandlers(bot.deps.logger);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) void main();
