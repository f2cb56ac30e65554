/**
 * The notify runtime's guarantees end to end (real app, emulator, fake Slack, one virtual clock):
 * exactly once across a restart (stopped after the outcome was recorded but before it was sent;
 * stopped between posting the DM and recording it: the new process finds it by its metadata), the
 * creator of a channel's digest told when Slack refuses the channel, a notice whose renderer no
 * feature provides dropped with the reason logged, and startBot running (and stopping) it.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../dev/emulator/index.js';
import { FakeSlack } from '../../../dev/fakeslack/index.js';
import { credentialsEnv, emulatorCredentials } from '../../../dev/testing/credentials.js';
import { type RunningBot, startBot } from '../../../src/main.js';
import { NoticeOutbox } from '../../../src/notices/outbox.js';
import { digestNow, scheduleDigest } from '../../../src/ops/digest.js';
import {
  cancelPlanRequestTracked,
  listTrackedRequests,
  requestChangeTracked,
} from '../../../src/ops/request-outcomes.js';
import { loadCredentials } from '../../../src/ops/workspace.js';
import type { Message } from '../../../src/slack/kit/blocks/blocks.js';
import { kickNotify } from '../../../src/slack/kit/runtime/notify-kick.js';
import type { NotifyRuntime } from '../../../src/slack/notify-runtime.js';
import { createPosterFactory, type PosterFactory } from '../../../src/slack/poster.js';
import { requestOutcomeRenderers } from '../../../src/slack/shared/requests/outcome.js';
import { appliedMigrations } from '../../../src/store/migrations.js';
import { WATCH_MIGRATIONS } from '../../../src/watch/migrations.js';
import type { TestBot } from '../../harness/index.js';
import { dmsTo, json, type NotifySetup, newNotifyRuntime, setupNotify, tick } from '../../support/notify.js';
import { lastSeq } from '../../support/slack.js';

let s: NotifySetup | undefined;
const extra: NotifyRuntime[] = [];
afterEach(async () => {
  for (const r of extra.splice(0)) await r.stop();
  await s?.close();
  s = undefined;
});

/** Make a plan request through the command and wait until it is tracked with its card. */
async function requestTrial(b: TestBot, ws: string, user: string) {
  const seq = lastSeq(b);
  await b.command('plan trial drm', { command: '/drm', user });
  await b.fake.waitFor((c) => c.method === 'chat.postMessage' && c.seq > seq && c.ok, 8000);
  const end = Date.now() + 8000;
  for (;;) {
    const [t] = await listTrackedRequests(b.deps, ws);
    if (t?.card) return t;
    if (Date.now() > end) throw new Error('the request was not tracked with its card');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Posters whose DM post reaches Slack and then "dies" before the result is known. */
function dyingAfterPost(b: TestBot): PosterFactory {
  const real = createPosterFactory(b.deps);
  return {
    ...real,
    poster(ws) {
      const p = real.poster(ws);
      return {
        ...p,
        async post(channel, message, opts) {
          await p.post(channel, message, opts);
          throw new Error('the process died right after posting');
        },
      };
    },
  };
}

describe('exactly once across a restart', () => {
  it('stopped after the outcome was recorded, before it was delivered: the next process sends ONE DM', async () => {
    s = await setupNotify();
    const b = s.bot;
    const t = await requestTrial(b, s.ws, b.ws.member);
    // Slack fails every DM attempt of the first process (the outcome stays in the outbox).
    b.fake.fail('conversations.open', { error: 'internal_error', times: 1000 });
    b.emulator!.approveRequest('DEMO', t.requestId);
    await tick(s);
    expect(await listTrackedRequests(b.deps, s.ws)).toHaveLength(0);
    expect(await s.runtime.notifier.outbox.size(s.ws)).toBe(1);
    expect(dmsTo(b, b.ws.member)).toHaveLength(0);
    await s.runtime.stop();

    b.fake.clearFailures();
    const next = newNotifyRuntime(b, s.clock);
    extra.push(next);
    next.start();
    await tick(s, next);
    await tick(s, next);
    const dms = dmsTo(b, b.ws.member);
    expect(dms).toHaveLength(1);
    expect(json(dms[0]!.blocks)).toContain(t.requestId);
    expect(json(b.fake.messages(t.card!.channel).find((m) => m.ts === t.card!.ts)?.blocks)).toContain(
      '*approved*',
    );
    expect(await next.notifier.outbox.size(s.ws)).toBe(0);
  });

  it('stopped between posting the DM and recording it: the next process finds it by metadata, no second DM', async () => {
    // The posters need the bot: the first process is a second runtime, the default one stopped.
    s = await setupNotify();
    const b = s.bot;
    await s.runtime.stop();
    const first = newNotifyRuntime(b, s.clock, { posters: dyingAfterPost(b) });
    extra.push(first);
    first.start();
    const t = await requestTrial(b, s.ws, b.ws.member);
    b.emulator!.approveRequest('DEMO', t.requestId);
    await tick(s, first);
    // Posted once, but the first process never recorded it.
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
    const [entry] = await first.notifier.outbox.pending(s.ws);
    expect(entry?.sending?.step).toBe('dm');
    await first.stop();

    const seq = lastSeq(b);
    const next = newNotifyRuntime(b, s.clock);
    extra.push(next);
    next.start();
    await tick(s, next);
    await tick(s, next);
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
    const search = b.fake.calls('conversations.history').filter((c) => c.seq > seq);
    expect(search.length).toBeGreaterThan(0);
    expect(String(search[0]!.args.include_all_metadata)).toBe('true');
    expect(await next.notifier.outbox.size(s.ws)).toBe(0);
    expect(json(b.fake.messages(t.card!.channel).find((m) => m.ts === t.card!.ts)?.blocks)).toContain(
      '*approved*',
    );
  });
});

describe('two replicas', () => {
  it('two runtimes on one store (two holders): one poll, ONE DM', async () => {
    s = await setupNotify();
    const b = s.bot;
    const other = newNotifyRuntime(b, s.clock);
    extra.push(other);
    other.start();
    const t = await requestTrial(b, s.ws, b.ws.member);
    b.emulator!.approveRequest('DEMO', t.requestId);
    s.clock.advance(60_000);
    await Promise.all([s.runtime.idle(), other.idle()]);
    s.clock.advance(60_000);
    await Promise.all([s.runtime.idle(), other.idle()]);
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
    expect(b.fake.calls('chat.update').filter((c) => c.args.ts === t.card!.ts)).toHaveLength(1);
  });
});

const testDigest = (d: { channelId: string }): Message => ({ text: `Digest for ${d.channelId}` });

describe('channels Slack refuses', () => {
  it("the digest's channel refuses the bot: its creator gets a DM naming the channel, why and what to do", async () => {
    s = await setupNotify({
      runtime: {
        renderers: { ...requestOutcomeRenderers, digest: testDigest, licenseAlert: () => ({ text: 'x' }) },
      },
    });
    const b = s.bot;
    const channel = b.ws.channelWithoutBot;
    await scheduleDigest(b.deps, s.ws, {
      channelId: channel,
      actor: { userId: b.ws.member, isAdmin: false, inChannel: true },
      time: '09:00',
      zone: 'UTC',
    });
    await digestNow(b.deps, s.ws, {
      channelId: channel,
      actor: { userId: b.ws.member, isAdmin: false, inChannel: true },
      kick: (ws) => s!.runtime.kick(ws),
    });
    await s.runtime.idle();
    await b.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.ok && String(c.args.channel) === b.ws.member,
      8000,
    );
    const dm = b.fake.calls('chat.postMessage').find((c) => c.ok && String(c.args.channel) === b.ws.member)!;
    const text = json(dm.args);
    expect(text).toContain(`<#${channel}>`);
    expect(text).toContain('daily digest');
    expect(text).toContain('no longer a member of the channel');
    expect(text).toContain('/invite @drm-chatops');
    expect(text).toContain('/dwm digest daily HH:MM');
    const [schedule] = await s.runtime.notifier.digests.list(s.ws);
    expect(schedule?.paused?.code).toBe('not_in_channel');
  });

  it('a notice no feature renders yet is dropped with the reason logged, never posted', async () => {
    s = await setupNotify({ runtime: { renderers: { ...requestOutcomeRenderers } } });
    const b = s.bot;
    expect(s.runtime.missingRenderers).toEqual(['licenseAlert', 'digest']);
    const seq = lastSeq(b);
    await digestNow(b.deps, s.ws, {
      channelId: b.ws.channel,
      actor: { userId: b.ws.member, isAdmin: false, inChannel: true },
      kick: (ws) => s!.runtime.kick(ws),
    });
    await s.runtime.idle();
    expect(await s.runtime.notifier.outbox.size(s.ws)).toBe(0);
    expect(b.fake.calls('chat.postMessage').filter((c) => c.seq > seq)).toHaveLength(0);
    expect(b.logs.text()).toContain('no feature renders it yet');
    expect(b.logs.text()).toContain('renderer_missing');
  });
});

describe('startBot', () => {
  let bot: RunningBot | undefined;
  let fake: FakeSlack | undefined;
  let emu: Awaited<ReturnType<typeof startEmulator>> | undefined;
  afterEach(async () => {
    await bot?.shutdown('test end');
    await emu?.close();
    await fake?.close();
    bot = undefined;
    emu = undefined;
    fake = undefined;
  });

  const TEAM = 'T0NOTIFYSB';
  const REQUESTER = 'U0NOTIFYREQ';
  const ADMIN = 'U0NOTIFYADM';

  async function start(notify: boolean): Promise<RunningBot> {
    const token = `xoxb-notify-${randomBytes(6).toString('hex')}`;
    fake ??= await FakeSlack.start();
    fake.addWorkspace({
      teamId: TEAM,
      botToken: token,
      botId: 'B0NOTIFY',
      botUserId: 'U0NOTIFYBOT',
      users: [
        { id: REQUESTER, name: 'req' },
        { id: ADMIN, name: 'adm', isAdmin: true },
      ],
      channels: [{ id: 'C0NOTIFYCH', name: 'ops' }],
    });
    emu ??= await startEmulator();
    return startBot({
      watch: false,
      resumeRegistrations: false,
      notify,
      env: {
        SLACK_BOT_TOKEN: token,
        SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
        SLACK_BOT_ID: 'B0NOTIFY',
        SLACK_BOT_USER_ID: 'U0NOTIFYBOT',
        SLACK_API_URL: fake.apiUrl,
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        STORE_URL: 'memory://',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        ...credentialsEnv(emulatorCredentials(emu)),
      },
    });
  }

  /** A member's request cancelled by an admin through the ops, with the app's kick. */
  async function cancelledByAdmin(b: RunningBot): Promise<void> {
    const loaded = await loadCredentials(b.deps, TEAM);
    const svc = b.deps.api.service(loaded!.credentials.service!);
    await requestChangeTracked(b.deps, TEAM, svc, {
      siteId: 'DEMO',
      service: 'PD001',
      action: 'trial',
      requestedBy: REQUESTER,
    });
    await cancelPlanRequestTracked(b.deps, TEAM, svc, {
      siteId: 'DEMO',
      service: 'PD001',
      cancelledBy: ADMIN,
      kick: (ws) => kickNotify(b.deps, ws),
    });
  }

  it('runs the notifications (a kick delivers at once) and stops them with the bot', async () => {
    bot = await start(true);
    await cancelledByAdmin(bot);
    const dm = await fake!.waitFor(
      (c) => c.method === 'chat.postMessage' && c.ok && json(c.args).includes('through the bot'),
      8000,
    );
    expect(String(dm.args.channel)).toMatch(/^D/);
    await bot.shutdown('test end');
    bot = undefined;
  });

  it('the start applies the stored data migrations before anything is served', async () => {
    bot = await start(false);
    expect(await appliedMigrations(bot.deps.store)).toEqual(WATCH_MIGRATIONS.map((m) => m.id).sort());
    await bot.shutdown('test end');
    bot = undefined;
  });

  it('notify: false runs none (the outcome stays queued)', async () => {
    bot = await start(false);
    const seq = fake!.calls().reduce((m, c) => Math.max(m, c.seq), 0);
    await cancelledByAdmin(bot);
    const outbox = new NoticeOutbox(bot.deps.store);
    expect(await outbox.size(TEAM)).toBe(1);
    expect(fake!.calls('conversations.open').filter((c) => c.seq > seq)).toHaveLength(0);
  });
});
