/**
 * Service faults: 5xx bursts, timeouts past Slack's 3 s, connection resets, malformed JSON, wrong
 * envelope shapes, 401 on a cached token mid-session, 401/403 for good, service error codes.
 * Through the real app: every registry command (as an admin) plus a probe command that reads the
 * service still acks in time and answers with a clear error. Through the watcher: the poller backs
 * off while the service fails and resumes (nothing lost) once it recovers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../dev/emulator/types.js';
import { FEATURES } from '../../src/slack/features/index.js';
import { commandList } from '../../src/slack/kit/commands/registry.js';
import { type Feature, registerFeatures } from '../../src/slack/kit/features.js';
import { startTestBot, type TestBot } from '../harness/index.js';
import { lastSeq } from '../support/slack.js';
import { registryCases, said, waitReplies } from './support/bot.js';
import { scenario } from './support/summary.js';
import { unhandledSoFar } from './support/unhandled.js';
import { completeness, SITE, startWatchRig, subscribeAll } from './support/watch.js';

const PROBE = 'faults-probe';

/** Everything sent through one command's own response_url, as text. */
function ownReply(bot: TestBot, responseUrl: string): string {
  const id = decodeURIComponent(responseUrl.split('/response/')[1] ?? '');
  return bot.fake
    .responses()
    .filter((x) => x.ok && decodeURIComponent(x.id) === id)
    .map((x) => JSON.stringify(x.body))
    .join('\n');
}

/** An error card (what failed / why / next). */
const isErrorCard = (text: string) =>
  /"blocks":\[\{"type":"section","text":\{"type":"mrkdwn","text":":warning: \*/.test(text);
/** Signs of a broken reply: internals leaking into what the user reads. */
const BROKEN = /undefined|\[object Object\]|NaN|\n\s+at [\w<]|TypeError|ReferenceError/;

interface FaultCase {
  name: string;
  rules: FaultRule[];
  expireTokens?: boolean;
  /** What the probe's reply must say (a clear error), or 'ok' when the bot must recover. */
  expect: RegExp | 'ok';
}

const CASES: FaultCase[] = [
  { name: '5xx burst (503 on every call)', rules: [{ status: 503 }], expect: /HTTP 503/ },
  { name: 'one 503 then healthy (retried GET)', rules: [{ status: 503, times: 1 }], expect: 'ok' },
  {
    name: 'slow: 3.5 s > timeout, past Slack 3 s',
    rules: [{ latencyMs: 3500 }],
    expect:
      /Can't reach the (watermarking|DRM) service right now|could not be reached or did not answer in time/,
  },
  {
    name: 'connection reset',
    rules: [{ drop: true }],
    expect:
      /Can't reach the (watermarking|DRM) service right now|could not be reached or did not answer in time/,
  },
  { name: 'malformed JSON', rules: [{ malformed: true }], expect: /unexpected format/ },
  {
    name: 'wrong envelope shape',
    rules: [{ body: { result: 'ok', items: 'nope' } }],
    expect: /unexpected format/,
  },
  {
    name: '401 on the cached token mid-session',
    rules: [],
    expireTokens: true,
    expect: 'ok',
  },
  { name: '401 for good', rules: [{ status: 401 }], expect: /refused the saved credentials/ },
  { name: '403', rules: [{ status: 403 }], expect: /does not have permission/ },
  {
    name: 'service error code',
    rules: [{ errorCode: { code: 'E9999', message: 'Temporary failure <!channel>' } }],
    expect: /E9999/,
  },
];

describe('commands under service faults', () => {
  let bot: TestBot;
  /** Commands whose answer has no error card when the service is healthy. */
  const cleanWithoutFaults = new Set<string>();
  beforeAll(async () => {
    // A test-only feature with a probe command that reads the service.
    const list = commandList();
    list.add({
      command: '/dwm',
      path: [PROBE],
      args: {},
      role: 'member',
      summary: 'faults suite only: read the service',
      hidden: true,
      async handler(ctx) {
        const c = await ctx.clients();
        const page = await c.watermarking().searchJobs(c.site(), { pageUnit: 1 });
        await ctx.respond({ text: `probe ok: ${page.totalCount} jobs` });
      },
    });
    const probe: Feature = { name: 'faults-probe', commands: list.done() };
    bot = await startTestBot({
      register: (app, deps) => void registerFeatures(app, deps, [...FEATURES, probe]),
      apiOptions: { timeouts: { headersMs: 2000, bodyMs: 2000 }, retries: { max: 1, baseMs: 10 } },
    });
    // Warm the token cache so "401 mid-session" hits a cached token.
    const seq = lastSeq(bot);
    await bot.command(PROBE);
    expect(said(await waitReplies(bot, seq))).toContain('probe ok');
    // Baseline without faults: which commands answer without an error card (their example texts
    // may name a job that does not exist or a mention that is not one: those stay errors).
    // Twice: a command that changes upstream state (a request made, a member added) fails the
    // second time for its own reasons and is not judged.
    const runAll = async () => {
      const sent = await Promise.all(
        registryCases((e) => !e.hidden).map(async (c) => ({
          c,
          r: await bot.command(c.text, { command: c.command, user: bot.ws.admin }),
        })),
      );
      const answered = ({ r }: (typeof sent)[number]) =>
        ownReply(bot, r.responseUrl) !== '' ||
        bot.fake.calls('views.open').some((x) => x.args.trigger_id === r.triggerId);
      for (let waited = 0; waited < 20_000 && !sent.every(answered); waited += 100) {
        await new Promise((res) => setTimeout(res, 100));
      }
      return new Set(
        sent.filter(({ r }) => !isErrorCard(ownReply(bot, r.responseUrl))).map(({ c }) => c.name),
      );
    };
    const first = await runAll();
    const second = await runAll();
    for (const name of first) if (second.has(name)) cleanWithoutFaults.add(name);
  });
  afterAll(async () => {
    await bot?.close();
  });

  for (const fc of CASES) {
    it(`${fc.name}: every command acks in time and answers clearly`, async () => {
      const cases = registryCases((e) => !e.hidden);
      await scenario(
        {
          scenario: `service: ${fc.name}`,
          injected: `emulator ${JSON.stringify(fc.rules)}${fc.expireTokens ? ' + expireTokens' : ''}`,
        },
        async () => {
          const emu = bot.emulator!;
          emu.faults.clear();
          for (const r of fc.rules) emu.faults.add(r);
          if (fc.expireTokens) emu.expireTokens();
          try {
            const problems: string[] = [];
            // The probe first (alone, so its reply is unambiguous), then every command at once.
            const seq = lastSeq(bot);
            const probe = await bot.command(PROBE);
            if (probe.status !== 200 || probe.ackMs >= 3000)
              problems.push(`probe ack ${probe.status} in ${probe.ackMs} ms`);
            const replies = said(await waitReplies(bot, seq, { timeoutMs: 15_000 }));
            if (fc.expect === 'ok') {
              if (!replies.includes('probe ok'))
                problems.push(`probe did not recover: ${replies.slice(0, 200)}`);
            } else if (!fc.expect.test(replies)) {
              problems.push(`probe reply not clear: ${replies.slice(0, 300)}`);
            }
            if (BROKEN.test(replies)) problems.push(`probe reply shows internals: ${replies.slice(0, 300)}`);
            if (replies.includes('<!channel>')) problems.push('service text pinged the channel');

            const results = await Promise.all(
              cases.map(async (c) => {
                const s = lastSeq(bot);
                const r = await bot.command(c.text, { command: c.command, user: bot.ws.admin });
                return { c, r, s };
              }),
            );
            for (const { c, r } of results) {
              if (r.status !== 200 || r.ackMs >= 3000)
                problems.push(`${c.name}: ack ${r.status} in ${Math.round(r.ackMs)} ms`);
            }
            // Wait for every command's answer (a slow service: each call runs into the client's
            // timeout and its retry first), at most 25 s.
            const idOf = (url: string) => decodeURIComponent(url.split('/response/')[1] ?? '');
            // A request command (plan change, additional site) answers with a card posted in the
            // channel (chat.postMessage, so the outcome can rewrite it later) instead of a reply
            // through its response_url: each such card answers one command.
            const cards = () =>
              bot.fake
                .calls('chat.postMessage')
                .filter(
                  (x) =>
                    x.seq > seq &&
                    x.ok &&
                    x.args.channel === bot.ws.channel &&
                    /request/i.test(String(x.args.text)),
                );
            const allAnswered = () => {
              const ok = new Set(
                bot.fake
                  .responses()
                  .filter((x) => x.ok)
                  .map((x) => decodeURIComponent(x.id)),
              );
              const modals = new Set(bot.fake.calls('views.open').map((x) => String(x.args.trigger_id)));
              const unanswered = results.filter(
                ({ r }) => !ok.has(idOf(r.responseUrl)) && !modals.has(r.triggerId),
              ).length;
              return unanswered <= cards().length;
            };
            for (let waited = 0; waited < 25_000 && !allAnswered(); waited += 100) {
              await new Promise((res) => setTimeout(res, 100));
            }
            await new Promise((res) => setTimeout(res, 300));
            // Every command got its own answer: a reply through ITS response_url (an error that
            // says what happened, or the result when the bot recovered), or a modal opened with
            // ITS trigger id (commands that start with a form).
            const responded = new Set(
              bot.fake
                .responses()
                .filter((x) => x.ok)
                .map((x) => decodeURIComponent(x.id)),
            );
            const opened = new Set(
              bot.fake
                .calls('views.open')
                .filter((x) => x.seq > seq && x.ok)
                .map((x) => String(x.args.trigger_id)),
            );
            const unusedCards = cards();
            for (const { c, r } of results) {
              const id = idOf(r.responseUrl);
              if (!responded.has(id) && !opened.has(r.triggerId)) {
                if (unusedCards.shift()) continue;
                problems.push(`${c.name}: no reply, no modal, no card (the user was left without an answer)`);
                continue;
              }
              // Each command's own answer is judged, not only the probe's: a command that answers
              // cleanly when the service is healthy must, under the fault, either still answer
              // cleanly (it did not need the failing call) or say what happened in the case's clear
              // words; when the bot must recover, it answers cleanly.
              if (!cleanWithoutFaults.has(c.name)) continue;
              const own = ownReply(bot, r.responseUrl);
              if (!isErrorCard(own)) continue;
              if (fc.expect === 'ok')
                problems.push(`${c.name}: error instead of recovering: ${own.slice(0, 200)}`);
              else if (!fc.expect.test(own))
                problems.push(`${c.name}: error reply not clear: ${own.slice(0, 300)}`);
            }
            const everything = said(bot.fake.calls().filter((x) => x.seq > seq));
            if (BROKEN.test(everything))
              problems.push(
                `a reply shows internals: ${everything.match(BROKEN)?.[0]} in …${everything.slice(Math.max(0, (everything.match(BROKEN)?.index ?? 0) - 300), (everything.match(BROKEN)?.index ?? 0) + 100)}`,
              );
            for (const s of bot.secrets()) if (everything.includes(s)) problems.push('a secret in a reply');
            expect(problems).toEqual([]);
            expect(unhandledSoFar()).toEqual([]);
            return {
              outcome: `${cases.length + 1} commands acked < 3 s, each answered; ${cleanWithoutFaults.size} service commands judged: ${fc.expect === 'ok' ? 'recovered' : 'clear error'}`,
            };
          } finally {
            emu.faults.clear();
          }
        },
      );
    });
  }
});

describe('poller under service faults', () => {
  it('backs off while the service fails, resumes after, and loses nothing', async () => {
    await scenario(
      {
        scenario: 'service: poller 5xx/reset/malformed storm',
        injected: '503, drop, malformed for 6 cycles',
      },
      async () => {
        const rig = await startWatchRig();
        try {
          const w = rig.watcher();
          await subscribeAll(rig, w);
          const jobs = [1, 2, 3].map((i) => rig.emu.createJob(SITE, `storm-${i}`, [{ recipient: `r${i}` }]));
          const kinds: FaultRule[] = [{ status: 503 }, { drop: true }, { malformed: true }];
          const failures: number[] = [];
          const delays: number[] = [];
          for (let i = 0; i < 6; i++) {
            rig.emu.faults.clear();
            rig.emu.faults.add(kinds[i % kinds.length]!);
            if (i === 3) for (const j of jobs) rig.emu.finishJob(SITE, j);
            const before = rig.clock.now();
            const out = await w.pollOnce(rig.ws.teamId, SITE);
            expect(out.error).toBeDefined();
            const st = (await w.status()).sites.find((s) => s.siteId === SITE)!;
            failures.push(st.consecutiveFailures);
            delays.push(st.nextPollAt - before);
            rig.clock.advance(st.nextPollAt - rig.clock.now());
          }
          // Backoff grows (capped) and every failure was counted.
          expect(failures).toEqual([1, 2, 3, 4, 5, 6]);
          // (delays measured from before the cycle: retry sleeps inside it add a few virtual ms)
          for (let i = 1; i < delays.length; i++)
            expect(delays[i]!).toBeGreaterThanOrEqual(delays[i - 1]! - 1000);
          expect(delays.at(-1)!).toBeGreaterThan(delays[0]! * 4);
          expect(delays.at(-1)!).toBeLessThanOrEqual(15 * 60_000 + 1000);
          expect(rig.events.filter((e) => e.type === 'poll-failed')).toHaveLength(6);
          // Recovery.
          rig.emu.faults.clear();
          const ok = await w.pollOnce(rig.ws.teamId, SITE);
          expect(ok.error).toBeUndefined();
          rig.clock.advance(60_000);
          await w.pollOnce(rig.ws.teamId, SITE);
          const st = (await w.status()).sites.find((s) => s.siteId === SITE)!;
          expect(st.consecutiveFailures).toBe(0);
          const c = completeness(rig.keys(), rig.ws.teamId, rig.ws.channel, jobs);
          expect(c.missing).toEqual([]);
          expect(c.duplicated).toBe(0);
          expect(unhandledSoFar()).toEqual([]);
          return {
            outcome: `backoff ${delays.map((d) => Math.round(d / 60_000)).join('/')} min, resumed, ${jobs.length} jobs notified`,
            lost: c.lost,
            duplicated: c.duplicated,
          };
        } finally {
          await rig.close();
        }
      },
    );
  });

  it('401 for good pauses polling with one admin alert; resume() picks up where it left', async () => {
    await scenario(
      { scenario: 'service: poller 401 then fixed', injected: 'emulator 401 on every call' },
      async () => {
        const rig = await startWatchRig();
        try {
          const w = rig.watcher();
          await subscribeAll(rig, w);
          const job = rig.emu.createJob(SITE, 'auth-job', [{ recipient: 'x' }]);
          rig.emu.faults.add({ status: 401 });
          rig.emu.expireTokens();
          for (let i = 0; i < 3; i++) {
            rig.clock.advance(60_000);
            await w.pollOnce(rig.ws.teamId, SITE);
          }
          expect(rig.events.filter((e) => e.type === 'admin-alert')).toHaveLength(1);
          expect((await w.status()).pausedWorkspaces[rig.ws.teamId]).toContain('/dwm setup');
          rig.emu.faults.clear();
          rig.emu.finishJob(SITE, job);
          await w.resume(rig.ws.teamId);
          rig.clock.advance(60_000);
          await w.pollOnce(rig.ws.teamId, SITE);
          const c = completeness(rig.keys(), rig.ws.teamId, rig.ws.channel, [job]);
          expect(c.missing).toEqual([]);
          expect(c.duplicated).toBe(0);
          return {
            outcome: 'paused, 1 admin alert, resumed, job notified',
            lost: c.lost,
            duplicated: c.duplicated,
          };
        } finally {
          await rig.close();
        }
      },
    );
  });
});
