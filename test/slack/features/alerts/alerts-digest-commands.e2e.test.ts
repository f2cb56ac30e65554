/**
 * `/drm alerts …` and `/dwm digest …` end to end: signed slash commands and form submissions to
 * the real app, the emulator behind it and the fake Slack in front; the store is checked for what
 * the commands did (subscriptions, schedules, the notices outbox, audit entries).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeCall } from '../../../../dev/fakeslack/index.js';
import { registry as metrics } from '../../../../src/metrics.js';
import { AlertSubscriptions } from '../../../../src/notices/alert-subscriptions.js';
import { DigestSchedules } from '../../../../src/notices/digest-schedules.js';
import { NoticeOutbox } from '../../../../src/notices/outbox.js';
import { licenseAlertMessage } from '../../../../src/slack/features/alerts/render.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { type Block, button, lastSeq } from '../../../support/slack.js';

let bot: TestBot;
let ws: string;
let site: string;
/** A second member, to show the ownership rules. */
const OTHER = 'U0OTHER0A';
/** A channel whose member list leaves out the member (the form's membership check). */
const CLOSED = 'C0CLOSED0A';
/** Where the audit log is mirrored. */
const AUDIT = 'C0AUDIT00A';

beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env', env: { AUDIT_CHANNEL_ID: AUDIT } });
  ws = bot.ws.teamId;
  site = bot.emulator!.demo.defaultSiteId;
  bot.fake.addUser(ws, { id: OTHER, name: 'other', tz: 'Europe/Berlin' });
  bot.fake.addChannel(ws, { id: CLOSED, name: 'closed', members: [bot.ws.admin] });
  bot.fake.addChannel(ws, { id: AUDIT, name: 'audit' });
});
afterAll(async () => {
  // Nothing these commands logged carries a secret.
  expect(bot.logs.leaked(bot.secrets())).toEqual([]);
  await bot?.close();
});

const json = (x: unknown) => JSON.stringify(x ?? {});

/** Run a command; the reply it got (response_url) or the modal it opened (views.open). */
async function run(
  text: string,
  o: { command?: '/dwm' | '/drm'; user?: string; channel?: string } = {},
): Promise<FakeCall> {
  const seq = lastSeq(bot);
  const r = await bot.command(text, {
    command: o.command ?? '/drm',
    user: o.user ?? bot.ws.member,
    ...(o.channel ? { channel: o.channel } : {}),
  });
  expect(r.status).toBe(200);
  return bot.fake.waitFor(
    (c) => (c.method === 'response_url' || c.method === 'views.open') && c.seq > seq,
    8000,
  );
}

const alertSubs = () => new AlertSubscriptions(bot.store);
const audit = async (action: string) =>
  (await bot.store.audit.list(ws, { limit: 100 })).filter((e) => e.action === action);

function formValues(v: { site: string; ratio: string; min: string; window: string }) {
  return {
    alerts_site: { value: { type: 'static_select', selected_option: { value: v.site } } },
    alerts_ratio: { value: { type: 'plain_text_input', value: v.ratio } },
    alerts_min: { value: { type: 'plain_text_input', value: v.min } },
    alerts_window: { value: { type: 'plain_text_input', value: v.window } },
  };
}

describe('/drm alerts', () => {
  it('watch with thresholds subscribes the channel (audited); the list shows it; help names it', async () => {
    const r = await run(`alerts watch site:${site} ratio:30% min:10 window:20`);
    expect(r.method).toBe('response_url');
    expect(r.args.response_type).toBe('ephemeral');
    expect(json(r.args)).toContain('now gets license-failure alerts');
    const [sub] = await alertSubs().list(ws, { channelId: bot.ws.channel });
    expect(sub).toMatchObject({
      siteId: site,
      ratioPct: 30,
      minRequests: 10,
      windowMinutes: 20,
      createdBy: bot.ws.member,
    });
    expect((await audit('alerts.watch')).some((e) => e.result === 'ok' && e.userId === bot.ws.member)).toBe(
      true,
    );
    // …and mirrored to the audit channel.
    await bot.fake.waitFor(
      (c) =>
        c.method === 'chat.postMessage' && c.args.channel === AUDIT && json(c.args).includes('alerts.watch'),
      8000,
    );
    const list = await run('alerts');
    expect(json(list.args)).toContain('fail ratio 30% · at least 10 requests · 20-minute window');
    const help = await run('alerts help');
    expect(json(help.args)).toContain('alerts watch');
    const m = await metrics.getSingleMetricAsString('drmchatops_commands_total');
    expect(m).toContain('command="/drm alerts watch",outcome="ok"');
  });

  it('another member cannot change those thresholds (refused, audited, names the owner); an admin can', async () => {
    const refused = await run(`alerts watch site:${site} ratio:50%`, { user: OTHER });
    expect(json(refused.args)).toContain(':lock:');
    expect(json(refused.args)).toContain(`<@${bot.ws.member}>`);
    expect((await audit('alerts.watch')).some((e) => e.result === 'refused' && e.userId === OTHER)).toBe(
      true,
    );
    const [kept] = await alertSubs().list(ws, { channelId: bot.ws.channel });
    expect(kept?.ratioPct).toBe(30);

    const admin = await run(`alerts watch site:${site} ratio:50%`, { user: bot.ws.admin });
    expect(json(admin.args)).toContain('changed the thresholds');
    const [changed] = await alertSubs().list(ws, { channelId: bot.ws.channel });
    expect(changed).toMatchObject({ ratioPct: 50, minRequests: 10, createdBy: bot.ws.member });
  });

  it('bad values are a correction that says what to fix; nothing is saved', async () => {
    const r = await run('alerts watch ratio:abc window:2');
    expect(json(r.args)).toContain('Nothing was run: check what you typed');
    expect(json(r.args)).toContain('is not a fail ratio');
    expect(json(r.args)).toContain('is not a window');
  });

  it('without thresholds a form opens; its submission subscribes (inline errors first)', async () => {
    const ch = 'C0FORM00A';
    bot.fake.addChannel(ws, { id: ch, name: 'form' });
    const opened = await run('alerts watch', { channel: ch });
    expect(opened.method).toBe('views.open');
    const view = bot.fake.lastView(bot.ws.member, 'modal');
    expect(view?.callbackId).toBe('alerts_watch');
    expect(json(opened.args)).toContain('"initial_value":"20"');

    const bad = await bot.viewSubmission({
      values: formValues({ site, ratio: '0', min: '20', window: '15' }),
    });
    expect(bad.json).toMatchObject({ response_action: 'errors' });
    expect(json(bad.json)).toContain('alerts_ratio');
    expect(await alertSubs().list(ws, { channelId: ch })).toHaveLength(0);

    const seq = lastSeq(bot);
    await bot.viewSubmission({ values: formValues({ site, ratio: '25%', min: '5', window: '30' }) });
    await bot.fake.waitFor(
      (c) => c.method === 'views.update' && c.seq > seq && json(c.args).includes('now gets'),
      8000,
    );
    const [sub] = await alertSubs().list(ws, { channelId: ch });
    expect(sub).toMatchObject({ ratioPct: 25, minRequests: 5, windowMinutes: 30, createdBy: bot.ws.member });
  });

  it('a form whose save fails after the ack comes back with the thresholds entered', async () => {
    const ch = 'C0FORM00B';
    bot.fake.addChannel(ws, { id: ch, name: 'form-again' });
    await run('alerts watch', { channel: ch });
    // Slack fails the channel-membership check the save makes (after "Saving…" is shown).
    bot.fake.fail('conversations.members', { error: 'internal_error', times: 1 });
    bot.fake.fail('conversations.info', { error: 'internal_error', times: 1 });
    const seq = lastSeq(bot);
    await bot.viewSubmission({ values: formValues({ site, ratio: '35%', min: '7', window: '45' }) });
    const again = await bot.fake.waitFor(
      (c) => c.method === 'views.update' && c.seq > seq && json(c.args).includes("Couldn't set up"),
      8000,
    );
    bot.fake.clearFailures();
    expect(again.ok).toBe(true);
    const text = json(again.args);
    expect(text).toContain('"callback_id":"alerts_watch"');
    for (const v of ['"initial_value":"35%"', '"initial_value":"7"', '"initial_value":"45"']) {
      expect(text).toContain(v);
    }
    expect(await alertSubs().list(ws, { channelId: ch })).toHaveLength(0);
  });

  it('the form refuses a member who is not in the channel; the bot must be able to post there', async () => {
    await run('alerts watch', { channel: CLOSED });
    const seq = lastSeq(bot);
    await bot.viewSubmission({ values: formValues({ site, ratio: '20', min: '20', window: '15' }) });
    const up = await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq, 8000);
    expect(json(up.args)).toContain('only in a channel you are a member of');
    expect(await alertSubs().list(ws, { channelId: CLOSED })).toHaveLength(0);

    const invite = await run('alerts watch ratio:20', { channel: bot.ws.channelWithoutBot });
    expect(json(invite.args)).toContain('The app is not in');
    expect(json(invite.args)).toContain('/invite @drm-chatops');
    expect(await alertSubs().list(ws, { channelId: bot.ws.channelWithoutBot })).toHaveLength(0);
  });

  it('a subscription Slack refused (paused) is resumed by subscribing again with the same thresholds', async () => {
    const [sub] = await alertSubs().list(ws, { channelId: bot.ws.channel });
    await alertSubs().pause(ws, sub!.id, {
      reason: 'gone',
      code: 'not_in_channel',
      at: new Date().toISOString(),
    });
    const list = await run('alerts');
    expect(json(list.args)).toContain('*Paused*');
    const r = await run(`alerts watch site:${site} ratio:50% min:10 window:20`);
    expect(json(r.args)).toContain('gets again license-failure alerts');
    const [resumed] = await alertSubs().list(ws, { channelId: bot.ws.channel });
    expect(resumed?.paused).toBeUndefined();
  });

  it('stop keeps what someone else set up (for members) and removes your own', async () => {
    const other = await run('alerts stop', { user: OTHER });
    expect(json(other.args)).toContain('Only admins can stop alerts someone else set up');
    expect(await alertSubs().list(ws, { channelId: bot.ws.channel })).toHaveLength(1);
    const mine = await run(`alerts stop site:${site}`);
    expect(json(mine.args)).toContain('Stopped the license-failure alerts');
    expect(await alertSubs().list(ws, { channelId: bot.ws.channel })).toHaveLength(0);
    expect((await audit('alerts.stop')).map((e) => e.result)).toEqual(
      expect.arrayContaining(['ok', 'refused']),
    );
    const none = await run('alerts');
    expect(json(none.args)).toContain('gets no license-failure alerts');
  });

  it("the alert's Show failed licenses button lists the site's failed licenses for the one who clicks", async () => {
    const alert = licenseAlertMessage(
      {
        kind: 'alert',
        state: 'open',
        subscription: {
          id: 'x',
          workspace: ws,
          channelId: bot.ws.channel,
          siteId: site,
          ratioPct: 20,
          minRequests: 20,
          windowMinutes: 15,
          createdBy: bot.ws.member,
          createdAt: new Date().toISOString(),
        },
        stats: {
          siteId: site,
          fromMs: 0,
          toMs: 1,
          total: 2,
          failed: 1,
          ratio: 0.5,
          truncated: false,
          topErrors: [],
          topContent: [],
          topDevices: [],
        },
        startedAt: 0,
        peakRatio: 0.5,
      } as never,
      'UTC',
    );
    const show = button((alert.blocks ?? []) as Block[], (e) => e.text.text === 'Show failed licenses');
    expect(show).toBeDefined();
    const click = async (user: string) => {
      const seq = lastSeq(bot);
      await bot.action({ actionId: show!.action_id, value: show!.value, user, channel: bot.ws.channel });
      return bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    };
    // License records name end viewers: an admin sees them, only to them.
    const r = await click(bot.ws.admin);
    expect(r.args.response_type).toBe('ephemeral');
    expect(json(r.args)).not.toContain('Did you mean');
    expect(json(r.args)).not.toMatch(/:warning:|Couldn't|Only admins/);
    expect(json(r.args).toLowerCase()).toContain('license');
    // A member reading the channel is refused, as for the command itself.
    const m = await click(bot.ws.member);
    expect(m.args.response_type).toBe('ephemeral');
    expect(json(m.args)).toContain('Only admins');
  });

  it("the alert's Stop button stops it like the command: refused to someone else, done for its creator", async () => {
    await run(`alerts watch site:${site} ratio:20`);
    expect(await alertSubs().list(ws, { channelId: bot.ws.channel })).toHaveLength(1);
    const value = JSON.stringify({ w: ws, c: bot.ws.channel, s: site });
    const click = async (user: string) => {
      const seq = lastSeq(bot);
      await bot.action({ actionId: 'alerts_stop', value, user, channel: bot.ws.channel });
      return bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    };
    expect(json((await click(OTHER)).args)).toContain('Only admins can stop alerts someone else set up');
    expect(await alertSubs().list(ws, { channelId: bot.ws.channel })).toHaveLength(1);
    expect(json((await click(bot.ws.member)).args)).toContain('Stopped the license-failure alerts');
    expect(await alertSubs().list(ws, { channelId: bot.ws.channel })).toHaveLength(0);
  });
});

describe('/dwm digest', () => {
  const schedules = () => new DigestSchedules(bot.store);

  it('daily HH:MM schedules in the invoking user’s Slack zone; /dwm digest shows it (audited)', async () => {
    const r = await run('digest daily 9:05', { command: '/dwm' });
    expect(json(r.args)).toContain('Daily digest scheduled');
    const s = await schedules().get(ws, bot.ws.channel);
    expect(s).toMatchObject({ time: '09:05', zone: 'America/New_York', createdBy: bot.ws.member });
    const show = await run('digest', { command: '/dwm' });
    expect(json(show.args)).toContain('Every day at `09:05` America/New_York');
    expect((await audit('digest.schedule')).some((e) => e.result === 'ok')).toBe(true);
  });

  it('an explicit zone wins; a bad time or zone is a correction; a missing time opens the form', async () => {
    const ch = 'C0DIGEST0';
    bot.fake.addChannel(ws, { id: ch, name: 'digest' });
    const r = await run('digest daily 17:30 Europe/Berlin', { command: '/dwm', channel: ch });
    expect(json(r.args)).toContain('Europe/Berlin');
    expect(await schedules().get(ws, ch)).toMatchObject({ time: '17:30', zone: 'Europe/Berlin' });
    const bad = await run('digest daily 25:00', { command: '/dwm', channel: ch });
    expect(json(bad.args)).toContain('Nothing was run');
    expect(json(bad.args)).toContain('24-hour time');
    const zone = await run('digest daily 08:00 Mars/Olympus', { command: '/dwm', channel: ch });
    expect(json(zone.args)).toContain('IANA time zone');
    const form = await run('digest daily', { command: '/dwm', channel: ch });
    expect(form.method).toBe('views.open');
    expect(bot.fake.lastView(bot.ws.member, 'modal')?.callbackId).toBe('cmd_missing_args');
  });

  it('another member cannot move or stop it; the owner can stop it', async () => {
    const move = await run('digest daily 10:00', { command: '/dwm', user: OTHER });
    expect(json(move.args)).toContain(':lock:');
    expect(json(move.args)).toContain(`<@${bot.ws.member}>`);
    const off = await run('digest off', { command: '/dwm', user: OTHER });
    expect(json(off.args)).toContain('only an admin can stop it');
    expect(await schedules().get(ws, bot.ws.channel)).toMatchObject({ time: '09:05' });
    const mine = await run('digest off', { command: '/dwm' });
    expect(json(mine.args)).toContain('Stopped the daily digest');
    expect(await schedules().get(ws, bot.ws.channel)).toBeUndefined();
    expect((await audit('digest.off')).map((e) => e.result)).toEqual(
      expect.arrayContaining(['ok', 'refused']),
    );
  });

  it('now queues one digest for the channel; a second while it is on its way is refused', async () => {
    const ch = 'C0NOW000A';
    bot.fake.addChannel(ws, { id: ch, name: 'now' });
    const r = await run('digest now', { command: '/dwm', channel: ch });
    expect(json(r.args)).toContain('on its way');
    const outbox = new NoticeOutbox(bot.store);
    const keys = (await outbox.entries.list(ws)).filter((k) => k.startsWith(`digest:${ch}:now-`));
    expect(keys).toHaveLength(1);
    // Audited and mirrored to the audit channel like every other change. The mirror is paced to one
    // line per second in that channel, and this file's earlier tests queued a dozen lines there.
    await bot.fake.waitFor(
      (c) =>
        c.method === 'chat.postMessage' && c.args.channel === AUDIT && json(c.args).includes('digest.now'),
      30_000,
    );
    const again = await run('digest now', { command: '/dwm', channel: ch });
    expect(json(again.args)).toContain('already on its way');
    expect((await outbox.entries.list(ws)).filter((k) => k.startsWith(`digest:${ch}:now-`))).toHaveLength(1);
  }, 45_000);
});
