/**
 * Channels shared with another organisation (Slack Connect) end to end: the real Bolt app, the
 * fake Slack telling conversations.info's sharing fields, the emulator, and the watch and notify
 * runtimes on one virtual clock. Creating a job watch, a digest, a license alert or sharing a
 * reply there is refused unless an admin allowed that one channel (audited); a channel that
 * becomes shared later (channel_shared, or found at delivery time) pauses its subscriptions once
 * and tells their creators.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FEATURES } from '../../../../src/slack/features/index.js';
import { createWatchRuntime, type WatchRuntime } from '../../../../src/slack/watch-runtime.js';
import { SHARED_CHANNEL } from '../../../../src/watch/types.js';
import type { TestBot } from '../../../harness/index.js';
import { json, type NotifySetup, setupNotify, tick } from '../../../support/notify.js';
import { type Block, button, lastSeq, runCommand } from '../../../support/slack.js';

let s: NotifySetup | undefined;
let watch: WatchRuntime | undefined;
afterEach(async () => {
  await watch?.stop();
  watch = undefined;
  await s?.close();
  s = undefined;
});

const SHARED = 'C0SHARED1';
const PENDING = 'C0PENDING';
const ORG = 'C0ORGWIDE';

async function setup(): Promise<{ b: TestBot; site: string; ws: string }> {
  s = await setupNotify();
  const b = s.bot;
  b.fake.addChannel(b.ws.teamId, { id: SHARED, name: 'partner-delivery', sharing: 'external' });
  b.fake.addChannel(b.ws.teamId, { id: PENDING, name: 'partner-invite', sharing: 'pending' });
  b.fake.addChannel(b.ws.teamId, { id: ORG, name: 'org-wide', sharing: 'org' });
  watch = createWatchRuntime(b.deps, b.handle.app, {
    features: FEATURES,
    clock: s.clock,
    holderId: 'test-watch',
    watcher: { jitter: 0 },
  });
  return { b, site: b.emulator!.demo.defaultSiteId, ws: b.ws.teamId };
}

/** The bot's direct messages to a user (the fake's IM channel of that user). */
const dmsTo = (b: TestBot, user: string) => b.fake.messages(`D${user.slice(1)}`);

/** Wait (real time, bounded) until `ok()`: the app handles events after it acked them. */
async function until(ok: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const subsIn = async (channel: string) => watch!.watcher.subscriptions.list(s!.ws, { channelId: channel });

describe('creating in a channel shared with another organisation', () => {
  it('a job watch, a digest and a license alert are refused with the reason and what an admin can do', async () => {
    const { b, site, ws } = await setup();
    for (const channel of [SHARED, PENDING]) {
      const w = await runCommand(b, `watch site:${site}`, { channel });
      expect(json(w.args)).toContain('shared with another organisation');
      expect(json(w.args)).toContain('/dwm setup shared-channel allow #channel');
      expect(await subsIn(channel)).toHaveLength(0);

      const d = await runCommand(b, 'digest daily 09:00', { channel });
      expect(json(d.args)).toContain('shared with another organisation');
      expect(await s!.runtime.notifier.digests.get(ws, channel)).toBeUndefined();

      const a = await runCommand(b, `alerts watch site:${site} ratio:30% min:10 window:20`, {
        command: '/drm',
        channel,
      });
      expect(json(a.args)).toContain('shared with another organisation');
      expect(await s!.runtime.notifier.alerts.list(ws, { channelId: channel })).toHaveLength(0);
    }
    // A channel shared only with workspaces of the same organisation is not refused.
    const org = await runCommand(b, `watch site:${site}`, { channel: ORG });
    expect(json(org.args)).toContain('is now watching jobs');
    expect(await subsIn(ORG)).toHaveLength(1);
  });

  it('the watch form submitted for a shared channel is refused the same way', async () => {
    const { b, site } = await setup();
    let seq = lastSeq(b);
    await b.command('watch', { channel: SHARED });
    await b.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 8000);
    seq = lastSeq(b);
    await b.viewSubmission({
      values: {
        watch_site: { value: { type: 'static_select', selected_option: { value: site } } },
        watch_statuses: { value: { type: 'checkboxes', selected_options: [{ value: 'DM600' }] } },
        watch_content: { value: { type: 'plain_text_input', value: '' } },
        watch_mode: { value: { type: 'radio_buttons', selected_option: { value: 'all' } } },
      },
    });
    const refused = await b.fake.waitFor(
      (c) =>
        c.method === 'views.update' &&
        c.seq > seq &&
        json(c.args).includes('shared with another organisation'),
      8000,
    );
    expect(json(refused.args)).toContain('/dwm setup shared-channel allow #channel');
    expect(await subsIn(SHARED)).toHaveLength(0);
  });

  it('the share option is refused there (answered only to the user, audited); allowed elsewhere', async () => {
    const { b, ws } = await setup();
    const r = await runCommand(b, 'sites share', { command: '/drm', channel: SHARED });
    expect(r.args.response_type).toBe('ephemeral');
    expect(json(r.args)).toContain('share this reply in the channel');
    expect(json(r.args)).toContain('shared with another organisation');
    expect(b.fake.responses().some((x) => json(x).includes('in_channel'))).toBe(false);
    const audit = await b.store.audit.list(ws);
    expect(audit.some((e) => e.action === 'share.refused' && e.result === 'refused')).toBe(true);

    const ok = await runCommand(b, 'sites share', { command: '/drm', channel: b.ws.channel });
    expect(ok.args.response_type).toBe('in_channel');
  });

  it('an admin allows one channel (audited, listed, revocable); members cannot', async () => {
    const { b, site, ws } = await setup();
    const byMember = await runCommand(b, `setup shared-channel allow <#${SHARED}|partner-delivery>`, {
      user: b.ws.member,
    });
    expect(json(byMember.args)).not.toContain('Allowed');
    expect((await b.store.settings.get(ws)).sharedChannels ?? []).toHaveLength(0);

    const allowed = await runCommand(b, `setup shared-channel allow <#${SHARED}|partner-delivery>`, {
      user: b.ws.admin,
    });
    expect(json(allowed.args)).toContain('Allowed');
    expect(json(allowed.args)).toContain(`<#${SHARED}>`);
    const audit = await b.store.audit.list(ws);
    expect(audit.find((e) => e.action === 'shared-channel.allow')).toMatchObject({
      userId: b.ws.admin,
      result: 'ok',
    });

    const w = await runCommand(b, `watch site:${site}`, { channel: SHARED });
    expect(json(w.args)).toContain('is now watching jobs');
    const shared = await runCommand(b, 'sites share', { command: '/drm', channel: SHARED });
    expect(shared.args.response_type).toBe('in_channel');
    // Only that one channel.
    const other = await runCommand(b, `watch site:${site}`, { channel: PENDING });
    expect(json(other.args)).toContain('shared with another organisation');

    const listed = await runCommand(b, 'setup shared-channels', { user: b.ws.admin });
    expect(json(listed.args)).toContain(`<#${SHARED}>`);
    expect(json(listed.args)).toContain(`<@${b.ws.admin}>`);

    const seq = lastSeq(b);
    const revoked = await runCommand(b, `setup shared-channel revoke <#${SHARED}|partner-delivery>`, {
      user: b.ws.admin,
    });
    expect(json(revoked.args)).toContain('paused');
    expect((await b.store.settings.get(ws)).sharedChannels ?? []).toHaveLength(0);
    expect((await subsIn(SHARED))[0]?.paused?.code).toBe(SHARED_CHANNEL);
    await watch!.idle();
    expect(b.fake.calls().some((c) => c.seq > seq && c.method === 'chat.postMessage' && c.ok)).toBe(true);
    expect((await b.store.audit.list(ws)).some((e) => e.action === 'shared-channel.revoke')).toBe(true);
  });
});

describe('a channel that becomes shared later', () => {
  it('a table shared in the channel before shows no further page there once it is shared (audited)', async () => {
    const { b, ws } = await setup();
    const ch = b.ws.channel;
    const table = await runCommand(b, 'licenses share', { command: '/drm', channel: ch, user: b.ws.admin });
    expect(table.args.response_type).toBe('in_channel');
    const posted = b.fake.messages(ch).find((m) => m.text === table.args.text);
    const next = button((table.args.blocks ?? []) as Block[], (e) => e.action_id === 'svc_data_page_next');
    expect(posted && next).toBeTruthy();

    b.fake.shareChannel(ws, ch, 'external');
    const seq = lastSeq(b);
    await b.action({
      actionId: next!.action_id,
      value: next!.value!,
      user: b.ws.admin,
      channel: ch,
      messageTs: posted!.ts,
    });
    const reply = await b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    expect(json(reply.args)).toContain('shared with another organisation');
    expect(reply.args.replace_original).not.toBe(true);
    expect(reply.args.response_type).toBe('ephemeral');
    const audit = await b.store.audit.list(ws);
    expect(audit.some((e) => e.action === 'share.refused' && e.detail.includes('data.page'))).toBe(true);
  });

  it('channel_shared pauses its watch, alert and digest once, and tells each creator', async () => {
    const { b, site, ws } = await setup();
    const ch = b.ws.channel;
    await runCommand(b, `watch site:${site}`, { channel: ch, user: b.ws.member });
    await runCommand(b, `alerts watch site:${site} ratio:30% min:10 window:20`, {
      command: '/drm',
      channel: ch,
      user: b.ws.admin,
    });
    await runCommand(b, 'digest daily 09:00', { channel: ch, user: b.ws.member });
    expect(await subsIn(ch)).toHaveLength(1);

    b.fake.shareChannel(ws, ch, 'external');
    await b.event({ type: 'channel_shared', channel: ch, connected_team_id: 'T0PARTNER', event_ts: '1.0' });
    await until(async () => (await subsIn(ch))[0]?.paused !== undefined);
    await watch!.idle();
    await s!.runtime.idle();
    expect((await subsIn(ch))[0]?.paused?.code).toBe(SHARED_CHANNEL);
    const [alert] = await s!.runtime.notifier.alerts.list(ws, { channelId: ch });
    expect(alert?.paused?.code).toBe(SHARED_CHANNEL);
    expect((await s!.runtime.notifier.digests.get(ws, ch))?.paused?.code).toBe(SHARED_CHANNEL);

    // Two DMs to one person are paced (1 s apart on the virtual clock): let it run.
    await until(() => {
      s!.clock.advance(100);
      return dmsTo(b, b.ws.member).length >= 2 && dmsTo(b, b.ws.admin).length >= 1;
    });
    const memberDms = dmsTo(b, b.ws.member);
    expect(memberDms).toHaveLength(2); // the watch and the digest
    expect(json(memberDms)).toContain('shared with another organisation');
    expect(json(memberDms)).toContain('/dwm setup shared-channel allow');
    const adminDms = dmsTo(b, b.ws.admin);
    expect(adminDms).toHaveLength(1); // the alert
    expect(json(adminDms)).toContain('License-failure alerts');

    // A second event (or a delivery) does not pause or tell again.
    await b.event({ type: 'channel_shared', channel: ch, connected_team_id: 'T0PARTNER', event_ts: '2.0' });
    await new Promise((r) => setTimeout(r, 300));
    await watch!.idle();
    await s!.runtime.idle();
    expect(dmsTo(b, b.ws.member)).toHaveLength(2);
    expect(dmsTo(b, b.ws.admin)).toHaveLength(1);

    // Resume is refused while the channel is shared.
    const seq = lastSeq(b);
    await b.action({
      actionId: 'watch-resume',
      value: (await subsIn(ch))[0]!.id,
      channel: `D${b.ws.member.slice(1)}`,
    });
    const resumed = await b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    expect(json(resumed.args)).toContain('shared with another organisation');
    expect((await subsIn(ch))[0]?.paused).toBeDefined();
  });

  it('an allowed channel is not paused by channel_shared', async () => {
    const { b, site, ws } = await setup();
    const ch = b.ws.channel;
    await runCommand(b, `setup shared-channel allow <#${ch}|general>`, { user: b.ws.admin });
    await runCommand(b, `watch site:${site}`, { channel: ch });
    b.fake.shareChannel(ws, ch, 'external');
    await b.event({ type: 'channel_shared', channel: ch, connected_team_id: 'T0PARTNER', event_ts: '1.0' });
    await new Promise((r) => setTimeout(r, 300));
    await watch!.idle();
    expect((await subsIn(ch))[0]?.paused).toBeUndefined();
  });

  it('without the event, the delivery check pauses the watch once (one conversations.info per period)', async () => {
    const { b, site, ws } = await setup();
    const ch = b.ws.channel;
    await runCommand(b, `watch site:${site}`, { channel: ch });
    s!.clock.advance(60_000);
    await watch!.watcher.pollOnce(ws, site);
    b.emulator!.createJob(site, 'before-share', [{ recipient: 'alice' }]);
    s!.clock.advance(60_000);
    await watch!.watcher.pollOnce(ws, site);
    await watch!.idle();
    expect(b.fake.messages(ch).some((m) => json(m.blocks).includes('before-share'))).toBe(true);

    b.fake.shareChannel(ws, ch, 'external');
    // Within the cache period the channel is still taken as not shared; after it, read again.
    s!.clock.advance(31 * 60_000);
    b.emulator!.createJob(site, 'after-share', [{ recipient: 'bob' }]);
    await watch!.watcher.pollOnce(ws, site);
    await watch!.idle();
    expect(b.fake.messages(ch).some((m) => json(m.blocks).includes('after-share'))).toBe(false);
    expect((await subsIn(ch))[0]?.paused?.code).toBe(SHARED_CHANNEL);
    const dms = dmsTo(b, b.ws.member);
    expect(dms).toHaveLength(1);
    expect(json(dms)).toContain('shared with another organisation');

    const infos = b.fake.calls('conversations.info').filter((c) => c.args.channel === ch).length;
    b.emulator!.createJob(site, 'still-shared', [{ recipient: 'carol' }]);
    s!.clock.advance(60_000);
    await watch!.watcher.pollOnce(ws, site);
    await watch!.idle();
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
    expect(b.fake.calls('conversations.info').filter((c) => c.args.channel === ch).length).toBe(infos);
  });

  it('without the event, the digest is paused at its time, not posted, and its creator told once', async () => {
    const { b, ws } = await setup();
    const ch = b.ws.channel;
    const at = new Date(s!.clock.now() + 35 * 60_000);
    const hhmm = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
    const r = await runCommand(b, `digest daily ${hhmm} UTC`, { channel: ch });
    expect(json(r.args)).toContain('Daily digest scheduled');
    b.fake.shareChannel(ws, ch, 'external');
    // Past the sharing cache period and the digest's time, a minute at a time.
    for (let i = 0; i < 40; i++) await tick(s!, s!.runtime, 60_000);
    expect((await s!.runtime.notifier.digests.get(ws, ch))?.paused?.code).toBe(SHARED_CHANNEL);
    expect(b.fake.messages(ch).some((m) => json(m).toLowerCase().includes('digest'))).toBe(false);
    await until(() => {
      s!.clock.advance(100);
      return dmsTo(b, b.ws.member).length >= 1;
    });
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
    expect(json(dmsTo(b, b.ws.member))).toContain('The daily digest');
    expect(json(dmsTo(b, b.ws.member))).toContain('shared with another organisation');
  });
});
