/**
 * Figure 1: ack latency. N correctly signed slash commands (`/dwm <command>`) at concurrency 50
 * into the HTTP receiver of the REAL app (createSlackApp with the real listeners, memory store,
 * the emulator adding 200 ms per call, the fake Slack for response_url answers: all built by
 * test/harness startTestBot) versus a bare Bolt app whose only listener acks. Both live in this
 * process next to the load generator and are measured in alternating rounds of the same run; the
 * figures are medians over the rounds of each round's p50 and p99, the max is over every request.
 *
 * Acks go out before the handler runs (processBeforeResponse false), so the real app's handler
 * work (store reads, emulator calls, response_url posts) competes with the acks on the event loop:
 * that is what the ratio shows.
 */
import { createServer } from 'node:net';
import { App, LogLevel } from '@slack/bolt';
import { Pool } from 'undici';
import { registry } from '../src/slack/registry.js';
import { slackSignature, startTestBot, type TestBot } from '../test/harness/index.js';
import { type BenchContext, fmtMs, median, percentile, type Row, totalRequests } from './lib.js';

const CONCURRENCY = 50;

interface Target {
  url: string;
  secret: string;
}

/** Sends n signed commands with `concurrency` workers; returns each request's latency (ms). */
async function load(
  target: Target,
  bodies: () => string,
  n: number,
): Promise<{ latencies: number[]; failures: number }> {
  const pool = new Pool(target.url, { connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  try {
    const worker = async () => {
      while (next < n) {
        next++;
        const body = bodies();
        const ts = Math.floor(Date.now() / 1000);
        const headers = {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(ts),
          'x-slack-signature': slackSignature(target.secret, ts, body),
        };
        const t = performance.now();
        try {
          const res = await pool.request({ path: '/slack/events', method: 'POST', headers, body });
          await res.body.text();
          const ms = performance.now() - t;
          if (res.statusCode !== 200) failures++;
          else latencies.push(ms);
        } catch {
          failures++;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await pool.close();
  }
  return { latencies, failures };
}

async function freePortCheck(): Promise<void> {
  // Loopback only: make sure 127.0.0.1 is bindable before starting the apps.
  await new Promise<void>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => s.close(() => resolve()));
  });
}

async function startBareBolt(bot: TestBot): Promise<{ url: string; stop: () => Promise<void> }> {
  const app = new App({
    signingSecret: bot.signingSecret,
    token: bot.ws.botToken,
    botId: bot.ws.botId,
    botUserId: bot.ws.botUserId,
    tokenVerificationEnabled: false,
    processBeforeResponse: false,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: bot.fake.apiUrl, retryConfig: { retries: 0 } },
  });
  for (const c of ['/dwm', '/drm']) {
    app.command(c, async ({ ack }) => {
      await ack();
    });
  }
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as import('node:http').Server;
  const addr = server.address() as import('node:net').AddressInfo;
  return { url: `http://127.0.0.1:${addr.port}`, stop: () => app.stop().then(() => undefined) };
}

export async function benchAck(ctx: BenchContext): Promise<Row[]> {
  const n = ctx.quick ? 100 : 2000;
  const rounds = ctx.quick ? 1 : 3;
  await freePortCheck();
  const bot = await startTestBot({ logLevel: 'warn' });
  let bare: { url: string; stop: () => Promise<void> } | undefined;
  try {
    const emu = bot.emulator;
    if (!emu) throw new Error('ack: the harness started no emulator');
    emu.setLatency(200);
    // The command: `jobs` (reads jobs from the emulator) when that command exists; otherwise
    // `setup status` (store read + response_url answer, no emulator call). The note says which.
    const text = registry.find('/dwm', ['jobs']) ? 'jobs' : 'setup status';
    const ws = bot.ws;
    const bodies = () =>
      new URLSearchParams({
        token: 'deprecated-verification-token',
        team_id: ws.teamId,
        team_domain: ws.teamDomain,
        channel_id: ws.channel,
        channel_name: ws.channel.toLowerCase(),
        user_id: ws.member,
        user_name: ws.member.toLowerCase(),
        command: '/dwm',
        text,
        api_app_id: 'A0FAKEAPP',
        is_enterprise_install: 'false',
        response_url: bot.fake.responseUrl(ws.teamId, { channel: ws.channel, userId: ws.member }),
        trigger_id: bot.fake.issueTrigger(ws.teamId, ws.member),
      }).toString();
    bare = await startBareBolt(bot);
    const real: Target = { url: bot.url, secret: bot.signingSecret };
    const ref: Target = { url: bare.url, secret: bot.signingSecret };
    // Warm-up (JIT, connections), not measured.
    await load(ref, bodies, Math.min(100, n));
    await load(real, bodies, Math.min(100, n));
    await new Promise((r) => setTimeout(r, 500));

    const p50: { real: number[]; ref: number[] } = { real: [], ref: [] };
    const p99: { real: number[]; ref: number[] } = { real: [], ref: [] };
    let maxReal = 0;
    let maxRef = 0;
    let failures = 0;
    emu.resetRequestCounts();
    const responsesBefore = bot.fake.calls('response_url').length;
    let realSent = 0;
    const drainMs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // Alternate the order so neither side always runs on a warmer (or more loaded) process.
      const order: Array<'real' | 'ref'> = r % 2 === 0 ? ['ref', 'real'] : ['real', 'ref'];
      for (const side of order) {
        const out = await load(side === 'real' ? real : ref, bodies, n);
        failures += out.failures;
        p50[side].push(percentile(out.latencies, 50));
        p99[side].push(percentile(out.latencies, 99));
        const mx = Math.max(...out.latencies);
        if (side === 'real') maxReal = Math.max(maxReal, mx);
        else maxRef = Math.max(maxRef, mx);
        ctx.log(
          `  ack round ${r + 1}/${rounds} ${side === 'real' ? 'real app' : 'bare Bolt'}: p50 ${fmtMs(percentile(out.latencies, 50))}, p99 ${fmtMs(percentile(out.latencies, 99))}, max ${fmtMs(mx)}${out.failures ? `, ${out.failures} failed` : ''}`,
        );
        // Let the real app's background work of this round (handlers waiting on the emulator
        // through the API's connection pool) finish before the next round, so it does not load
        // the other side's measurement.
        if (side === 'real') {
          realSent += n;
          const t = performance.now();
          const deadline = Date.now() + 90_000;
          while (
            bot.fake.calls('response_url').length - responsesBefore < realSent &&
            Date.now() < deadline
          ) {
            await new Promise((res) => setTimeout(res, 100));
          }
          drainMs.push(performance.now() - t);
          await new Promise((res) => setTimeout(res, 300));
        }
      }
    }
    const emuCalls = totalRequests(emu.requestCounts());
    const responses = bot.fake.calls('response_url').length - responsesBefore;
    if (failures > 0) throw new Error(`ack: ${failures} requests failed (non-200 or transport error)`);
    const rp50 = median(p50.real);
    const fp50 = median(p50.ref);
    const rp99 = median(p99.real);
    const fp99 = median(p99.ref);
    const note =
      `\`/dwm ${text}\`, N=${n} per round, concurrency ${CONCURRENCY}, ${rounds} alternating round(s), load generator, both apps, emulator and fake Slack in one process. ` +
      `During the measured rounds the real app made ${emuCalls} emulator call(s) (latency 200 ms each) and ${responses} response_url answer(s) for ${realSent} commands; its answers finished a median ${fmtMs(median(drainMs))} after the last ack of a round (the next round waited for that)` +
      (text === 'jobs'
        ? '.'
        : '; `jobs` was not registered yet, so the command does not reach the emulator.');
    return [
      {
        figure: '1 ack p50',
        value: fmtMs(rp50),
        reference: `bare Bolt ${fmtMs(fp50)}`,
        ratio: rp50 / fp50,
        goal: 'info',
        pass: undefined,
        note,
      },
      {
        figure: '1 ack p99',
        value: fmtMs(rp99),
        reference: `bare Bolt ${fmtMs(fp99)}`,
        ratio: rp99 / fp99,
        goal: 'ratio <= 1.25',
        pass: rp99 / fp99 <= 1.25,
      },
      {
        figure: '1 ack max',
        value: fmtMs(maxReal),
        reference: `bare Bolt ${fmtMs(maxRef)}`,
        ratio: maxReal / maxRef,
        goal: '< 3 s (every ack)',
        pass: maxReal < 3000,
      },
    ];
  } finally {
    await bare?.stop();
    await bot.close();
  }
}
