/**
 * Process faults: the bot (watcher + real Slack poster, or the bulk registration runner) runs in
 * a child process on a SQLite file shared across restarts, against the emulator and the fake
 * Slack in this process, and is killed with SIGKILL 20 times at random points (timed, or right
 * as Slack records one of its calls: the window between posting and recording the delivery).
 * After the restarts: every job change is notified exactly once (delivery keys in the message
 * metadata on the fake Slack) and the registration report is complete.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../dev/emulator/types.js';
import { FakeSlack } from '../../dev/fakeslack/index.js';
import { type ChildHandle, startChild } from '../../dev/testing/child.js';
import type { RegisterChildConfig, WatchChildConfig } from '../../dev/testing/fault-child.js';
import { type RegistrationReport, reportCounts } from '../../src/ops/watermarking/registration/run.js';
import { createStore } from '../../src/store/index.js';
import { testWorkspace } from '../harness/index.js';
import { killMoment } from './support/kill-moment.js';
import { randInt, scenarioRandom } from './support/seed.js';
import { scenario } from './support/summary.js';
import { completeness, deliveryKeyOf, digestTexts, ENCRYPTION_KEY, SITE } from './support/watch.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD = join(ROOT, 'dev/testing/fault-child.ts');
const KILLS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  bots.length = 0;
});

async function rigBase() {
  const emu: EmulatorHandle = await startEmulator({ seed: false });
  cleanups.push(() => emu.close());
  const accessKey = `AK${randomBytes(12).toString('hex')}`;
  emu.addWatermarkingAccount({ accountId: 'kill9-wm', accessKey, siteIds: [SITE] });
  const dir = mkdtempSync(join(tmpdir(), 'faults-kill9-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const creds = {
    siteIds: [SITE],
    defaultSiteId: SITE,
    watermarking: { accountId: 'kill9-wm', accessKey, baseUrl: emu.wmBaseUrl },
  };
  return { emu, dir, creds, storeUrl: `sqlite://${join(dir, 'bot.sqlite')}` };
}

/** Every bot process of the current test (their stderr is printed when a scenario fails). */
const bots: ChildHandle[] = [];

function spawnBot(config: WatchChildConfig | RegisterChildConfig): ChildHandle {
  const h = startChild(CHILD, { FAULT_CHILD_CONFIG: JSON.stringify(config) }, ROOT);
  bots.push(h);
  cleanups.push(() => h.kill9());
  return h;
}

function botsStderr(): string {
  return bots
    .map((b, i) => `--- bot ${i} (pid ${b.pid})\n${b.stderr().slice(-1500)}`)
    .filter((s) => s.includes('EVENT') || s.includes('"level"') || s.includes('Error'))
    .join('\n');
}

describe('kill -9 of the bot', () => {
  it(`during poll cycles, ${KILLS} times: every job change notified exactly once`, async () => {
    const rand = scenarioRandom('kill9-watch');
    await scenario(
      { scenario: 'process: kill -9 watcher x20', injected: `SIGKILL x${KILLS} (timed / on a Slack call)` },
      async () => {
        const base = await rigBase();
        const fake = await FakeSlack.start();
        cleanups.push(() => fake.close());
        const { spec, ...ws } = testWorkspace(0);
        fake.addWorkspace(spec);
        const config: WatchChildConfig = {
          mode: 'watch',
          storeUrl: base.storeUrl,
          encryptionKey: ENCRYPTION_KEY,
          workspace: ws.teamId,
          siteId: SITE,
          creds: base.creds,
          holderId: 'kill9-bot',
          channel: ws.channel,
          slackApiUrl: fake.apiUrl,
          botToken: ws.botToken,
          intervalMs: 250,
          tickMs: 100,
          leaseTtlMs: 3000,
          channelIntervalMs: 10,
        };
        let bot = spawnBot(config);
        await bot.waitLine(/^READY/, 20_000);
        // Jobs that exist before the first successful poll are not announced (by design): wait for
        // the baseline (a first cycle may fail and the baseline come later).
        await bot.waitLine(/^TICK \d+ base=1/, 20_000);
        const jobs: number[] = [];
        const open: number[] = [];
        let onCall = 0;
        for (let i = 0; i < KILLS; i++) {
          const j = base.emu.createJob(SITE, `kill9-${i}`, [{ recipient: `r${i}` }, { recipient: `s${i}` }]);
          jobs.push(j);
          open.push(j);
          if (open.length > 1 && rand() < 0.6) {
            const k = open.splice(randInt(rand, 0, open.length - 2), 1)[0]!;
            base.emu.finishJob(SITE, k, rand() < 0.2 ? { failDwmIds: [] } : {});
          }
          if (await killMoment(fake, rand, 900)) onCall++;
          await bot.kill9();
          bot = spawnBot(config);
          await bot.waitLine(/^READY/, 20_000);
        }
        // Let the last process finish everything: close the open jobs (few per cycle: no digest).
        while (open.length) {
          for (const k of open.splice(0, 3)) base.emu.finishJob(SITE, k);
          const from = bot.lines().length;
          await bot.waitLine(/^TICK/, 20_000, from);
          await bot.waitLine(/^TICK/, 20_000, bot.lines().length);
        }
        const keys = () =>
          fake
            .allMessages()
            .map(deliveryKeyOf)
            .filter((k): k is string => k !== undefined);
        const deadline = Date.now() + 45_000;
        while (
          Date.now() < deadline &&
          completeness(keys(), ws.teamId, ws.channel, jobs, 'DM500', digestTexts(fake.allMessages())).lost > 0
        )
          await sleep(250);
        // A few more cycles: nothing may be posted again.
        const from = bot.lines().length;
        await bot.waitLine(/^TICK/, 20_000, from + 3);
        await bot.kill9();
        const c = completeness(keys(), ws.teamId, ws.channel, jobs, 'DM500', digestTexts(fake.allMessages()));
        if (c.missing.length) {
          // Diagnostics: what Slack holds for the jobs concerned, and the last bot's stderr.
          const ids = c.missing.map((m) => m.split(':')[0]!.replace('job ', ''));
          const held = keys().filter(
            (k) => ids.some((id) => k.includes(`|${id}|`)) || k.includes('|digest|'),
          );
          process.stderr.write(
            `[kill9] missing ${c.missing.join(', ')}; held ${held.join(', ')}\n${botsStderr()}\n`,
          );
        }
        expect(c.missing).toEqual([]);
        expect(c.duplicated).toBe(0);
        return {
          outcome: `${jobs.length} jobs, ${KILLS} kills (${onCall} after a Slack call), ${digestTexts(fake.allMessages()).length} digests: all notified once`,
          lost: c.lost,
          duplicated: c.duplicated,
        };
      },
    );
  }, 240_000);

  it(`during a bulk registration, ${KILLS} times: the report is complete, no name registered twice`, async () => {
    const rand = scenarioRandom('kill9-register');
    await scenario(
      { scenario: 'process: kill -9 registration x20', injected: `SIGKILL x${KILLS} at random points` },
      async () => {
        const base = await rigBase();
        // Slow writes so a kill often lands while a batch POST is in flight.
        base.emu.faults.add({ match: /^POST /, latencyMs: 1500 });
        const names = Array.from({ length: 4500 }, (_, i) => `kill9-recipient-${String(i).padStart(4, '0')}`);
        // A few names exist already: the report must say so, not register them again.
        for (const n of names.slice(0, 5)) base.emu.createJob(SITE, `seed-${n}`, [{ recipient: n }]);
        const config: RegisterChildConfig = {
          mode: 'register',
          storeUrl: base.storeUrl,
          encryptionKey: ENCRYPTION_KEY,
          workspace: 'T0KILL9',
          siteId: SITE,
          creds: base.creds,
          reportId: 'kill9-report',
          reportsNamespace: 'faults-reports',
          lines: names.join('\n'),
          concurrency: 2,
        };
        let kills = 0;
        let midRun = 0;
        let done: string | undefined;
        for (let i = 0; i <= KILLS; i++) {
          const bot = spawnBot(config);
          await bot.waitLine(/^READY/, 20_000);
          if (i === KILLS) {
            done = await bot.waitLine(/^DONE /, 90_000);
            break;
          }
          const finished = await Promise.race([
            bot.waitLine(/^(DONE|FAIL) /, 60_000).then(() => true),
            sleep(randInt(rand, 100, 1500)).then(() => false),
          ]);
          if (!finished) midRun++;
          await bot.kill9();
          kills++;
          if (finished && bot.lines().some((l) => l.startsWith('FAIL'))) {
            throw new Error(`runner failed: ${bot.lines().join(' | ')} ${bot.stderr().slice(-400)}`);
          }
        }
        expect(done).toBeDefined();
        const store = await createStore({ url: base.storeUrl, encryptionKey: ENCRYPTION_KEY });
        cleanups.push(() => store.close());
        const report = (await store
          .docs<RegistrationReport>('faults-reports')
          .get('T0KILL9', 'kill9-report'))!;
        expect(report.status).toBe('completed');
        const counts = reportCounts(report);
        // Complete: every input line accounted for exactly once.
        const lines = [...report.registered, ...report.skipped, ...report.failed].map((r) => r.line);
        const dupLines = lines.length - new Set(lines).size;
        expect(counts.outstanding).toBe(0);
        expect(counts.failed).toBe(0);
        expect(dupLines).toBe(0);
        expect(new Set(lines).size).toBe(names.length);
        expect(counts.alreadyRegistered).toBe(5);
        expect(counts.registered + counts.registeredMeanwhile).toBe(names.length - 5);
        // Each new name was sent for registration exactly once across all the kills (counted on
        // the wire, not inferred from the service refusing duplicates); the pre-existing ones never.
        const posts = base.emu.registrationPostsPerName(SITE);
        const sentTwice = [...posts].filter(([, n]) => n > 1).map(([name]) => name);
        if (sentTwice.length > 0) {
          // Diagnostics: which runner sent the first of them, when, and what it looked up before.
          const first = [...sentTwice].sort()[0]!;
          process.stderr.write(
            `[kill9-register] sent twice: ${sentTwice.length} names, first ${first}\n${bots
              .map(
                (b, i) =>
                  `--- bot ${i} (pid ${b.pid}) [${b.lines().join(' | ').slice(0, 200)}]\n${b.stderr()}`,
              )
              .filter((s) => s.includes(first))
              .join('\n')}\n`,
          );
        }
        expect(sentTwice).toEqual([]);
        for (const n of names.slice(0, 5)) expect(posts.get(n) ?? 0).toBe(0);
        expect(names.slice(5).filter((n) => posts.get(n) !== 1)).toEqual([]);
        expect(base.emu.recipientCount(SITE)).toBe(names.length);
        return {
          outcome: `${kills} kills (${midRun} mid-run): report completed, ${counts.registered} registered + ${counts.registeredMeanwhile} reconciled + 5 pre-existing`,
          lost: names.length - new Set(lines).size,
          duplicated: dupLines + sentTwice.length,
        };
      },
    );
  }, 240_000);
});
