/**
 * The offline demo's stack: the repository's one stack builder (dev/testing/bot-stack.ts: the
 * service emulator, the fake Slack, an in-memory store, the real bot in HTTP mode and a Slack
 * stand-in that signs requests as Slack does), with the demo's named workspace and the job watcher,
 * which the demo drives step by step (pollOnce), not by its timer. Every secret is generated at
 * start; nothing leaves 127.0.0.1.
 */

import { randomBytes } from 'node:crypto';
import { FEATURES } from '../../src/slack/features/index.js';
import { createWatchRuntime, type WatchRuntime } from '../../src/slack/watch-runtime.js';
import type { EmulatorHandle } from '../emulator/types.js';
import { startTestBot, type TestBot, type WorkspaceFixture } from '../testing/bot-stack.js';
import { DEMO_JOB_FAILURE_CODES } from './failure-codes.js';

export interface DemoStack extends TestBot {
  emulator: EmulatorHandle;
  watch: WatchRuntime;
}

/** Acme Films: an admin in Seoul, a member in New York, #releases with the bot in it. */
export function demoWorkspace(): WorkspaceFixture {
  const ws = {
    teamId: 'T0DEMO001',
    teamDomain: 'acme-films',
    botToken: `xoxb-2000-${randomBytes(6).toString('hex')}-${randomBytes(12).toString('hex')}`,
    botId: 'B0DEMOBOT',
    botUserId: 'U0DEMOBOT',
    admin: 'U0ADMIN01',
    member: 'U0MEMBER1',
    channel: 'C0RELEASES',
    channelWithoutBot: 'C0RANDOM1',
  };
  return {
    ...ws,
    spec: {
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
      channels: [
        { id: ws.channel, name: 'releases', botIsMember: true },
        { id: ws.channelWithoutBot, name: 'random', botIsMember: false },
      ],
    },
  };
}

export async function startDemoStack(opts: { logLevel?: string } = {}): Promise<DemoStack> {
  const bot = await startTestBot({
    workspaceFixtures: [demoWorkspace()],
    // No service credentials: the demo's first step enters them in the setup modal. The service
    // URLs are the emulator's, as a deployment's DWM_BASE_URL / SERVICE_API_BASE_URL would be.
    credentials: 'none',
    logLevel: opts.logLevel ?? 'info',
    env: ({ emulator }) => ({
      DWM_BASE_URL: emulator!.wmBaseUrl,
      SERVICE_API_BASE_URL: emulator!.serviceBaseUrl,
      // The demo's words for its failure codes (the product ships none: the specs give none).
      JOB_FAILURE_CODES: DEMO_JOB_FAILURE_CODES,
    }),
  });
  const emulator = bot.emulator!;
  let watch: WatchRuntime;
  try {
    // As in main.ts: background work uses the unbounded store.
    watch = createWatchRuntime({ ...bot.deps, store: bot.store }, bot.handle.app, {
      features: FEATURES,
      watcher: { jitter: 0, channelIntervalMs: 1100 },
    });
  } catch (e) {
    await bot.close();
    throw e;
  }
  const closeBot = bot.close;
  return Object.assign(bot, {
    emulator,
    watch,
    close: async () => {
      await watch.stop().catch(() => undefined);
      await closeBot();
    },
  });
}
