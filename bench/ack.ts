/**
 * Figure 1: ack latency. N correctly signed `/dwm jobs` slash commands at concurrency 50 into the
 * HTTP receiver of the REAL app versus a bare Bolt app whose only listener acks, in the same run.
 *
 * Three kinds of process, so the measurement is of the app and not of the harness:
 * - this process: the load generator only (undici Pool, 50 connections; it signs each request and
 *   times it from send to the end of the ack response);
 * - bench/ack-fakes.ts: the service emulator (200 ms added per call) and the fake Slack that
 *   receives the real app's response_url answers;
 * - bench/ack-app.ts, twice: the real app (the production entry `startBot` from src/main.ts with a
 *   memory store, the emulator and the fake Slack configured through its environment) and the bare
 *   Bolt app, each in its own process, compiled JS under plain node.
 *
 * Rounds alternate real, bare, real, bare... (ABAB) so the machine's noise hits both alike; p50 and
 * p99 are medians over the rounds of each round's percentile, max is over every request. Every
 * command gets its own response_url (Slack's are single-command, 5 uses). After each real round the
 * suite waits until all of that round's answers reached the fake Slack (the app's handlers queue on
 * the API's 16 connections at 200 ms per emulator call), so every round starts with an idle app.
 */
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { z } from 'zod';
import { slackSignature } from '../test/harness/index.js';
import { type RpcChild, startRpcChild } from './child.js';
import { type BenchContext, fmtMs, median, percentile, type Row, sleep } from './lib.js';

const CONCURRENCY = 50;
const EMULATOR_LATENCY_MS = 200;
const TEXT = 'jobs';

const fakesStarted = z.object({
  apiUrl: z.string(),
  wmBaseUrl: z.string(),
  serviceBaseUrl: z.string(),
  demo: z.object({
    siteIds: z.array(z.string()),
    defaultSiteId: z.string(),
    watermarking: z.object({ accountId: z.string(), accessKey: z.string() }),
    service: z.object({ accountId: z.string(), accountSeq: z.string(), secretKey: z.string() }),
  }),
  ws: z.object({
    teamId: z.string(),
    teamDomain: z.string(),
    botToken: z.string(),
    botId: z.string(),
    botUserId: z.string(),
    member: z.string(),
    channel: z.string(),
  }),
  keepAlive: z.boolean(),
});
type Fakes = z.infer<typeof fakesStarted>;
const issued = z.object({ responseUrls: z.array(z.string()), triggerId: z.string() });
const fakeStats = z.object({
  ok: z.number().int(),
  failed: z.number().int(),
  errors: z.record(z.string(), z.number()),
  slackCalls: z.record(z.string(), z.number()),
  emulatorRequests: z.number().int(),
});
const started = z.object({ port: z.number().int() });
const sampleSchema = z.object({
  cpuMs: z.number(),
  loopP99Ms: z.number(),
  loopMaxMs: z.number(),
  rssMb: z.number(),
});
type Sample = z.infer<typeof sampleSchema>;
const empty = z.object({});

interface Target {
  url: string;
  secret: string;
}

/** Sends the bodies with `CONCURRENCY` workers; returns each request's latency (ms). */
async function load(
  target: Target,
  bodies: readonly string[],
): Promise<{ latencies: number[]; failures: number }> {
  const pool = new Pool(target.url, { connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  try {
    const worker = async () => {
      while (next < bodies.length) {
        const body = bodies[next++] as string;
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

/** The real app's environment: production config, memory store, emulator and fake Slack URLs. */
function realEnv(f: Fakes, signingSecret: string): Record<string, string> {
  return {
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: f.apiUrl,
    SLACK_BOT_TOKEN: f.ws.botToken,
    SLACK_BOT_ID: f.ws.botId,
    SLACK_BOT_USER_ID: f.ws.botUserId,
    PORT: '0',
    HOST: '127.0.0.1',
    STORE_URL: 'memory://',
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // Production's level: quiet on success (the parent counts warn+ lines in the child's output).
    LOG_LEVEL: 'info',
    DWM_SITE_IDS: f.demo.siteIds.join(','),
    DWM_DEFAULT_SITE: f.demo.defaultSiteId,
    DWM_BASE_URL: f.wmBaseUrl,
    DWM_ACCOUNT_ID: f.demo.watermarking.accountId,
    DWM_ACCESS_KEY: f.demo.watermarking.accessKey,
    SERVICE_API_BASE_URL: f.serviceBaseUrl,
    SERVICE_API_ACCOUNT_ID: f.demo.service.accountId,
    SERVICE_API_ACCOUNT_SEQ: f.demo.service.accountSeq,
    SERVICE_API_SECRET_KEY: f.demo.service.secretKey,
  };
}

/**
 * Profiling knob (not used by the suite's figures): BENCH_ACK_PROFILE=DIR starts both apps with
 * `--cpu-prof --cpu-prof-dir=DIR/<real|bare>` (open the .cpuprofile files in Chrome DevTools).
 */
function appNodeArgs(side: 'real' | 'bare'): string[] {
  const dir = process.env.BENCH_ACK_PROFILE;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}/${side}`] : [];
}

export async function benchAck(ctx: BenchContext): Promise<Row[]> {
  const n = ctx.quick ? 100 : 2000;
  const rounds = ctx.quick ? 1 : 3;
  const warmup = Math.min(100, n);
  const signingSecret = randomBytes(16).toString('hex');
  const children: RpcChild[] = [];
  try {
    // Start the three processes at once (start-up is not measured).
    const [fakes, realApp, bareApp] = await Promise.all([
      startRpcChild('ack-fakes'),
      startRpcChild('ack-app', { nodeArgs: appNodeArgs('real') }),
      startRpcChild('ack-app', { nodeArgs: appNodeArgs('bare') }),
    ]);
    children.push(fakes, realApp, bareApp);
    const f = await fakes.call('start', { latencyMs: EMULATOR_LATENCY_MS }, fakesStarted);
    const [realPort, barePort] = await Promise.all([
      realApp.call('start', { mode: 'real', env: realEnv(f, signingSecret) }, started),
      bareApp.call(
        'start',
        {
          mode: 'bare',
          signingSecret,
          botToken: f.ws.botToken,
          botId: f.ws.botId,
          botUserId: f.ws.botUserId,
          apiUrl: f.apiUrl,
        },
        started,
      ),
    ]);
    const targets = {
      real: { url: `http://127.0.0.1:${realPort.port}`, secret: signingSecret },
      bare: { url: `http://127.0.0.1:${barePort.port}`, secret: signingSecret },
    } satisfies Record<string, Target>;
    const apps = { real: realApp, bare: bareApp };

    /** n signed-later bodies, each with its own response_url (issued by the fake Slack). */
    const bodiesFor = async (count: number): Promise<string[]> => {
      const { responseUrls, triggerId } = await fakes.call('issue', { count }, issued);
      return responseUrls.map((responseUrl) =>
        new URLSearchParams({
          token: 'deprecated-verification-token',
          team_id: f.ws.teamId,
          team_domain: f.ws.teamDomain,
          channel_id: f.ws.channel,
          channel_name: f.ws.channel.toLowerCase(),
          user_id: f.ws.member,
          user_name: f.ws.member.toLowerCase(),
          command: '/dwm',
          text: TEXT,
          api_app_id: 'A0FAKEAPP',
          is_enterprise_install: 'false',
          response_url: responseUrl,
          trigger_id: triggerId,
        }).toString(),
      );
    };

    let answersExpected = 0;
    /** Waits until the fake Slack holds an answer for every command the real app acked so far. */
    const drain = async (): Promise<number> => {
      const t = performance.now();
      const deadline = Date.now() + 120_000;
      for (;;) {
        const s = await fakes.call('stats', {}, fakeStats);
        if (s.ok + s.failed >= answersExpected) break;
        if (Date.now() > deadline) {
          throw new Error(
            `ack: the real app answered ${s.ok + s.failed} of ${answersExpected} commands within 120 s`,
          );
        }
        await sleep(200);
      }
      return performance.now() - t;
    };

    // Warm-up (JIT, connections, the service token), not measured.
    for (const side of ['real', 'bare'] as const) {
      const out = await load(targets[side], await bodiesFor(warmup));
      if (out.failures) throw new Error(`ack: ${out.failures} warm-up requests to the ${side} app failed`);
      if (side === 'real') {
        answersExpected += warmup;
        await drain();
      }
    }
    const before = await fakes.call('stats', {}, fakeStats);

    const p50 = { real: [] as number[], bare: [] as number[] };
    const p99 = { real: [] as number[], bare: [] as number[] };
    const max = { real: 0, bare: 0 };
    const samples = { real: [] as Sample[], bare: [] as Sample[] };
    const drainMs: number[] = [];
    const answerCpuMs: number[] = [];
    let failures = 0;
    for (let r = 0; r < rounds; r++) {
      for (const side of ['real', 'bare'] as const) {
        const bodies = await bodiesFor(n);
        await apps[side].call('sample', {}, sampleSchema); // reset the child's counters
        const out = await load(targets[side], bodies);
        const s = await apps[side].call('sample', {}, sampleSchema);
        samples[side].push(s);
        failures += out.failures;
        const rp50 = percentile(out.latencies, 50);
        const rp99 = percentile(out.latencies, 99);
        const mx = Math.max(...out.latencies);
        p50[side].push(rp50);
        p99[side].push(rp99);
        max[side] = Math.max(max[side], mx);
        ctx.log(
          `  ack round ${r + 1}/${rounds} ${side}: p50 ${fmtMs(rp50)}, p99 ${fmtMs(rp99)}, max ${fmtMs(mx)}; app CPU ${fmtMs(s.cpuMs)}, event-loop delay p99 ${fmtMs(s.loopP99Ms)}${out.failures ? `, ${out.failures} failed` : ''}`,
        );
        if (side === 'real') {
          answersExpected += n - out.failures;
          drainMs.push(await drain());
          // The real app's CPU from the end of the round until its last answer: the post-ack work
          // (handler queue, service calls, answers) that did not run during the round.
          answerCpuMs.push((await apps.real.call('sample', {}, sampleSchema)).cpuMs);
          await sleep(300);
        }
      }
    }
    if (failures > 0) throw new Error(`ack: ${failures} requests failed (non-200 or transport error)`);
    const after = await fakes.call('stats', {}, fakeStats);
    const answered = after.ok - before.ok;
    const answerFailures = after.failed - before.failed;
    const emuCalls = after.emulatorRequests - before.emulatorRequests;
    const rp50 = median(p50.real);
    const bp50 = median(p50.bare);
    const rp99 = median(p99.real);
    const bp99 = median(p99.bare);
    const cpu = (side: 'real' | 'bare') => median(samples[side].map((s) => s.cpuMs));
    const loopP99 = (side: 'real' | 'bare') => median(samples[side].map((s) => s.loopP99Ms));
    const list = (xs: number[]) => xs.map((x) => fmtMs(x)).join(', ');
    const note =
      `\`/dwm ${TEXT}\`, N=${n} per round at concurrency ${CONCURRENCY}, ${rounds} rounds per app alternating real/bare (ABAB), ${warmup} warm-up requests each. ` +
      `Each app in its own process (${realApp.runtime}); the load generator alone in the parent; emulator (${EMULATOR_LATENCY_MS} ms per call) and fake Slack in a third process. ` +
      `Per round p99: real ${list(p99.real)}; bare ${list(p99.bare)}. ` +
      `App CPU per round (median): real ${fmtMs(cpu('real'))}, bare ${fmtMs(cpu('bare'))}; event-loop delay p99 during the round: real ${fmtMs(loopP99('real'))}, bare ${fmtMs(loopP99('bare'))}. ` +
      `The real app made ${emuCalls} emulator calls and ${answered} response_url answers (${answerFailures} refused by the fake Slack${answerFailures ? `: ${JSON.stringify(after.errors)}` : ''}) for ${rounds * n} commands; ` +
      `its answers finished a median ${fmtMs(median(drainMs))} after the last ack of a round (the next round waited for that); ${realApp.warnLines()} warn/error log lines; Web API calls at the fake Slack (whole run): ${JSON.stringify(after.slackCalls)}. ` +
      (f.keepAlive
        ? 'The fake Slack keeps connections alive like Slack (65 s idle timeout; its default 1 s made the app reconnect for every answer).'
        : 'The fake Slack kept its 1 s keep-alive: the app opens a new connection for every answer (not like Slack).');
    return [
      {
        id: 'ack.p50.ratio',
        num: rp50 / bp50,
        unit: 'ratio',
        refNum: 1.5,
        figure: '1 ack p50',
        value: fmtMs(rp50),
        reference: `bare Bolt ${fmtMs(bp50)}`,
        ratio: rp50 / bp50,
        goal: 'ratio <= 1.5',
        pass: rp50 / bp50 <= 1.5,
        note,
      },
      {
        id: 'ack.cpu.ratio',
        num: cpu('real') / cpu('bare'),
        unit: 'ratio',
        refNum: 2,
        figure: '1 ack app CPU/command',
        value: fmtMs(cpu('real') / n),
        reference: `bare Bolt ${fmtMs(cpu('bare') / n)}`,
        ratio: cpu('real') / cpu('bare'),
        goal: 'ratio <= 2',
        pass: cpu('real') / cpu('bare') <= 2,
      },
      {
        figure: '1 ack+answer app CPU/command',
        value: fmtMs((cpu('real') + median(answerCpuMs)) / n),
        reference: `bare Bolt ${fmtMs(cpu('bare') / n)}`,
        ratio: (cpu('real') + median(answerCpuMs)) / cpu('bare'),
        goal: 'info (the whole command)',
        pass: undefined,
        note: `The real app's CPU per command including its post-ack work (the service call, rendering and the response_url answer, most of which runs after the round through the handler queue): round CPU plus the CPU from the round's end to its last answer, medians over rounds (after the rounds: ${answerCpuMs.map((x) => fmtMs(x)).join(', ')}). The bare app does no post-ack work; the ack.cpu.ratio row counts the CPU during the rounds only.`,
      },
      {
        figure: '1 ack p99',
        value: fmtMs(rp99),
        reference: `bare Bolt ${fmtMs(bp99)}`,
        ratio: rp99 / bp99,
        goal: 'ratio <= 1.25',
        pass: rp99 / bp99 <= 1.25,
      },
      {
        figure: '1 ack max',
        value: fmtMs(max.real),
        reference: `bare Bolt ${fmtMs(max.bare)}`,
        ratio: max.real / max.bare,
        goal: '< 3 s (every ack)',
        pass: max.real < 3000,
      },
    ];
  } finally {
    // Apps first (graceful shutdown), then the fakes.
    for (const c of [...children].reverse()) {
      const method = c === children[0] ? 'close' : 'stop';
      await c.call(method, {}, empty, 15_000).catch(() => undefined);
      await c.stop();
    }
  }
}
