/**
 * Figure 1's system under test, one per process (started by bench/ack.ts):
 * - `real`: the production entry `startBot` (src/main.ts) with the given environment: config,
 *   memory store, API clients, `createSlackApp` with every real listener, the watch runtime and
 *   the registration resume, logging at the configured level to stdout (the parent reads it).
 * - `bare`: a Bolt app with the same HTTPReceiver set-up (processBeforeResponse false) whose only
 *   listeners ack `/dwm` and `/drm`.
 *
 * RPC methods: `start` -> { port }; `sample` -> CPU time and event-loop delay since the last
 * sample; `stop`.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { App, LogLevel } from '@slack/bolt';
import { z } from 'zod';
import { serveRpc } from './child.js';

const startParams = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('real'), env: z.record(z.string(), z.string()) }),
  z.object({
    mode: z.literal('bare'),
    signingSecret: z.string(),
    botToken: z.string(),
    botId: z.string(),
    botUserId: z.string(),
    apiUrl: z.string(),
  }),
]);

let stopFn: (() => Promise<void>) | undefined;
const loop = monitorEventLoopDelay({ resolution: 10 });
let cpu0 = process.cpuUsage();

serveRpc({
  async start(params) {
    const p = startParams.parse(params);
    if (p.mode === 'real') {
      // src/main.ts runs main() when it is the process entry (argv[1] is its own URL); in a
      // bundle every module shares the bundle's URL, so point argv[1] elsewhere before loading it.
      process.argv[1] = '/bench/ack-app';
      const { startBot } = await import('../src/main.js');
      const bot = await startBot({ env: p.env });
      stopFn = () => bot.shutdown('bench done');
      return { port: bot.port };
    }
    const app = new App({
      signingSecret: p.signingSecret,
      token: p.botToken,
      botId: p.botId,
      botUserId: p.botUserId,
      tokenVerificationEnabled: false,
      processBeforeResponse: false,
      logLevel: LogLevel.ERROR,
      clientOptions: { slackApiUrl: p.apiUrl, retryConfig: { retries: 0 } },
    });
    for (const c of ['/dwm', '/drm']) {
      app.command(c, async ({ ack }) => {
        await ack();
      });
    }
    const server = (await app.start({ port: 0, host: '127.0.0.1' })) as import('node:http').Server;
    stopFn = () => app.stop().then(() => undefined);
    return { port: (server.address() as import('node:net').AddressInfo).port };
  },
  sample() {
    const cpu = process.cpuUsage(cpu0);
    cpu0 = process.cpuUsage();
    const out = {
      cpuMs: (cpu.user + cpu.system) / 1000,
      loopP99Ms: loop.count > 0 ? loop.percentile(99) / 1e6 : 0,
      loopMaxMs: loop.count > 0 ? loop.max / 1e6 : 0,
      rssMb: process.memoryUsage().rss / 2 ** 20,
    };
    loop.reset();
    return out;
  },
  async stop() {
    loop.disable();
    await stopFn?.();
    // Exit once the answer is out (a --cpu-prof profile is written at exit).
    setTimeout(() => process.exit(0), 100).unref();
    return {};
  },
});
loop.enable();
