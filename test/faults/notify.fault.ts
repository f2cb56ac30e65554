/**
 * Process faults of the notifications (request outcomes, license-failure alerts, daily digests):
 * ONE notifier, built by the bot's own runtime with the real Slack ports and the features'
 * renderers, runs in a child process (dev/testing/notify-child.ts) on a SQLite file shared
 * across restarts, against the emulator and the fake Slack in this process, and is killed with
 * SIGKILL at random points (timed, or right as Slack records a chat.postMessage / chat.update of
 * it: the window between posting and recording the delivery) while, upstream, tracked plan and
 * additional-site requests are approved or cancelled, an alert subscription's failure ratio rises
 * and falls twice, and two digest schedules come due (one at the next minute, one missed day).
 * After the last restart settles, every expected notice is on the fake Slack exactly once
 * (counted by the delivery metadata key of its messages).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../dev/emulator/index.js';
import type { EmulatorHandle } from '../../dev/emulator/types.js';
import { type FakeMessage, FakeSlack } from '../../dev/fakeslack/index.js';
import { type ChildHandle, startChild } from '../../dev/testing/child.js';
import type { NotifyChildConfig } from '../../dev/testing/notify-child.js';
import { createApi } from '../../src/api/index.js';
import type { WorkspaceCredentials } from '../../src/api/types.js';
import { alertKey } from '../../src/notices/alert-state.js';
import { AlertSubscriptions, alertSubscriptionId } from '../../src/notices/alert-subscriptions.js';
import { DigestSchedules, digestScheduleId } from '../../src/notices/digest-schedules.js';
import type { AlertSubscription } from '../../src/notices/types.js';
import {
  attachRequestCard,
  requestAdditionalSiteTracked,
  requestChangeTracked,
} from '../../src/ops/request-outcomes.js';
import { createStore } from '../../src/store/index.js';
import { testWorkspace } from '../harness/index.js';
import { killMoment } from './support/kill-moment.js';
import { randInt, scenarioRandom } from './support/seed.js';
import { scenario } from './support/summary.js';
import { deliveryKeyOf, duplicates, ENCRYPTION_KEY } from './support/watch.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD = join(ROOT, 'dev/testing/notify-child.ts');
const KILLS = 16;
const SVC_ACCOUNT = 'kill9-svc';
const SITES = ['NA01', 'NA02', 'NA03', 'NA04'];
const DIGEST_NEXT = 'C0DIGESTNX';
const DIGEST_MISSED = 'C0DIGESTMS';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  bots.length = 0;
});

const bots: ChildHandle[] = [];

function botsStderr(): string {
  return bots
    .map((b, i) => `--- bot ${i} (pid ${b.pid})\n${b.stderr().slice(-1500)}`)
    .filter((s) => s.includes('EVENT') || s.includes('"level"') || s.includes('Error'))
    .join('\n');
}

/** Upstream changes, applied one per kill; an alert step only once the previous one showed. */
type Action =
  | { kind: 'plan'; siteId: string; requestId: string; outcome: 'approve' | 'cancel' }
  | { kind: 'site'; seq: number; outcome: 'approved' | 'rejected' }
  | { kind: 'alert'; step: number };

/** Failure / success records per alert step: rise, rise more (update), fall, rise, fall. */
const ALERT_STEPS: Array<{ fail: number; ok: number }> = [
  { fail: 30, ok: 0 }, // 30/30: spike 1 (one alert)
  { fail: 10, ok: 0 }, // 40/40: the alert is updated, no second alert
  { fail: 0, ok: 200 }, // 40/240 = 17 %: recovery 1
  { fail: 60, ok: 0 }, // 100/300 = 33 %: spike 2
  { fail: 0, ok: 300 }, // 100/600 = 17 %: recovery 2
];

describe('kill -9 of the notifier', () => {
  it(`request outcomes, alert spikes and digests while killed ${KILLS} times: each notice once`, async () => {
    const rand = scenarioRandom('kill9-notify');
    await scenario(
      {
        scenario: 'process: kill -9 notifier x16',
        injected: `SIGKILL x${KILLS}(+1): timed/on post, update, digest`,
      },
      async () => {
        // --- the upstream service, Slack, the store -----------------------------------------
        const emu: EmulatorHandle = await startEmulator({ seed: false });
        cleanups.push(() => emu.close());
        const accessKey = `AK${randomBytes(12).toString('hex')}`;
        const secretKey = randomBytes(16).toString('hex');
        emu.addWatermarkingAccount({ accountId: 'kill9-nwm', accessKey, siteIds: SITES });
        emu.addServiceAccount({
          accountId: SVC_ACCOUNT,
          accountSeq: '4242',
          secretKey,
          sites: SITES.map((siteId, i) => ({ siteId, name: `Notify site ${i + 1}` })),
        });
        const creds: WorkspaceCredentials = {
          siteIds: SITES,
          defaultSiteId: SITES[0]!,
          watermarking: { accountId: 'kill9-nwm', accessKey, baseUrl: emu.wmBaseUrl },
          service: { accountId: SVC_ACCOUNT, accountSeq: '4242', secretKey, baseUrl: emu.serviceBaseUrl },
        };
        const fake = await FakeSlack.start();
        cleanups.push(() => fake.close());
        const { spec, ...ws } = testWorkspace(0);
        spec.channels = [
          ...(spec.channels ?? []),
          { id: DIGEST_NEXT, name: 'digest-next', botIsMember: true },
          { id: DIGEST_MISSED, name: 'digest-missed', botIsMember: true },
        ];
        fake.addWorkspace(spec);
        const dir = mkdtempSync(join(tmpdir(), 'faults-kill9-notify-'));
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        const storeUrl = `sqlite://${join(dir, 'bot.sqlite')}`;
        const namespace = 'kill9-notify';

        // --- what the bot knows before the first start (as the commands would have left it) ---
        const store = await createStore({ url: storeUrl, encryptionKey: ENCRYPTION_KEY, namespace });
        const api = createApi({ retries: { max: 1, baseMs: 20 } });
        const svc = api.service(creds.service!);
        const slack = new WebClient(ws.botToken, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
        const deps = { store, now: Date.now };
        const requests: Array<{ trackingId: string; card: { channel: string; ts: string } }> = [];
        const actions: Action[] = [];
        const card = async (text: string) => {
          const r = await slack.chat.postMessage({ channel: ws.channel, text });
          return { channel: ws.channel, ts: String(r.ts) };
        };
        for (const siteId of SITES) {
          for (const service of ['fwm', 'drm'] as const) {
            const requestedBy = rand() < 0.5 ? ws.member : ws.admin;
            const v = await requestChangeTracked(deps, ws.teamId, svc, {
              siteId,
              service,
              action: 'trial',
              message: 'kill -9 scenario',
              requestedBy,
            });
            const c = await card(`Trial extension requested for ${siteId} ${service}`);
            expect(await attachRequestCard(deps, ws.teamId, v.trackingId as string, c)).toBe(true);
            requests.push({ trackingId: v.trackingId as string, card: c });
            actions.push({
              kind: 'plan',
              siteId,
              requestId: v.requestId,
              outcome: rand() < 0.7 ? 'approve' : 'cancel',
            });
          }
        }
        for (const name of ['Kids Channel', 'Archive Channel']) {
          const r = await requestAdditionalSiteTracked(deps, ws.teamId, svc, {
            name,
            requestedBy: ws.member,
          });
          const c = await card(`Additional site requested: ${name}`);
          expect(await attachRequestCard(deps, ws.teamId, r.trackingId as string, c)).toBe(true);
          requests.push({ trackingId: r.trackingId as string, card: c });
          actions.push({ kind: 'site', seq: r.seq, outcome: rand() < 0.7 ? 'approved' : 'rejected' });
        }
        // The request actions in a seeded order, the alert steps spread among them in order.
        for (let i = actions.length - 1; i > 0; i--) {
          const j = randInt(rand, 0, i);
          [actions[i], actions[j]] = [actions[j]!, actions[i]!];
        }
        ALERT_STEPS.forEach((_, step) => {
          actions.splice(Math.min(actions.length, step * 3 + randInt(rand, 0, 2)), 0, {
            kind: 'alert',
            step,
          });
        });

        const start = Date.now();
        const sub: AlertSubscription = {
          id: alertSubscriptionId(ws.channel, SITES[0]!),
          workspace: ws.teamId,
          channelId: ws.channel,
          siteId: SITES[0]!,
          ratioPct: 20,
          minRequests: 20,
          windowMinutes: 5,
          createdBy: ws.admin,
          createdAt: new Date(start - 60_000).toISOString(),
        };
        await new AlertSubscriptions(store).put(ws.teamId, sub);
        const digests = new DigestSchedules(store);
        // Due at the first minute at least 25 s from now (during the kills), posted once.
        const nextAt = Math.ceil((start + 25_000) / 60_000) * 60_000;
        const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
        await digests.put(ws.teamId, {
          id: digestScheduleId(DIGEST_NEXT),
          workspace: ws.teamId,
          channelId: DIGEST_NEXT,
          time: hhmm(nextAt),
          zone: 'UTC',
          createdBy: ws.admin,
          createdAt: new Date(start).toISOString(),
        });
        // Missed while the bot was down: due two hours ago, posted late once (with the note).
        const dayMs = 24 * 3600_000;
        await digests.put(ws.teamId, {
          id: digestScheduleId(DIGEST_MISSED),
          workspace: ws.teamId,
          channelId: DIGEST_MISSED,
          time: hhmm(start - 2 * 3600_000),
          zone: 'UTC',
          createdBy: ws.admin,
          createdAt: new Date(start - 4 * dayMs).toISOString(),
          lastDay: new Date(start - 2 * 3600_000 - dayMs).toISOString().slice(0, 10),
        });
        await api.close();
        await store.close();

        // --- the bot, killed ------------------------------------------------------------------
        const config: NotifyChildConfig = {
          storeUrl,
          encryptionKey: ENCRYPTION_KEY,
          namespace,
          workspace: ws.teamId,
          slackApiUrl: fake.apiUrl,
          botToken: ws.botToken,
          botId: ws.botId,
          botUserId: ws.botUserId,
          creds,
          holderId: 'kill9-notifier',
          intervalMs: 1000,
          tickMs: 1000,
          laneIntervalMs: 50,
        };
        const spawnBot = () => {
          const h = startChild(CHILD, { NOTIFY_CHILD_CONFIG: JSON.stringify(config) }, ROOT);
          bots.push(h);
          cleanups.push(() => h.kill9());
          return h;
        };

        const keysOf = (msgs: FakeMessage[]) =>
          msgs.map(deliveryKeyOf).filter((k): k is string => k !== undefined);
        const keys = () => keysOf(fake.allMessages());
        const count = (prefix: string) => keys().filter((k) => k.startsWith(prefix)).length;
        const spikeKey = (n: number, step: string) => `${alertKey(sub, n, step)}#`;
        const rootTs = (n: number) =>
          fake.allMessages().find((m) => deliveryKeyOf(m)?.startsWith(spikeKey(n, 'start')))?.ts;
        // What must be visible before the next alert step is applied (each state seen by a poll).
        let updateSeqFrom = 0;
        const alertStepShown = (step: number): boolean => {
          if (step === 0) return true;
          if (step === 1) return count(spikeKey(1, 'start')) > 0;
          if (step === 2) {
            const ts = rootTs(1);
            return fake.calls('chat.update').some((c) => c.ok && c.seq > updateSeqFrom && c.args.ts === ts);
          }
          if (step === 3) return count(spikeKey(1, 'recovered')) > 0;
          return count(spikeKey(2, 'start')) > 0;
        };
        let alertStep = 0;
        const applyAlertStep = (step: number) => {
          const { fail, ok } = ALERT_STEPS[step]!;
          const now = Date.now();
          const recs = [
            ...Array.from({ length: fail }, (_, i) => ({
              cid: `cid-${step}-f${i % 7}`,
              status: 'fail' as const,
              errorCode: i % 3 ? 'E4001' : 'E4103',
              deviceId: `dev-${i % 5}`,
              regTimeMs: now - 1000 - i,
            })),
            ...Array.from({ length: ok }, (_, i) => ({
              cid: `cid-${step}-s${i % 11}`,
              status: 'success' as const,
              regTimeMs: now - 1000 - i,
            })),
          ];
          emu.addLicenses(SITES[0]!, recs);
          if (step === 1) updateSeqFrom = fake.lastSeq();
          alertStep = step + 1;
        };
        /** Apply the next action whose precondition holds; false when none could be. */
        const applyNext = (): boolean => {
          const i = actions.findIndex((a) => a.kind !== 'alert' || alertStepShown(a.step));
          if (i < 0) return false;
          const a = actions.splice(i, 1)[0]!;
          if (a.kind === 'plan') {
            if (a.outcome === 'approve') emu.approveRequest(a.siteId, a.requestId);
            else emu.cancelRequestElsewhere(a.siteId, a.requestId);
          } else if (a.kind === 'site') {
            emu.decideSiteRequest(
              SVC_ACCOUNT,
              a.seq,
              a.outcome,
              a.outcome === 'approved' ? 'KIDS' : undefined,
            );
          } else applyAlertStep(a.step);
          return true;
        };

        let bot = spawnBot();
        await bot.waitLine(/^READY/, 20_000);
        let onCall = 0;
        for (let i = 0; i < KILLS; i++) {
          applyNext();
          if (await killMoment(fake, rand, 1200)) onCall++;
          await bot.kill9();
          bot = spawnBot();
          await bot.waitLine(/^READY/, 20_000);
        }

        // One more kill right as the next-minute digest is posted (minute granularity: it may come
        // due after the loop), unless it was already posted during the loop.
        let kills = KILLS;
        if (count(`digest:${DIGEST_NEXT}:`) === 0) {
          const seq = fake.lastSeq();
          const hit = await fake
            .waitFor(
              (c) => c.seq > seq && c.method === 'chat.postMessage' && c.args.channel === DIGEST_NEXT,
              100_000,
            )
            .then(() => true)
            .catch(() => false);
          if (hit) {
            onCall++;
            kills++;
            await bot.kill9();
            bot = spawnBot();
            await bot.waitLine(/^READY/, 20_000);
          }
        }

        // --- the last process finishes everything -------------------------------------------
        const expected = [
          ...requests.map((r) => `request:${r.trackingId}:`),
          spikeKey(1, 'start'),
          spikeKey(1, 'recovered'),
          spikeKey(2, 'start'),
          spikeKey(2, 'recovered'),
          `digest:${DIGEST_NEXT}:`,
          `digest:${DIGEST_MISSED}:`,
        ];
        const missing = () => expected.filter((p) => count(p) === 0);
        const deadline = Date.now() + 90_000;
        while (Date.now() < deadline && (actions.length > 0 || missing().length > 0)) {
          while (actions.length > 0 && applyNext()) {
            /* apply what can be applied */
          }
          await bot.waitLine(/^TICK/, 20_000, bot.lines().length);
        }
        // Settled: nothing pending, nothing tracked; a few more passes may post nothing again.
        await bot.waitLine(/^TICK \d+ outbox=0 tracked=0/, 20_000, bot.lines().length);
        const from = bot.lines().length;
        await bot.waitLine(/^TICK/, 20_000, from + 2);
        await bot.kill9();

        const all = keys();
        const dupKeys = duplicates(all);
        // Per expected notice: exactly one message (a second alert message for a spike, a second
        // DM or digest would be counted here).
        const extra = expected.reduce((n, p) => n + Math.max(0, count(p) - 1), 0);
        // Alert top-level messages: one per spike, whatever the updates.
        const alertRoots = fake
          .allMessages()
          .filter((m) => !m.threadTs && deliveryKeyOf(m)?.startsWith(`alert:${sub.id}:`)).length;
        const recoveries = fake
          .allMessages()
          .filter((m) => m.threadTs && deliveryKeyOf(m)?.includes(':recovered#')).length;
        const cardsUpdated = requests.filter(
          (r) => fake.messages(r.card.channel).find((m) => m.ts === r.card.ts)?.edited,
        ).length;
        const missingNow = missing();
        if (missingNow.length || dupKeys.length || extra) {
          process.stderr.write(
            `[kill9-notify] missing ${missingNow.join(', ')}; dup ${dupKeys.join(', ')}; keys ${all.join(', ')}\n${botsStderr()}\n`,
          );
        }
        expect(alertStep).toBe(ALERT_STEPS.length);
        expect(missingNow).toEqual([]);
        expect(dupKeys).toEqual([]);
        expect(extra).toBe(0);
        expect(alertRoots).toBe(2);
        expect(recoveries).toBe(2);
        expect(cardsUpdated).toBe(requests.length);
        const late = fake.messages(DIGEST_MISSED).filter((m) => deliveryKeyOf(m));
        expect(`${late[0]?.text ?? ''}${JSON.stringify(late[0]?.blocks ?? [])}`).toContain('posted late');
        return {
          outcome: `${requests.length} outcomes 2 spikes 2 recov 2 digests; ${kills} kills (${onCall} on call)`,
          lost: missingNow.length,
          // Messages beyond the first per key, or per expected notice (whichever says more).
          duplicated: Math.max(all.length - new Set(all).size, extra),
        };
      },
    );
  }, 170_000);
});
