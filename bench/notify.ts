/**
 * Figure 4: notification latency. The real watcher (createWatcher, system clock, its own timer,
 * default 10% jitter) with the Slack side's poster (src/slack/poster.ts, WebClient to the fake
 * Slack) and Block Kit renderer (src/slack/features/watch/render-card.ts), wired by test/harness
 * startTestBot (store, emulator at 50 ms per call, fake Slack).
 *
 * Load: the 3 demo sites, each watched by 2 channels (6 channels, so the 1 message/s pacing per
 * channel is not the whole story); new jobs appear in the emulator at uniformly random moments of
 * a window (on random sites, about one per site per interval). Latency of each message = job
 * creation in the emulator -> the fake Slack recording the chat.postMessage of its card in that
 * channel (the metadata key names the job). REAL time with a 5 s interval (a 60 s interval would
 * need 20+ minutes for as many samples), so the goal scales: p95 <= interval + 2 s.
 *
 * Where the time goes, per message: `wait` = creation -> start of the site's next poll cycle
 * (seen at the service client: the cycle's first searchJobs), `after` = poll start -> post
 * recorded (the cycle's calls, the outbox, the channel pacing, the Slack call). Poll periods per
 * site are reported too. A model then gives the p95 at the production interval (60 s): a change
 * at a random moment waits the residual of the poll period, P(wait > w) = E[(P - w)+] / E[P].
 */
import type { ApiFactory, WatermarkingClient } from '../src/api/types.js';
import { loadCredentials } from '../src/ops/workspace.js';
import { blockRenderer } from '../src/slack/features/watch/render-card.js';
import { watchWords } from '../src/slack/kit/blocks/paused-reason.js';
import { createPosterFactory } from '../src/slack/poster.js';
import { createWatcher } from '../src/watch/index.js';
import { startTestBot } from '../test/harness/index.js';
import { type BenchContext, fmtMs, median, percentile, type Row, sleep } from './lib.js';

const JITTER = 0.1; // the watcher's default (WatcherOptions.jitter)

/** p-th percentile of the wait for the next poll when polls are spaced by `periods` (empirical). */
export function residualWaitPercentile(periods: readonly number[], p: number): number {
  const mean = periods.reduce((a, b) => a + b, 0) / periods.length;
  const tail = (w: number) => periods.reduce((a, x) => a + Math.max(0, x - w), 0) / periods.length / mean;
  let lo = 0;
  let hi = Math.max(...periods);
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (tail(mid) > 1 - p / 100) lo = mid;
    else hi = mid;
  }
  return hi;
}

export async function benchNotify(ctx: BenchContext): Promise<Row[]> {
  const intervalMs = ctx.quick ? 2000 : 5000;
  const windowMs = ctx.quick ? 6000 : 60_000;
  const bot = await startTestBot({ logLevel: 'warn' });
  const emu = bot.emulator;
  if (!emu) throw new Error('notify: the harness started no emulator');
  emu.setLatency(50);
  const ws = bot.ws.teamId;
  const sites = [...emu.demo.siteIds];
  const changes = Math.round((windowMs / intervalMs) * sites.length);

  // Poll starts per site: the first searchJobs of each cycle (the watcher takes one client per cycle).
  const pollStarts = new Map<string, number[]>(sites.map((s) => [s, []]));
  const api: ApiFactory = {
    ...bot.deps.api,
    watermarking: (creds) => {
      const inner = bot.deps.api.watermarking(creds);
      let seen = false;
      const client: WatermarkingClient = {
        ...inner,
        verify: (s) => inner.verify(s),
        getJob: (...a) => inner.getJob(...a),
        getJobTasks: (...a) => inner.getJobTasks(...a),
        searchRecipients: (...a) => inner.searchRecipients(...a),
        getRecipient: (...a) => inner.getRecipient(...a),
        registerRecipients: (...a) => inner.registerRecipients(...a),
        modifyRecipient: (...a) => inner.modifyRecipient(...a),
        searchJobs: (siteId, query) => {
          if (!seen) {
            seen = true;
            pollStarts.get(siteId)?.push(Date.now());
          }
          return inner.searchJobs(siteId, query);
        },
      };
      return client;
    },
  };

  const factory = createPosterFactory({ config: bot.config, store: bot.store, logger: bot.deps.logger });
  const watcher = createWatcher({
    store: bot.store,
    api,
    credentials: async (w) => (await loadCredentials(bot.deps, w))?.credentials,
    poster: (w) => factory.poster(w),
    renderer: blockRenderer,
    words: watchWords,
    intervalMs,
    holderId: 'bench-notify',
  });
  const channels: { id: string; site: string }[] = [];
  sites.forEach((site, i) => {
    for (const j of [1, 2]) {
      const id = `C0BENCH${i}${j}`;
      bot.fake.addChannel(ws, { id, name: `bench-${site.toLowerCase()}-${j}`, botIsMember: true });
      channels.push({ id, site });
    }
  });

  const created = new Map<number, { at: number; site: string }>();
  interface Delivery {
    jobId: number;
    channel: string;
    site: string;
    createdAt: number;
    postedAt: number;
  }
  const deliveries: Delivery[] = [];
  let lastSeq = 0;
  const seen = new Set<string>();
  const collect = () => {
    for (const c of bot.fake.calls('chat.postMessage')) {
      if (c.seq <= lastSeq) continue;
      lastSeq = c.seq;
      if (!c.ok) continue;
      const meta = c.args.metadata as { event_payload?: { key?: string } } | undefined;
      const jobId = Number(meta?.event_payload?.key?.split('|')[2]);
      const job = created.get(jobId);
      const channel = String(c.args.channel);
      if (!job || seen.has(`${jobId}|${channel}`)) continue;
      seen.add(`${jobId}|${channel}`);
      deliveries.push({ jobId, channel, site: job.site, createdAt: job.at, postedAt: c.at });
    }
  };
  const collector = setInterval(collect, 50);
  const timers: NodeJS.Timeout[] = [];
  try {
    for (const c of channels) {
      await watcher.subscriptions.create(ws, {
        channelId: c.id,
        siteId: c.site,
        filters: { statuses: [], mode: 'all' },
        createdBy: bot.ws.member,
      });
    }
    watcher.start();
    // Wait for the silent baseline poll of every site.
    for (let i = 0; i < 400; i++) {
      const st = await watcher.status();
      if (st.sites.filter((s) => s.lastPollAt !== undefined).length >= sites.length) break;
      await sleep(50);
    }
    // Changes at uniformly random moments of the window, on random sites.
    const t0 = Date.now();
    for (let i = 0; i < changes; i++) {
      const at = Math.random() * windowMs;
      const site = sites[Math.floor(Math.random() * sites.length)] as string;
      timers.push(
        setTimeout(() => {
          const id = emu.createJob(site, `notify-${t0}-${i}`, [{ recipient: 'bench-viewer' }]);
          created.set(id, { at: Date.now(), site });
        }, at),
      );
    }
    await sleep(windowMs + 50);
    const expected = () =>
      [...created.values()].reduce((n, j) => n + channels.filter((c) => c.site === j.site).length, 0);
    const deadline = Date.now() + 3 * intervalMs + 10_000;
    while (deliveries.length < expected() && Date.now() < deadline) {
      await sleep(100);
      collect();
    }
    collect();
    if (created.size < changes || deliveries.length < expected()) {
      throw new Error(
        `notify: ${expected() - deliveries.length} of ${expected()} messages never reached the fake Slack`,
      );
    }

    // Decomposition.
    const latencies = deliveries.map((d) => d.postedAt - d.createdAt);
    const waits: number[] = [];
    const after: number[] = [];
    for (const d of deliveries) {
      const start = (pollStarts.get(d.site) ?? []).find((t) => t >= d.createdAt);
      if (start === undefined || start > d.postedAt) continue;
      waits.push(start - d.createdAt);
      after.push(d.postedAt - start);
    }
    // Messages that waited for the pacing of their channel: posted < 1.2 s after the previous one.
    const byChannel = new Map<string, number[]>();
    for (const c of bot.fake.calls()) {
      if (!c.ok || (c.method !== 'chat.postMessage' && c.method !== 'chat.update')) continue;
      const ch = String(c.args.channel);
      byChannel.set(ch, [...(byChannel.get(ch) ?? []), c.at]);
    }
    const paced = deliveries.filter((d) => {
      const times = byChannel.get(d.channel) ?? [];
      const prev = times.filter((t) => t < d.postedAt).pop();
      return prev !== undefined && d.postedAt - prev < 1200;
    }).length;
    const periods: number[] = [];
    for (const starts of pollStarts.values()) {
      const inWindow = starts.filter((t) => t >= t0);
      for (let i = 1; i < inWindow.length; i++)
        periods.push((inWindow[i] as number) - (inWindow[i - 1] as number));
    }
    const p95 = percentile(latencies, 95);
    const p50 = percentile(latencies, 50);
    const goal = intervalMs + 2000;
    // Model at the production interval: period = 60 s x U(1 - j, 1 + j) + what a cycle adds
    // (measured: median poll period minus the interval), then the residual wait's p95 plus the
    // measured p95 of poll start -> post.
    const extra = Math.max(0, median(periods) - intervalMs);
    const prodInterval = 60_000;
    const modelPeriods = Array.from(
      { length: 1001 },
      (_, i) => prodInterval * (1 - JITTER + (2 * JITTER * i) / 1000) + extra,
    );
    const noJitter = [prodInterval + extra];
    const afterP95 = percentile(after, 95);
    const model60 = residualWaitPercentile(modelPeriods, 95) + afterP95;
    const model60NoJitter = residualWaitPercentile(noJitter, 95) + afterP95;
    const modelHere = residualWaitPercentile(periods, 95);
    ctx.log(
      `  notify: ${deliveries.length} messages, p50 ${fmtMs(p50)}, p95 ${fmtMs(p95)}, max ${fmtMs(Math.max(...latencies))}; wait p95 ${fmtMs(percentile(waits, 95))}, after-poll p95 ${fmtMs(afterP95)}; ${paced} paced`,
    );
    const pct = (xs: number[]) =>
      `p50 ${fmtMs(percentile(xs, 50))} / p95 ${fmtMs(percentile(xs, 95))} / max ${fmtMs(Math.max(...xs))}`;
    return [
      {
        figure: '4 notification p95',
        value: fmtMs(p95),
        reference: `interval ${fmtMs(intervalMs)}`,
        ratio: p95 / intervalMs,
        goal: `<= interval + 2 s (${fmtMs(goal)})`,
        pass: p95 <= goal,
        note:
          `${created.size} new jobs at uniformly random moments of ${fmtMs(windowMs)} on ${sites.length} sites, each site watched by 2 channels: ${deliveries.length} messages. REAL time, poll interval ${fmtMs(intervalMs)} (jitter +-${JITTER * 100}%), emulator latency 50 ms; job creation -> chat.postMessage at the fake Slack. ` +
          `Latency ${pct(latencies)}. Where it goes: wait for the site's next poll ${pct(waits)}; poll start -> post ${pct(after)}; ${paced} of ${deliveries.length} messages waited behind another message of their channel (1 msg/s pacing). ` +
          `Poll period per site ${pct(periods)} (interval +-10%: the next poll is due one interval after a cycle starts, and a site's paced deliveries do not hold up other sites' polls; plus the scheduler's timer floor of 200 ms); the residual of these periods alone has p95 ${fmtMs(modelHere)}. ` +
          `Model at the production interval of 60 s: p95 ~ ${fmtMs(model60)} with +-10% jitter, ${fmtMs(model60NoJitter)} without jitter, against a goal of 62.00 s (not measured: a 60 s run needs 20+ minutes).`,
      },
    ];
  } finally {
    for (const t of timers) clearTimeout(t);
    clearInterval(collector);
    await watcher.stop();
    await bot.close();
  }
}
