/**
 * Channels shared with another organisation (Slack Connect), the replies that reach a channel
 * besides the subscriptions: request cards and their outcome edits, a form or a button that would
 * replace a message in the channel, and the audit channel. End to end: the real Bolt app, the fake
 * Slack telling the channel's sharing, the emulator and the notify runtime on a virtual clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listTrackedRequests } from '../../../../src/ops/request-outcomes.js';
import { appSender } from '../../../../src/slack/background-sender.js';
import { SHARING_CACHE_MS } from '../../../../src/slack/kit/context/channels/access.js';
import type { TestBot } from '../../../harness/index.js';
import { dmsTo, json, type NotifySetup, setupNotify, tick } from '../../../support/notify.js';
import { button, lastSeq, runCommand, selectValue, textValue } from '../../../support/slack.js';

let s: NotifySetup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const SHARED = 'C0SHARED1';

async function setup(): Promise<TestBot> {
  s = await setupNotify();
  s.bot.fake.addChannel(s.bot.ws.teamId, { id: SHARED, name: 'partner-delivery', sharing: 'external' });
  return s.bot;
}

const postsIn = (b: TestBot, channel: string, after: number) =>
  b.fake.calls('chat.postMessage').filter((c) => c.seq > after && c.args.channel === channel);

/** Wait (real time, bounded) until `ok()`. */
async function until(ok: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('request cards', () => {
  it('a plan request made in a shared channel: its card goes to the DM, the requester is told why (audited)', async () => {
    const b = await setup();
    const seq = lastSeq(b);
    await b.command('plan trial drm Two more weeks', { command: '/drm', user: b.ws.member, channel: SHARED });
    const note = await b.fake.waitFor(
      (c) =>
        c.method === 'response_url' &&
        c.seq > seq &&
        json(c.args).includes('shared with another organisation'),
      8000,
    );
    expect(note.args.response_type).toBe('ephemeral');
    expect(json(note.args)).toContain('/dwm setup shared-channel allow #channel');
    expect(json(note.args)).toContain('The request was sent');
    expect(postsIn(b, SHARED, seq)).toHaveLength(0);
    const card = await b.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.seq > seq && c.ok && c.args.channel === b.ws.member,
      8000,
    );
    expect(json(card.args.blocks)).toContain('Trial extension');
    await until(async () => (await listTrackedRequests(b.deps, b.ws.teamId))[0]?.card !== undefined);
    const [t] = await listTrackedRequests(b.deps, b.ws.teamId);
    expect(t!.card!.channel).toMatch(/^D/);
    const audit = await b.store.audit.list(b.ws.teamId);
    expect(audit.some((e) => e.action === 'share.refused' && e.detail.includes('request card'))).toBe(true);
  });

  it('an additional-site request in a shared channel: no card there', async () => {
    const b = await setup();
    const seq = lastSeq(b);
    const r = await runCommand(b, 'site request Movies EU', {
      command: '/drm',
      user: b.ws.admin,
      channel: SHARED,
    });
    await b.fake.waitFor((c) => c.method === 'chat.postMessage' && c.seq > seq && c.ok, 8000);
    expect(postsIn(b, SHARED, seq)).toHaveLength(0);
    expect(json(r.args) + json(b.fake.responses())).toContain('shared with another organisation');
  });

  it('a card posted before the channel became shared is not rewritten there; the outcome DM still goes out', async () => {
    const b = await setup();
    const ch = b.ws.channel;
    const seq = lastSeq(b);
    await b.command('plan trial drm', { command: '/drm', user: b.ws.member, channel: ch });
    const card = await b.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.seq > seq && c.ok && c.args.channel === ch,
      8000,
    );
    const ts = (card.response as { ts: string }).ts;
    await until(async () => (await listTrackedRequests(b.deps, b.ws.teamId))[0]?.card !== undefined);
    const [t] = await listTrackedRequests(b.deps, b.ws.teamId);

    b.fake.shareChannel(b.ws.teamId, ch, 'external');
    // Past the senders' sharing cache (no channel_shared event: the delivery check finds it).
    s!.clock.advance(SHARING_CACHE_MS + 60_000);
    b.emulator!.approveRequest('DEMO', t!.requestId);
    await tick(s!);
    await tick(s!);
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
    expect(json(dmsTo(b, b.ws.member))).toContain('*approved*');
    const onChannel = b.fake.messages(ch).find((m) => m.ts === ts);
    expect(onChannel?.edited).not.toBe(true);
    expect(json(onChannel?.blocks)).not.toContain('*approved*');
    expect(b.fake.calls('chat.update').filter((c) => c.args.channel === ch)).toHaveLength(0);
  });
});

/**
 * `/drm licenses share` in `ch` (by the admin), then the channel becomes shared, then Next is
 * clicked on the table posted there. Returns the table's message and the sequence before the click.
 */
async function nextOnSharedTable(b: TestBot, ch: string) {
  const table = await runCommand(b, 'licenses share', { command: '/drm', channel: ch, user: b.ws.admin });
  const posted = b.fake.messages(ch).find((m) => m.text === table.args.text);
  const next = button(table.args.blocks as never[], (x) => x.action_id === 'svc_data_page_next');
  b.fake.shareChannel(b.ws.teamId, ch, 'external');
  const seq = lastSeq(b);
  await b.action({
    actionId: next.action_id,
    value: next.value!,
    user: b.ws.admin,
    channel: ch,
    messageTs: posted!.ts,
  });
  return { posted: posted!, seq };
}

describe('buttons and forms on a message in a channel that became shared', () => {
  it("the plan card's request form: the card is not replaced in the channel nor posted there; the user gets it privately", async () => {
    const b = await setup();
    const ch = b.ws.channel;
    const shown = await runCommand(b, 'plan share', { command: '/drm', user: b.ws.member, channel: ch });
    expect(shown.args.response_type).toBe('in_channel');
    const posted = b.fake.messages(ch).find((m) => m.text === shown.args.text);
    expect(posted).toBeTruthy();
    const trial = button(shown.args.blocks as never[], (x) => x.action_id === 'svc_plan_request_trial');

    b.fake.shareChannel(b.ws.teamId, ch, 'external');
    let seq = lastSeq(b);
    await b.action({
      actionId: trial.action_id,
      value: trial.value!,
      user: b.ws.member,
      channel: ch,
      messageTs: posted!.ts,
    });
    await b.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 8000);
    seq = lastSeq(b);
    await b.viewSubmission({
      user: b.ws.member,
      values: { svc_plan_service: selectValue('PD001'), svc_plan_message: textValue('Please') },
    });
    await b.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.seq > seq && c.ok && c.args.channel === b.ws.member,
      8000,
    );
    await until(() =>
      b.fake
        .calls('response_url')
        .some((c) => c.seq > seq && json(c.args).includes('request sent. Its card is in')),
    );
    const replies = b.fake.calls('response_url').filter((c) => c.seq > seq);
    expect(replies.every((c) => c.args.replace_original !== true)).toBe(true);
    expect(replies.every((c) => c.args.response_type !== 'in_channel')).toBe(true);
    expect(json(replies)).toContain('shared with another organisation');
    expect(postsIn(b, ch, seq)).toHaveLength(0);
    const still = b.fake.messages(ch).find((m) => m.ts === posted!.ts);
    expect(still?.edited).not.toBe(true);
  });

  it('Previous / Next of a table shared there: the page goes to the clicker only, with the reason (audited once)', async () => {
    const b = await setup();
    const ch = b.ws.channel;
    const { posted, seq } = await nextOnSharedTable(b, ch);
    await until(() => b.fake.calls('response_url').filter((c) => c.seq > seq).length >= 2);
    const [why, page] = b.fake.calls('response_url').filter((c) => c.seq > seq);
    expect(json(why!.args)).toContain('update this message in the channel');
    expect(json(why!.args)).toContain('shared with another organisation');
    expect(page!.args.response_type).toBe('ephemeral');
    expect(page!.args.replace_original).not.toBe(true);
    expect(json(page!.args.blocks)).toContain('svc_data_page_prev');
    expect(b.fake.messages(ch).find((m) => m.ts === posted.ts)?.edited).not.toBe(true);
    const refused = (await b.store.audit.list(b.ws.teamId)).filter((e) => e.action === 'share.refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]!.detail).toContain('data.page');
  });

  it('an allowed channel: the button replaces the message there as before', async () => {
    const b = await setup();
    const ch = b.ws.channel;
    await runCommand(b, `setup shared-channel allow <#${ch}|general>`, { user: b.ws.admin });
    const { seq } = await nextOnSharedTable(b, ch);
    const r = await b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    expect(r.args.replace_original).toBe(true);
    expect(json(r.args)).not.toContain('shared with another organisation');
  });
});

describe('the audit channel', () => {
  it('a shared channel is refused as the audit channel (audited); an allowed one is accepted', async () => {
    const b = await setup();
    const r = await runCommand(b, `setup audit-channel <#${SHARED}|partner-delivery>`, { user: b.ws.admin });
    expect(json(r.args)).toContain('shared with another organisation');
    expect((await b.store.settings.get(b.ws.teamId)).auditChannelId).toBeUndefined();
    const audit = await b.store.audit.list(b.ws.teamId);
    expect(audit.find((e) => e.action === 'audit.channel')?.result).toBe('refused');

    await runCommand(b, `setup shared-channel allow <#${SHARED}|partner-delivery>`, { user: b.ws.admin });
    const ok = await runCommand(b, `setup audit-channel <#${SHARED}|partner-delivery>`, { user: b.ws.admin });
    expect(json(ok.args)).toContain('mirrored to that channel');
    expect((await b.store.settings.get(b.ws.teamId)).auditChannelId).toBe(SHARED);
  });

  it('a channel that became shared later gets no more audit lines, and the log says so once', async () => {
    const b = await setup();
    const ch = b.ws.channel;
    let seq = lastSeq(b);
    await runCommand(b, `setup audit-channel <#${ch}|general>`, { user: b.ws.admin });
    await b.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.args.channel === ch && c.seq > seq,
      8000,
    );

    // Shared later: the channel_shared event tells the app's sharing cache at once.
    b.fake.shareChannel(b.ws.teamId, ch, 'external');
    await b.event({ type: 'channel_shared', channel: ch, connected_team_id: 'T0PARTNER', event_ts: '1.0' });
    await new Promise((r) => setTimeout(r, 300));
    seq = lastSeq(b);
    await runCommand(b, 'setup admins group none', { user: b.ws.admin });
    await runCommand(b, 'setup admins group none', { user: b.ws.admin });
    await until(() => b.logs.text().includes('audit lines are not mirrored there'));
    // Both lines' turns came (the second one is read from the cache): nothing posted there.
    await until(
      async () =>
        (await b.store.audit.list(b.ws.teamId)).filter((e) => e.action === 'admins.group').length === 2,
    );
    const sender = appSender(b.deps);
    await until(() => sender.pending() === 0);
    await sender.idle();
    expect(postsIn(b, ch, seq)).toHaveLength(0);
    expect(b.logs.text().split('audit lines are not mirrored there').length - 1).toBe(1);
  });
});
