/**
 * Shared setup of the notification runtime's end-to-end tests: the real Bolt app (harness), the
 * emulator, the fake Slack and the notify runtime (started, like startBot starts it) on ONE
 * virtual clock. Time moves only when a test says so (`tick`: one poll interval, then wait until
 * the runtime's work settled), never by real time.
 */
import type { FakeCall, FakeMessage } from '../../dev/fakeslack/index.js';
import type { ServiceClient } from '../../src/api/types.js';
import { loadCredentials } from '../../src/ops/workspace.js';
import { FEATURES } from '../../src/slack/features/index.js';
import {
  createNotifyRuntime,
  type NotifyRuntime,
  type NotifyRuntimeOptions,
} from '../../src/slack/notify-runtime.js';
import { FakeClock } from '../../src/watch/clock.js';
import { type StartTestBotOptions, startTestBot, type TestBot } from '../harness/index.js';

export interface NotifySetup {
  bot: TestBot;
  clock: FakeClock;
  runtime: NotifyRuntime;
  ws: string;
  svc: ServiceClient;
  close(): Promise<void>;
}

export const INTERVAL_S = 60;

export async function setupNotify(
  o: { bot?: StartTestBotOptions; runtime?: NotifyRuntimeOptions } = {},
): Promise<NotifySetup> {
  const clock = new FakeClock(Date.now());
  const bot = await startTestBot({
    credentials: 'env',
    now: () => clock.now(),
    ...o.bot,
    env: { POLL_INTERVAL_SECONDS: String(INTERVAL_S), ...(o.bot?.env ?? {}) },
  });
  const runtime = newNotifyRuntime(bot, clock, o.runtime);
  runtime.start();
  const creds = await loadCredentials(bot.deps, bot.ws.teamId);
  if (!creds?.credentials.service) throw new Error('no service credentials in the test bot');
  const svc = bot.deps.api.service(creds.credentials.service);
  return {
    bot,
    clock,
    runtime,
    ws: bot.ws.teamId,
    svc,
    async close() {
      await runtime.stop();
      await bot.close();
    },
  };
}

export function newNotifyRuntime(
  bot: TestBot,
  clock: FakeClock,
  o: NotifyRuntimeOptions = {},
): NotifyRuntime {
  return createNotifyRuntime(bot.deps, {
    clock,
    holderId: `test-${Math.random().toString(36).slice(2, 8)}`,
    features: FEATURES,
    ...o,
  });
}

/**
 * One poll interval passes: a started runtime's own timer runs its scheduler pass; a runtime
 * built but not started (newNotifyRuntime) gets one pass run directly. Then wait until the pass,
 * its deliveries and the event handling settled.
 */
export async function tick(
  s: Pick<NotifySetup, 'clock' | 'runtime'>,
  runtime = s.runtime,
  ms = INTERVAL_S * 1000,
) {
  s.clock.advance(ms);
  if (!runtime.running) await runtime.notifier.tick();
  await runtime.idle();
}

/** Upstream reads of plan request status (the request poll's only call for plan requests). */
export function statusReads(b: TestBot): number {
  return Object.entries(b.emulator!.requestCounts())
    .filter(([k]) => k.startsWith('GET ') && k.includes('/plan/request/status'))
    .reduce((n, [, v]) => n + v, 0);
}

export const json = (x: unknown) => JSON.stringify(x ?? {});

/** The bot's DMs with a user (the IM channel Slack opened for conversations.open). */
export function dmsTo(b: TestBot, userId: string): FakeMessage[] {
  const opened = b.fake
    .calls('conversations.open')
    .filter((c: FakeCall) => c.ok && String(c.args.users) === userId)
    .map((c) => (c.response as { channel?: { id?: string } } | undefined)?.channel?.id)
    .filter((x): x is string => !!x);
  const channels = new Set(opened);
  return b.fake.allMessages().filter((m) => channels.has(m.channel));
}
