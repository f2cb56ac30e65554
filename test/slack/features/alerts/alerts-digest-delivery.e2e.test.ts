/**
 * License-failure alerts and daily digests delivered end to end: subscribed through signed slash
 * commands to the real app, the emulator's license list and jobs behind it, the notify runtime
 * (src/slack/notify-runtime.ts) posting through the fake Slack, everything on ONE virtual clock.
 * Scheduler passes are driven by the test (`tick`), never by real time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { NewLicenseRec } from '../../../../dev/emulator/svc-state.js';
import type { FakeMessage } from '../../../../dev/fakeslack/index.js';
import type { AppDeps } from '../../../../src/slack/deps.js';
import { FEATURES } from '../../../../src/slack/features/index.js';
import { createNotifyRuntime } from '../../../../src/slack/notify-runtime.js';
import { createStore } from '../../../../src/store/index.js';
import { json, type NotifySetup, newNotifyRuntime, setupNotify, tick } from '../../../support/notify.js';
import { actionElements, type Block, lastSeq } from '../../../support/slack.js';

let s: NotifySetup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function command(
  x: NotifySetup,
  text: string,
  o: { command?: '/dwm' | '/drm'; channel?: string; user?: string } = {},
) {
  const seq = lastSeq(x.bot);
  const r = await x.bot.command(text, {
    command: o.command ?? '/drm',
    user: o.user ?? x.bot.ws.member,
    ...(o.channel ? { channel: o.channel } : {}),
  });
  expect(r.status).toBe(200);
  return x.bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
}

/** `count` license records in the few minutes before now. */
function records(
  x: NotifySetup,
  count: number,
  status: 'success' | 'fail',
  o: { errorCode?: string; cid?: string; device?: string } = {},
): NewLicenseRec[] {
  const now = x.clock.now() - 1000;
  return Array.from({ length: count }, (_, i) => ({
    cid: o.cid ?? `movie-${i % 3}`,
    status,
    ...(o.errorCode ? { errorCode: o.errorCode } : {}),
    ...(o.device ? { deviceId: o.device, deviceModel: 'Galaxy S24' } : {}),
    regTimeMs: now - i * 1000,
  }));
}

const topLevel = (x: NotifySetup, ch: string) => x.bot.fake.messages(ch).filter((m) => !m.threadTs);
const replies = (x: NotifySetup, ch: string, ts: string) =>
  x.bot.fake.messages(ch).filter((m) => m.threadTs === ts);
const textOf = (m: FakeMessage | undefined) => json(m?.blocks);

describe('license-failure alerts', () => {
  it('a failure spike posts ONE alert per subscribed channel (command or form), updated while it lasts (also after a restart), and a recovery reply when it falls', async () => {
    const x = await setupNotify();
    s = x;
    const site = x.bot.emulator!.demo.defaultSiteId;
    const ch = 'C0ALERTE2';
    x.bot.fake.addChannel(x.ws, { id: ch, name: 'alerts' });
    await command(x, `alerts watch site:${site} ratio:20% min:10 window:15`, { channel: ch });
    // A second channel subscribes through the form (same site, its own thresholds).
    const formCh = 'C0ALFORM2';
    x.bot.fake.addChannel(x.ws, { id: formCh, name: 'alerts-form' });
    const seqForm = lastSeq(x.bot);
    await x.bot.command('alerts watch', { command: '/drm', user: x.bot.ws.member, channel: formCh });
    await x.bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seqForm, 8000);
    await x.bot.viewSubmission({
      values: {
        alerts_site: { value: { type: 'static_select', selected_option: { value: site } } },
        alerts_ratio: { value: { type: 'plain_text_input', value: '25' } },
        alerts_min: { value: { type: 'plain_text_input', value: '5' } },
        alerts_window: { value: { type: 'plain_text_input', value: '15' } },
      },
    });
    await x.bot.fake.waitFor((c) => c.method === 'views.update' && json(c.args).includes('now gets'), 8000);

    await tick(x); // baseline
    expect(x.bot.fake.messages(ch)).toHaveLength(0);
    expect(x.bot.fake.messages(formCh)).toHaveLength(0);

    const emu = x.bot.emulator!;
    emu.addLicenses(site, records(x, 20, 'success'));
    emu.addLicenses(
      site,
      records(x, 10, 'fail', { errorCode: '1003', cid: 'trailer-<!channel>', device: 'dev-9' }),
    );
    await tick(x);
    const [alert] = topLevel(x, ch);
    expect(topLevel(x, ch)).toHaveLength(1);
    expect(textOf(alert)).toContain('License failures on site');
    expect(textOf(alert)).toContain('10 of 30 failed (33%)');
    expect(textOf(alert)).toContain('`1003` × 10');
    expect(textOf(alert)).toContain('`trailer-&lt;!channel&gt;` × 10');
    // Device models only: the device id is an end viewer's personal data, and the channel reads it.
    expect(textOf(alert)).toContain('Galaxy S24 × 10');
    expect(textOf(alert)).not.toContain('dev-9');
    expect(textOf(alert)).not.toContain('<!channel>');
    expect(topLevel(x, formCh)).toHaveLength(1);
    expect(textOf(topLevel(x, formCh)[0])).toContain('threshold 25%');

    // The bot restarts; still failing: the same alert is updated, nothing new is posted.
    await x.runtime.stop();
    const restarted = newNotifyRuntime(x.bot, x.clock);
    const seq = lastSeq(x.bot);
    emu.addLicenses(site, records(x, 10, 'fail', { errorCode: '2001' }));
    await tick(x, restarted);
    expect(topLevel(x, ch)).toHaveLength(1);
    const updates = x.bot.fake
      .calls('chat.update')
      .filter((c) => c.seq > seq && c.args.channel === ch && c.args.ts === alert!.ts);
    expect(updates.length).toBeGreaterThan(0);
    expect(textOf(topLevel(x, ch)[0])).toContain('20 of 40 failed (50%)');

    // Back under the ratio: one reply in the alert's thread, the alert says it recovered.
    emu.addLicenses(site, records(x, 200, 'success'));
    await tick(x, restarted);
    expect(topLevel(x, ch)).toHaveLength(1);
    const thread = replies(x, ch, alert!.ts);
    expect(thread).toHaveLength(1);
    expect(textOf(thread[0])).toContain('are back under 20%');
    expect(textOf(thread[0])).toContain('peaked at 50%');
    expect(textOf(topLevel(x, ch)[0])).toContain('Recovered');

    await tick(x, restarted);
    expect(x.bot.fake.messages(ch)).toHaveLength(2);
    expect(topLevel(x, formCh)).toHaveLength(1);
    expect(replies(x, formCh, topLevel(x, formCh)[0]!.ts)).toHaveLength(1);
    await restarted.stop();
  });
});

describe('muting a license-failure alert', () => {
  it("the alert's Mute 1 h button: refused to another member, then no update for an hour, then the alert resumes", async () => {
    const x = await setupNotify();
    s = x;
    const site = x.bot.emulator!.demo.defaultSiteId;
    const ch = 'C0ALMUTE2';
    const other = 'U0OTHERMU';
    x.bot.fake.addChannel(x.ws, { id: ch, name: 'alerts-mute' });
    x.bot.fake.addUser(x.ws, { id: other, name: 'other' });
    await command(x, `alerts watch site:${site} ratio:20% min:10 window:15`, { channel: ch });
    await tick(x);
    const emu = x.bot.emulator!;
    emu.addLicenses(site, records(x, 20, 'fail', { errorCode: '1003' }));
    await tick(x);
    const [alert] = topLevel(x, ch);
    expect(alert).toBeDefined();
    const buttons = actionElements((alert!.blocks ?? []) as Block[]);
    const mute = buttons.find((e) => e.text.text === 'Mute 1 h');
    expect(mute).toBeDefined();
    // Show failed licenses asks for the days of the alert's window (the list filters by day).
    const show = buttons.find((e) => e.text.text === 'Show failed licenses');
    expect(show?.value).toMatch(/status:fail from:\d{4}-\d{2}-\d{2} to:\d{4}-\d{2}-\d{2}/);
    const click = async (user: string) => {
      const seq = lastSeq(x.bot);
      await x.bot.action({
        actionId: mute!.action_id,
        value: mute!.value,
        user,
        channel: ch,
        messageTs: alert!.ts,
      });
      return x.bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    };
    const refused = await click(other);
    expect(refused.args.response_type).toBe('ephemeral');
    expect(json(refused.args)).toContain('Not muted');
    const ok = await click(x.bot.ws.member);
    expect(ok.args.response_type).toBe('ephemeral');
    expect(json(ok.args)).toContain('Muted the license-failure alert');
    const updatesOf = (since: number) =>
      x.bot.fake
        .calls('chat.update')
        .filter((c) => c.seq > since && c.args.channel === ch && c.args.ts === alert!.ts);
    // The alert says it is muted, until when and by whom.
    await x.bot.fake.waitFor(
      (c) => c.method === 'chat.update' && c.args.ts === alert!.ts && json(c.args).includes('Muted until'),
      8000,
    );
    // /drm alerts says it is muted.
    const list = await command(x, 'alerts', { channel: ch });
    expect(json(list.args)).toContain('muted until');
    // Still failing, more each check: the alert is not updated and nothing new is posted.
    const seq = lastSeq(x.bot);
    for (let i = 0; i < 3; i++) {
      emu.addLicenses(site, records(x, 5, 'fail', { errorCode: '1003' }));
      await tick(x);
    }
    expect(updatesOf(seq)).toHaveLength(0);
    expect(topLevel(x, ch)).toHaveLength(1);
    // An hour later it resumes: the failures have left the window, so the alert says it
    // recovered (updated in place, a reply in its thread), and the next spike is a new alert.
    await tick(x, x.runtime, 3600_000);
    expect(updatesOf(seq).length).toBeGreaterThan(0);
    expect(textOf(topLevel(x, ch)[0])).toContain('Recovered');
    expect(replies(x, ch, alert!.ts)).toHaveLength(1);
    emu.addLicenses(site, records(x, 30, 'fail', { errorCode: '1003' }));
    await tick(x);
    expect(topLevel(x, ch)).toHaveLength(2);
    expect(textOf(topLevel(x, ch)[1])).toContain('30 of 30 failed');
    const log = await x.bot.store.audit.list(x.ws);
    expect(log.filter((e) => e.action === 'alerts.mute').map((e) => e.result)).toEqual(
      expect.arrayContaining(['ok', 'refused']),
    );
  });
});

describe('daily digest', () => {
  it('/dwm digest now posts the digest at once (the runtime is kicked), once', async () => {
    const x = await setupNotify();
    s = x;
    const ch = 'C0DIGNOW2';
    x.bot.fake.addChannel(x.ws, { id: ch, name: 'digest-now' });
    x.runtime.start();
    const reply = await command(x, 'digest now', { command: '/dwm', channel: ch });
    expect(json(reply.args)).toContain('on its way');
    const post = await x.bot.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.args.channel === ch,
      8000,
    );
    expect(json(post.args)).toContain('Digest · last 24 hours');
    expect(json(post.args)).toContain('*Jobs*');
    expect(json(post.args)).toContain('*Licenses*');
    // Times in the asker's zone (the member's Slack zone).
    expect(json(post.args)).toContain('America/New_York');
    await tick(x);
    expect(x.bot.fake.messages(ch)).toHaveLength(1);
  });

  it('a scheduled digest posts once a day with two replicas on one Redis store; a missed day is posted late once, with a note', async () => {
    const x = await setupNotify({ bot: { store: 'redis' } });
    s = x;
    // The second replica: its own connection to the same store, its own notifier and holder id.
    const storeB = await createStore({
      url: x.bot.config.storeUrl,
      encryptionKey: x.bot.config.encryptionKey,
      previousEncryptionKeys: x.bot.config.previousEncryptionKeys,
      namespace: x.bot.storeNamespace,
    });
    const depsB: AppDeps = { ...x.bot.deps, store: storeB };
    const other = createNotifyRuntime(depsB, { clock: x.clock, holderId: 'replica-b', features: FEATURES });
    const ch = 'C0DIGDAY2';
    x.bot.fake.addChannel(x.ws, { id: ch, name: 'digest-daily' });
    // Two minutes from now, in UTC (HH:MM).
    const at = new Date(x.clock.now() + 2 * 60_000);
    const hhmm = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
    const r = await command(x, `digest daily ${hhmm} UTC`, { command: '/dwm', channel: ch });
    expect(json(r.args)).toContain('Daily digest scheduled');

    const both = async () => {
      x.clock.advance(60_000);
      await Promise.all([x.runtime.notifier.tick(), other.notifier.tick()]);
      await Promise.all([x.runtime.idle(), other.idle()]);
    };
    for (let i = 0; i < 5; i++) await both();
    const day1 = topLevel(x, ch);
    expect(day1).toHaveLength(1);
    expect(textOf(day1[0])).toContain('Daily digest · ');
    expect(textOf(day1[0])).not.toContain('Posted late');

    // The next day, on time: one more.
    x.clock.advance(24 * 3600_000 - 5 * 60_000);
    for (let i = 0; i < 5; i++) await both();
    expect(topLevel(x, ch)).toHaveLength(2);

    // Both replicas down for three days: one digest, late, naming the days it missed.
    x.clock.advance(3 * 24 * 3600_000 + 3600_000);
    for (let i = 0; i < 3; i++) await both();
    const all = topLevel(x, ch);
    expect(all).toHaveLength(3);
    const late = textOf(all[2]);
    expect(late).toContain('*Posted late*');
    expect(late).toContain('No digest was posted for');
    const missed = (late.match(/`\d{4}-\d\d-\d\d`/g) ?? []).map((d) => d.replaceAll('`', ''));
    expect(missed).toHaveLength(2);
    // The plain-text fallback (notifications, screen readers) says it too, naming the same days.
    const fallback = String(all[2]?.text);
    expect(fallback).toContain('posted late');
    for (const d of missed) expect(fallback).toContain(d);
    const days = all.map((m) => /Daily digest · (\d{4}-\d\d-\d\d)/.exec(textOf(m))?.[1]);
    expect(new Set(days).size).toBe(3);
    await other.stop();
    await storeB.close();
  });
});

describe('metrics', () => {
  /** A sample of the scrape: the line of `name` carrying every label given (0 when absent). */
  const sample = (text: string, name: string, ...labels: string[]): number => {
    const line = text
      .split('\n')
      .find(
        (l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && labels.every((x) => l.includes(x)),
      );
    return line ? Number(line.trim().split(/\s+/).pop()) : Number.NaN;
  };

  it('/metrics serves the notices by kind and outcome, the notify polls and the pending notices', async () => {
    const x = await setupNotify();
    s = x;
    const ch = 'C0METRICS1';
    x.bot.fake.addChannel(x.ws, { id: ch, name: 'metrics' });
    const before = (await x.bot.get('/metrics')).text;
    const polls = (t: string) =>
      sample(t, 'drmchatops_notify_polls_total', 'feature="alerts"', 'outcome="ok"') || 0;
    const digests = (t: string, outcome: string) =>
      sample(t, 'drmchatops_notices_total', 'kind="digest"', `outcome="${outcome}"`) || 0;

    await command(x, 'alerts watch ratio:20% min:5 window:15', { channel: ch });
    await tick(x);
    // Slack rate-limits the digest's post: it waits in the outbox (deferred).
    x.bot.fake.fail('chat.postMessage', { status: 429, retryAfterSeconds: 600, times: 4 });
    await command(x, 'digest now', { command: '/dwm', channel: ch });
    await x.runtime.idle();
    const waiting = (await x.bot.get('/metrics')).text;
    expect(waiting).toContain('# TYPE drmchatops_notices_pending gauge');
    expect(sample(waiting, 'drmchatops_notices_pending')).toBe(1);
    expect(polls(waiting)).toBeGreaterThan(polls(before));
    expect(digests(waiting, 'retried')).toBe(digests(before, 'retried') + 1);

    await tick(x, x.runtime, 700_000);
    expect(x.bot.fake.messages(ch).filter((m) => json(m.blocks).includes('Digest'))).toHaveLength(1);
    const after = (await x.bot.get('/metrics')).text;
    expect(sample(after, 'drmchatops_notices_pending')).toBe(0);
    expect(digests(after, 'delivered')).toBe(digests(before, 'delivered') + 1);
  });
});
