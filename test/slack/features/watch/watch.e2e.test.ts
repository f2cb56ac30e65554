/**
 * Job watching end to end: the real Bolt app (signed slash commands, buttons, the form), the
 * watch runtime with the real store, the emulator moving jobs, and the recording fake Slack.
 * Polls are driven by `pollOnce` on a virtual clock (shared by the app, the fake, the emulator and
 * the watcher), so Retry-After waits and the 1 message/s pacing cost no real time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeCall, FakeMessage } from '../../../../dev/fakeslack/index.js';
import { FEATURES } from '../../../../src/slack/features/index.js';
import type { Feature } from '../../../../src/slack/kit/features.js';
import { notifyCredentialsSaved } from '../../../../src/slack/kit/runtime/hooks.js';
import { createPosterFactory, type PosterFactory } from '../../../../src/slack/poster.js';
import { createWatchRuntime, type WatchRuntime } from '../../../../src/slack/watch-runtime.js';
import { FakeClock } from '../../../../src/watch/clock.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { lastSeq } from '../../../support/slack.js';

let bot: TestBot | undefined;
const runtimes: WatchRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.stop();
  await bot?.close();
  bot = undefined;
});

interface Setup {
  bot: TestBot;
  clock: FakeClock;
  runtime: WatchRuntime;
  ws: string;
  site: string;
  channel: string;
}

/** The watch form filled in: site, status ERROR, content promo-*, mode failures. */
function promoFailuresForm(site: string) {
  return {
    watch_site: { value: { type: 'static_select', selected_option: { value: site } } },
    watch_statuses: { value: { type: 'checkboxes', selected_options: [{ value: 'DM600' }] } },
    watch_content: { value: { type: 'plain_text_input', value: 'promo-*' } },
    watch_mode: { value: { type: 'radio_buttons', selected_option: { value: 'failures' } } },
  };
}

async function setup(
  o: {
    env?: Record<string, string>;
    store?: 'memory' | 'sqlite';
    posters?: PosterFactory;
    features?: readonly Feature[];
  } = {},
): Promise<Setup> {
  const clock = new FakeClock(Date.now());
  bot = await startTestBot({
    credentials: 'env',
    now: () => clock.now(),
    env: o.env ?? {},
    store: o.store ?? 'memory',
  });
  // The demo data's jobs moved when the stack started: the watches come later than the clock
  // allowance (WATCH_CLOCK_ALLOWANCE_SECONDS), so a first cycle does not announce them.
  clock.advance(10_000);
  const runtime = newRuntime(bot, clock, o.posters, o.features);
  return {
    bot,
    clock,
    runtime,
    ws: bot.ws.teamId,
    site: bot.emulator!.demo.defaultSiteId,
    channel: bot.ws.channel,
  };
}

function newRuntime(
  b: TestBot,
  clock: FakeClock,
  posters?: PosterFactory,
  features: readonly Feature[] = FEATURES,
): WatchRuntime {
  const r = createWatchRuntime(b.deps, b.handle.app, {
    features,
    clock,
    holderId: 'test-holder',
    watcher: { jitter: 0 },
    ...(posters ? { posters } : {}),
  });
  runtimes.push(r);
  return r;
}

const json = (x: unknown) => JSON.stringify(x ?? {});

/** Run a slash command and return the reply it got through response_url. */
async function command(
  b: TestBot,
  text: string,
  o: { user?: string; channel?: string } = {},
): Promise<FakeCall> {
  const seq = lastSeq(b);
  await b.command(text, o);
  return b.fake.waitFor(
    (c) => (c.method === 'response_url' || c.method === 'views.open') && c.seq > seq,
    8000,
  );
}

async function click(
  b: TestBot,
  actionId: string,
  value: string,
  o: { user?: string; channel?: string } = {},
) {
  const seq = lastSeq(b);
  await b.action({ actionId, value, ...o });
  return b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
}

/** Advance a poll interval and poll the site, then wait for the runtime's direct messages. */
async function poll(s: Setup, runtime = s.runtime) {
  s.clock.advance(60_000);
  const r = await runtime.watcher.pollOnce(s.ws, s.site);
  await runtime.idle();
  return r;
}

const cards = (b: TestBot, ch: string) => b.fake.messages(ch).filter((m) => !m.threadTs);
const thread = (b: TestBot, ch: string, ts: string) => b.fake.messages(ch).filter((m) => m.threadTs === ts);
const cardOf = (b: TestBot, ch: string, contentId: string): FakeMessage | undefined =>
  cards(b, ch).find((m) => json(m.blocks).includes(contentId));
const keysOf = (b: TestBot) =>
  b.fake
    .allMessages()
    .map((m) => (m.metadata?.event_payload as { key?: string } | undefined)?.key)
    .filter((k): k is string => !!k);
const duplicates = (keys: string[]) => keys.filter((k, i) => keys.indexOf(k) !== i);

async function dwmIds(s: Setup, jobId: number): Promise<number[]> {
  const demo = s.bot.emulator!.demo;
  const c = s.bot.deps.api.watermarking({ ...demo.watermarking, baseUrl: s.bot.emulator!.wmBaseUrl });
  return (await c.getJobTasks(s.site, jobId)).items.map((t) => t.dwmId);
}

describe('/dwm watch, unwatch, watches', () => {
  it('subscribes the channel, lists it with who created it, refuses a member removing an admin one', async () => {
    const s = await setup();
    const b = s.bot;
    const r = await command(b, `watch site:${s.site} mode:failures`, { user: b.ws.admin });
    expect(r.args.response_type).toBe('ephemeral');
    expect(json(r.args)).toContain('is now watching jobs on site');
    const subs = await s.runtime.watcher.subscriptions.list(s.ws, { channelId: s.channel });
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({ siteId: s.site, mode: 'failures', createdBy: b.ws.admin });

    const list = await command(b, 'watches', { user: b.ws.admin });
    expect(json(list.args)).toContain(`<@${b.ws.admin}>`);
    expect(json(list.args)).toContain('watch-unsubscribe');
    // A member's list has no Unsubscribe on a subscription someone else created (admin-only).
    const memberList = await command(b, 'watches', { user: b.ws.member });
    expect(json(memberList.args)).toContain(`<@${b.ws.admin}>`);
    expect(json(memberList.args)).not.toContain('watch-unsubscribe');
    expect(json(memberList.args)).toContain('Only its creator or an admin can resume or stop it');
    // Shared in the channel (read by members too): no such button, the command instead.
    const shared = await command(b, 'watches share', { user: b.ws.admin });
    expect(json(shared.args)).not.toContain('watch-unsubscribe');
    expect(json(shared.args)).toContain(`/dwm unwatch id:${subs[0]!.id}`);

    const refused = await command(b, 'unwatch', { user: b.ws.member });
    expect(json(refused.args)).toContain('Only admins can remove subscriptions someone else created');
    expect(await s.runtime.watcher.subscriptions.list(s.ws)).toHaveLength(1);
    const audit = await b.store.audit.list(s.ws);
    expect(
      audit.some((e) => e.action === 'watch.remove' && e.result === 'refused' && e.userId === b.ws.member),
    ).toBe(true);

    const byButton = await click(b, 'watch-unsubscribe', subs[0]!.id, { user: b.ws.member });
    expect(json(byButton.args)).toContain('Only admins can remove a job subscription someone else created');
    expect(await s.runtime.watcher.subscriptions.list(s.ws)).toHaveLength(1);

    const ok = await click(b, 'watch-unsubscribe', subs[0]!.id, { user: b.ws.admin });
    expect(json(ok.args)).toContain('Stopped');
    expect(await s.runtime.watcher.subscriptions.list(s.ws)).toHaveLength(0);
  });

  it('a member subscribes and removes their own; bad options are explained', async () => {
    const s = await setup();
    const b = s.bot;
    const bad = await command(b, 'watch status:finished-ish content:"a b"');
    expect(json(bad.args)).toContain('is not a job status');
    expect(json(bad.args)).toContain('is not a content filter');
    await command(b, `watch site:${s.site} status:completed,error content:trailer-*`);
    const [sub] = await s.runtime.watcher.subscriptions.list(s.ws);
    expect(sub).toMatchObject({ statuses: ['DM500', 'DM600'], content: 'trailer-*', createdBy: b.ws.member });
    const r = await command(b, 'unwatch');
    expect(json(r.args)).toContain('Stopped 1 subscription');
    expect(await s.runtime.watcher.subscriptions.list(s.ws)).toHaveLength(0);
  });

  it('the bot not in the channel: says how to invite it, subscribes nothing', async () => {
    const s = await setup();
    const r = await command(s.bot, `watch site:${s.site}`, { channel: s.bot.ws.channelWithoutBot });
    expect(json(r.args)).toContain('/invite @drm-chatops');
    expect(await s.runtime.watcher.subscriptions.list(s.ws)).toHaveLength(0);
  });

  it('with no options opens the form; submitting it subscribes', async () => {
    const s = await setup();
    const b = s.bot;
    const opened = await command(b, 'watch');
    expect(opened.method).toBe('views.open');
    const view = b.fake.lastView(b.ws.member, 'modal');
    expect(view?.callbackId).toBe('watch_subscribe');
    const seq = lastSeq(b);
    await b.viewSubmission({
      values: promoFailuresForm(s.site),
    });
    await b.fake.waitFor(
      (c) => c.method === 'views.update' && c.seq > seq && json(c.args).includes('now watching'),
      8000,
    );
    const [sub] = await s.runtime.watcher.subscriptions.list(s.ws);
    expect(sub).toMatchObject({
      statuses: ['DM600'],
      content: 'promo-*',
      mode: 'failures',
      channelId: s.channel,
    });
  });

  it('a form whose save fails after the ack comes back with what was chosen; submitted again it subscribes', async () => {
    const s = await setup();
    const b = s.bot;
    await command(b, 'watch');
    // Slack fails the channel-membership check the save makes (after "Saving…" is shown).
    b.fake.fail('conversations.members', { error: 'internal_error', times: 1 });
    b.fake.fail('conversations.info', { error: 'internal_error', times: 1 });
    const seq = lastSeq(b);
    await b.viewSubmission({
      values: promoFailuresForm(s.site),
    });
    const again = await b.fake.waitFor(
      (c) => c.method === 'views.update' && c.seq > seq && json(c.args).includes("Couldn't watch jobs"),
      8000,
    );
    expect(again.ok).toBe(true);
    const view = again.args.view as { callback_id: string; blocks: Array<Record<string, unknown>> };
    expect(view.callback_id).toBe('watch_subscribe');
    const el = (id: string) =>
      (view.blocks.find((x) => x.block_id === id)?.element ?? {}) as Record<string, unknown>;
    expect(el('watch_site').initial_option).toMatchObject({ value: s.site });
    expect(el('watch_statuses').initial_options).toEqual([expect.objectContaining({ value: 'DM600' })]);
    expect(el('watch_content').initial_value).toBe('promo-*');
    expect(el('watch_mode').initial_option).toMatchObject({ value: 'failures' });
    expect(await s.runtime.watcher.subscriptions.list(s.ws)).toHaveLength(0);

    // Slack is back: the same form, submitted again as it is, subscribes.
    b.fake.clearFailures();
    const seq2 = lastSeq(b);
    await b.viewSubmission({
      values: promoFailuresForm(s.site),
    });
    await b.fake.waitFor(
      (c) => c.method === 'views.update' && c.seq > seq2 && json(c.args).includes('now watching'),
      8000,
    );
    const [sub] = await s.runtime.watcher.subscriptions.list(s.ws);
    expect(sub).toMatchObject({ statuses: ['DM600'], content: 'promo-*', mode: 'failures' });
  });

  it('the form refuses a bad content filter inline', async () => {
    const s = await setup();
    const b = s.bot;
    await command(b, 'watch');
    const r = await b.viewSubmission({
      values: {
        watch_site: { value: { type: 'static_select', selected_option: { value: s.site } } },
        watch_content: { value: { type: 'plain_text_input', value: '<!channel>' } },
        watch_mode: { value: { type: 'radio_buttons', selected_option: { value: 'all' } } },
      },
    });
    expect(r.json).toMatchObject({ response_action: 'errors' });
    expect(json(r.json)).toContain('watch_content');
  });
});

describe('notifications', () => {
  it("a delivery refreshes the Home tab through the features' declared onHomeChanged", async () => {
    const heard: string[] = [];
    const features = FEATURES.map((f) =>
      f.name === 'home'
        ? {
            ...f,
            onHomeChanged: (_deps: unknown, ws: string) => {
              heard.push(ws);
            },
          }
        : f,
    );
    const s = await setup({ features });
    await command(s.bot, `watch site:${s.site}`);
    await poll(s); // baseline: silent
    s.bot.emulator!.createJob(s.site, 'home-probe', [{ recipient: 'alice' }]);
    await poll(s);
    expect(cardOf(s.bot, s.channel, 'home-probe')).toBeDefined();
    expect(heard).toContain(s.ws);
  });

  it('completion and failure: one card each, edited in place, thread replies, broadcasts per mode', async () => {
    const s = await setup();
    const b = s.bot;
    const failCh = 'C0FAILS0A';
    b.fake.addChannel(s.ws, { id: failCh, name: 'failures-only' });
    await command(b, `watch site:${s.site}`);
    await command(b, `watch site:${s.site} mode:failures`, { channel: failCh });
    await poll(s); // baseline: silent
    expect(b.fake.allMessages()).toHaveLength(0);

    const emu = b.emulator!;
    const okJob = emu.createJob(s.site, 'trailer-ok', [{ recipient: 'alice' }, { recipient: 'bob' }]);
    const badJob = emu.createJob(s.site, 'trailer-bad', [{ recipient: 'carol' }, { recipient: 'eve' }]);
    await poll(s);
    for (const ch of [s.channel, failCh]) {
      expect(cards(b, ch)).toHaveLength(2);
      expect(json(cardOf(b, ch, 'trailer-ok')?.blocks)).toContain('is ready to start');
    }
    s.clock.advance(1000);
    const [, eve] = await dwmIds(s, badJob);
    emu.finishJob(s.site, okJob);
    emu.finishJob(s.site, badJob, { failDwmIds: [eve!], cliErrorCode: 'E-417' });
    await poll(s);
    await poll(s);

    for (const ch of [s.channel, failCh]) {
      const ok = cardOf(b, ch, 'trailer-ok')!;
      const bad = cardOf(b, ch, 'trailer-bad')!;
      expect(cards(b, ch)).toHaveLength(2); // edited, never re-posted
      expect(ok.edited).toBe(true);
      expect(json(ok.blocks)).toContain('trailer-ok completed: 2 recipients');
      expect(json(bad.blocks)).toContain('trailer-bad failed: 1 of 2 recipients');
      expect(json(bad.blocks)).toContain('E-417');
      expect(json(bad.blocks)).toContain('eve');
      expect(json(bad.blocks)).toContain('watch-job-details');
      const okFinal = thread(b, ch, ok.ts).filter((m) => String(m.text).includes('completed: 2 recipients'));
      const badFinal = thread(b, ch, bad.ts).filter((m) => String(m.text).includes('ended in ERROR'));
      expect(okFinal).toHaveLength(1);
      expect(badFinal).toHaveLength(1);
      expect(badFinal[0]?.replyBroadcast).toBe(true);
      // mode all broadcasts completion too; mode failures keeps it in the thread
      expect(okFinal[0]?.replyBroadcast ?? false).toBe(ch === s.channel);
      // The broadcast stands alone in the channel: the first line and the buttons (the codes are
      // on the card, not copied again).
      expect(json(badFinal[0]?.blocks)).toContain('failed: 1 of 2 recipients');
      expect(json(badFinal[0]?.blocks)).toContain('watch-job-details');
      expect(json(badFinal[0]?.blocks)).not.toContain('E-417');
    }
    expect(duplicates(keysOf(b))).toEqual([]);
    // (Pacing is asserted in the one-channel 429 test: with two channels the shared virtual
    // clock jumps while a request is in flight, which real time does not do.)

    // Details and Export CSV on the card act with the clicking workspace's credentials
    const details = await click(b, 'watch-job-details', JSON.stringify({ s: s.site, j: badJob }));
    expect(json(details.args)).toContain('E-417');
    const exported = await click(b, 'watch-job-export', JSON.stringify({ s: s.site, j: badJob }));
    expect(json(exported.args)).toContain('direct message');
    expect(b.fake.calls('files.completeUploadExternal').some((c) => c.ok)).toBe(true);
    expect(b.fake.calls('files.getUploadURLExternal').map((c) => c.args.filename)).toContain(
      `job-${s.site}-${badJob}-tasks.csv`,
    );
    const foreign = await click(b, 'watch-job-details', JSON.stringify({ s: 'ZZ99', j: badJob }));
    expect(json(foreign.args)).toContain('not configured for this workspace');
  });

  it('a burst of 6 finishing jobs becomes one digest', async () => {
    const s = await setup();
    const b = s.bot;
    await command(b, `watch site:${s.site} status:completed,error`);
    await poll(s);
    const emu = b.emulator!;
    const jobs = Array.from({ length: 6 }, (_, i) =>
      emu.createJob(s.site, `burst-${i}`, [{ recipient: 'alice' }]),
    );
    s.clock.advance(1000);
    for (const j of jobs) emu.finishJob(s.site, j);
    await poll(s);
    await poll(s);
    const msgs = b.fake.messages(s.channel);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]?.text).toContain('6 jobs finished');
    for (let i = 0; i < 6; i++) expect(json(msgs[0]?.blocks)).toContain(`burst-${i}`);
  });

  it('a 429 storm from Slack delays but loses nothing, paced at 1 message/s per channel', async () => {
    const s = await setup();
    const b = s.bot;
    await command(b, `watch site:${s.site}`);
    await poll(s);
    const emu = b.emulator!;
    const jobs = Array.from({ length: 4 }, (_, i) =>
      emu.createJob(s.site, `storm-${i}`, [{ recipient: 'alice' }]),
    );
    b.fake.fail('chat.postMessage', { status: 429, retryAfterSeconds: 3, times: 12 });
    const t0 = s.clock.now();
    await poll(s);
    for (let i = 0; i < 5 && (await s.runtime.watcher.outbox.size(s.ws)) > 0; i++) await poll(s);
    expect(await s.runtime.watcher.outbox.size(s.ws)).toBe(0);
    expect(b.fake.calls('chat.postMessage').filter((c) => c.status === 429)).toHaveLength(12);
    for (let i = 0; i < jobs.length; i++) expect(cardOf(b, s.channel, `storm-${i}`)).toBeDefined();
    expect(cards(b, s.channel)).toHaveLength(4);
    expect(duplicates(keysOf(b))).toEqual([]);
    expect(b.fake.rateViolations()).toEqual([]);
    expect(s.clock.now() - t0).toBeGreaterThanOrEqual(12 * 3000);
  });

  it('an archived channel pauses the subscription and tells its creator, who can resume', async () => {
    const s = await setup();
    const b = s.bot;
    await command(b, `watch site:${s.site}`);
    await poll(s);
    // The member looks at the Home tab: its list of watches must show the pause.
    await b.event({ type: 'app_home_opened', user: b.ws.member, channel: 'D0HOME', tab: 'home' });
    await b.fake.waitFor(
      (c) =>
        c.method === 'views.publish' &&
        c.args.user_id === b.ws.member &&
        json(c.args.view).includes('Channel watches') &&
        !json(c.args.view).includes('paused'),
      8000,
    );
    // app_home_opened may publish twice (cached data, then fresh): let it settle first.
    await new Promise((r) => setTimeout(r, 500));
    const seqHome = lastSeq(b);
    b.fake.archiveChannel(s.ws, s.channel);
    b.emulator!.createJob(s.site, 'after-archive', [{ recipient: 'alice' }]);
    await poll(s);
    const [sub] = await s.runtime.watcher.subscriptions.list(s.ws);
    expect(sub?.paused?.code).toBe('is_archived');
    const home = await b.fake.waitFor(
      (c) =>
        c.method === 'views.publish' &&
        c.seq > seqHome &&
        c.args.user_id === b.ws.member &&
        json(c.args.view).includes('paused'),
      8000,
    );
    expect(json(home.args.view)).toContain(`<#${s.channel}>`);
    const dms = b.fake.messages(`D${b.ws.member.slice(1)}`);
    expect(dms).toHaveLength(1);
    expect(json(dms[0]?.blocks)).toContain('are paused');
    expect(json(dms[0]?.blocks)).toContain('watch-resume');
    // still archived: Resume says why and keeps it paused
    const still = await click(b, 'watch-resume', sub!.id, { channel: `D${b.ws.member.slice(1)}` });
    expect(json(still.args)).toContain('archived');
    b.fake.archiveChannel(s.ws, s.channel, false);
    const resumed = await click(b, 'watch-resume', sub!.id, { channel: `D${b.ws.member.slice(1)}` });
    expect(json(resumed.args)).toContain('resumed');
    expect((await s.runtime.watcher.subscriptions.get(s.ws, sub!.id))?.paused).toBeUndefined();
  });

  it('restart mid-delivery (posted, not recorded): the next runtime finds it by metadata, no duplicate', async () => {
    let crash = true;
    const clockHolder: { b?: TestBot } = {};
    const crashing: PosterFactory = {
      client: (ws) => real().client(ws),
      forget: (ws) => real().forget(ws),
      poster(ws) {
        const p = real().poster(ws);
        return {
          post: async (ch, m, o) => {
            const r = await p.post(ch, m, o);
            if (crash) {
              crash = false;
              throw new Error('process killed after posting');
            }
            return r;
          },
          update: (ch, ts, m) => p.update(ch, ts, m),
          findByMetadata: (...a) => p.findByMetadata(...a),
        };
      },
    };
    let factory: PosterFactory | undefined;
    const real = () => {
      factory ??= createPosterFactory(clockHolder.b!.deps);
      return factory;
    };
    const s = await setup({ store: 'sqlite', posters: crashing });
    clockHolder.b = s.bot;
    const b = s.bot;
    await command(b, `watch site:${s.site}`);
    await poll(s);
    b.emulator!.createJob(s.site, 'crash-a', [{ recipient: 'alice' }]);
    b.emulator!.createJob(s.site, 'crash-b', [{ recipient: 'bob' }]);
    await poll(s);
    expect(cards(b, s.channel)).toHaveLength(1); // posted, then "killed"
    await s.runtime.stop();

    const second = newRuntime(b, s.clock);
    await poll(s, second);
    expect(cards(b, s.channel)).toHaveLength(2);
    expect(duplicates(keysOf(b))).toEqual([]);
    expect(b.fake.calls('conversations.history').length).toBeGreaterThan(0);
  });

  it('credentials refused: polling pauses, admins are told once, resumes when setup is fixed', async () => {
    const s = await setup({ env: { ADMIN_USER_IDS: 'U0ADMINA' } });
    const b = s.bot;
    await command(b, `watch site:${s.site}`);
    await poll(s);
    b.emulator!.faults.add({ match: /GET \/wm\/api\/job/, status: 401 });
    b.emulator!.expireTokens();
    await poll(s);
    await poll(s);
    const adminDms = b.fake.messages(`D${b.ws.admin.slice(1)}`);
    expect(adminDms).toHaveLength(1);
    expect(json(adminDms[0]?.blocks)).toContain('/dwm setup');
    expect((await poll(s)).skipped).toBe('paused');

    b.emulator!.faults.clear();
    await notifyCredentialsSaved(s.bot.deps, s.ws);
    expect((await poll(s)).skipped).toBeUndefined();
    expect(b.fake.messages(`D${b.ws.admin.slice(1)}`)).toHaveLength(1);
  });

  it('store credentials saved again after an auth pause resume polling by themselves', async () => {
    const clock = new FakeClock(Date.now());
    bot = await startTestBot({ credentials: 'store', now: () => clock.now() });
    const s: Setup = {
      bot,
      clock,
      runtime: newRuntime(bot, clock),
      ws: bot.ws.teamId,
      site: bot.emulator!.demo.defaultSiteId,
      channel: bot.ws.channel,
    };
    await command(bot, `watch site:${s.site}`);
    await poll(s);
    bot.emulator!.faults.add({ match: /GET \/wm\/api\/job/, status: 401 });
    bot.emulator!.expireTokens();
    await poll(s);
    // the saver of the credentials is told
    expect(bot.fake.messages(`D${bot.ws.admin.slice(1)}`)).toHaveLength(1);
    expect(await s.runtime.checkResumes()).toEqual([]); // nothing changed yet
    expect((await poll(s)).skipped).toBe('paused');
    bot.emulator!.faults.clear();
    const stored = await bot.store.credentials.get(s.ws);
    await bot.store.credentials.put(s.ws, {
      ...stored!,
      verifiedAt: new Date(clock.now() + 1).toISOString(),
    });
    expect(await s.runtime.checkResumes()).toEqual([s.ws]);
    expect((await poll(s)).skipped).toBeUndefined();
  });
});

describe('workspaces stay apart', () => {
  it("workspace B cannot remove or resume A's subscription by its id", async () => {
    const clock = new FakeClock(Date.now());
    bot = await startTestBot({ workspaces: 2, now: () => clock.now() });
    const [a, b] = bot.workspaces as [typeof bot.ws, typeof bot.ws];
    const site = bot.emulator!.demo.defaultSiteId;
    await command(bot, `watch site:${site}`, { user: a.admin });
    const subs = new (await import('../../../../src/watch/index.js')).Subscriptions(bot.store);
    const [sub] = await subs.list(a.teamId);
    expect(sub).toBeDefined();
    for (const actionId of ['watch-unsubscribe', 'watch-resume']) {
      const seq = lastSeq(bot);
      await bot.action({ actionId, value: sub!.id, team: b, user: b.admin });
      const r = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
      expect(json(r.args)).toContain('no longer exists');
    }
    expect(await subs.list(a.teamId)).toHaveLength(1);
  });
});
