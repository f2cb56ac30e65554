/**
 * Figure 4: notification latency. The real watcher (createWatcher, system clock, its own timer)
 * with the Slack side's poster (src/slack/poster.ts, WebClient to the fake Slack) and Block Kit
 * renderer (src/slack/render/watch/card.ts), wired by test/harness startTestBot (store, emulator,
 * fake Slack). Jobs are created in the emulator at random moments; the latency of each is the
 * time from its creation to the fake Slack recording the chat.postMessage of its card (the key
 * in the message metadata names the job). REAL time with a short poll interval (5 s, jitter 10%),
 * so the goal scales: p95 <= interval + 2 s. Emulator latency 50 ms per call.
 */
import { loadCredentials } from '../src/ops/workspace.js';
import { createPosterFactory } from '../src/slack/poster.js';
import { blockRenderer } from '../src/slack/render/watch/card.js';
import { createWatcher } from '../src/watch/index.js';
import { startTestBot } from '../test/harness/index.js';
import { type BenchContext, fmtMs, percentile, type Row, sleep } from './lib.js';

export async function benchNotify(ctx: BenchContext): Promise<Row[]> {
  const intervalMs = ctx.quick ? 2000 : 5000;
  const changes = ctx.quick ? 3 : 20;
  const bot = await startTestBot({ logLevel: 'warn' });
  const emu = bot.emulator;
  if (!emu) throw new Error('notify: the harness started no emulator');
  emu.setLatency(50);
  const ws = bot.ws.teamId;
  const factory = createPosterFactory({ config: bot.config, store: bot.store, logger: bot.deps.logger });
  const watcher = createWatcher({
    store: bot.store,
    api: bot.deps.api,
    credentials: async (w) => (await loadCredentials(bot.deps, w))?.credentials,
    poster: (w) => factory.poster(w),
    renderer: blockRenderer,
    intervalMs,
    holderId: 'bench-notify',
  });
  const created = new Map<number, number>();
  const latencies: number[] = [];
  const site = emu.demo.defaultSiteId;
  const stopListening = (() => {
    const seen = new Set<number>();
    const timer = setInterval(() => {
      for (const c of bot.fake.calls('chat.postMessage')) {
        if (!c.ok) continue;
        const meta = c.args.metadata as { event_payload?: { key?: string } } | undefined;
        const key = meta?.event_payload?.key;
        const jobId = Number(key?.split('|')[2]);
        const t0 = created.get(jobId);
        if (t0 === undefined || seen.has(jobId)) continue;
        seen.add(jobId);
        latencies.push(c.at - t0);
      }
    }, 100);
    return () => clearInterval(timer);
  })();
  try {
    await watcher.subscriptions.create(ws, {
      channelId: bot.ws.channel,
      siteId: site,
      filters: { statuses: [], mode: 'all' },
      createdBy: bot.ws.member,
    });
    watcher.start();
    // Wait for the silent baseline poll.
    for (let i = 0; i < 200; i++) {
      const st = await watcher.status();
      if (st.sites.some((s) => s.lastPollAt !== undefined)) break;
      await sleep(50);
    }
    for (let i = 0; i < changes; i++) {
      // Random moments: on average two per interval, never aligned with the poll timer.
      await sleep(Math.random() * intervalMs);
      const id = emu.createJob(site, `notify-${Date.now()}-${i}`, [{ recipient: 'bench-viewer' }]);
      created.set(id, Date.now());
    }
    const deadline = Date.now() + 3 * intervalMs + 10_000;
    while (latencies.length < changes && Date.now() < deadline) await sleep(100);
    if (latencies.length < changes) {
      throw new Error(
        `notify: ${changes - latencies.length} of ${changes} jobs never reached the fake Slack`,
      );
    }
    const p95 = percentile(latencies, 95);
    const p50 = percentile(latencies, 50);
    const goal = intervalMs + 2000;
    ctx.log(`  notify: p50 ${fmtMs(p50)}, p95 ${fmtMs(p95)}, max ${fmtMs(Math.max(...latencies))}`);
    return [
      {
        figure: '4 notification p95',
        value: fmtMs(p95),
        reference: `interval ${fmtMs(intervalMs)}`,
        ratio: p95 / intervalMs,
        goal: `<= interval + 2 s (${fmtMs(goal)})`,
        pass: p95 <= goal,
        note: `${changes} new jobs at random moments, REAL time, poll interval ${fmtMs(intervalMs)} (jitter 10%), emulator latency 50 ms; job creation to chat.postMessage at the fake Slack. p50 ${fmtMs(p50)}, max ${fmtMs(Math.max(...latencies))}. Expected: uniform wait for the next poll (mean interval/2, worst interval x 1.1) + one cycle + one post.`,
      },
    ];
  } finally {
    stopListening();
    await watcher.stop();
    await bot.close();
  }
}
