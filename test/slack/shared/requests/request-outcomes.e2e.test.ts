/**
 * Plan-request and additional-site-request outcomes end to end: signed slash commands, buttons
 * and the form to the real app; the request's card posted in the channel; the emulator deciding
 * the request (approve, cancel on the vendor's console); the notify runtime polling and
 * delivering; the fake Slack recording the DM and the card rewritten in place.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeCall, FakeMessage } from '../../../../dev/fakeslack/index.js';
import { listTrackedRequests } from '../../../../src/ops/request-outcomes.js';
import type { TestBot } from '../../../harness/index.js';
import { dmsTo, json, type NotifySetup, setupNotify, statusReads, tick } from '../../../support/notify.js';
import { button, lastSeq, selectValue, textValue } from '../../../support/slack.js';

let s: NotifySetup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** Run a /drm command and return the card it posted in a channel (chat.postMessage). */
async function requestCard(b: TestBot, text: string, user: string, channel?: string): Promise<FakeCall> {
  const seq = lastSeq(b);
  const r = await b.command(text, { command: '/drm', user, ...(channel ? { channel } : {}) });
  expect(r.status).toBe(200);
  return b.fake.waitFor((c) => c.method === 'chat.postMessage' && c.seq > seq && c.ok, 8000);
}

function messageAt(b: TestBot, channel: string, ts: string): FakeMessage {
  const m = b.fake.messages(channel).find((x) => x.ts === ts);
  if (!m) throw new Error(`no message ${ts} in ${channel}`);
  return m;
}

/** The one tracked request, once its card is attached (the card is posted first). */
async function trackedOnly(s: NotifySetup, o: { card?: boolean } = {}) {
  const end = Date.now() + 8000;
  for (;;) {
    const list = await listTrackedRequests(s.bot.deps, s.ws);
    if (list.length === 1 && (o.card === false || list[0]!.card)) return list[0]!;
    if (Date.now() > end) throw new Error(`tracked requests: ${json(list)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('plan request outcomes', () => {
  it('approved upstream: ONE DM naming request, site, service and outcome (reader zone); the card rewritten in place', async () => {
    s = await setupNotify();
    const b = s.bot;
    const card = await requestCard(b, 'plan trial drm Two more weeks <!here>', b.ws.member);
    expect(card.args.channel).toBe(b.ws.channel);
    const ts = (card.response as { ts: string }).ts;
    const t = await trackedOnly(s);
    expect(t).toMatchObject({ siteId: 'DEMO', serviceCode: 'PD001', requestedBy: b.ws.member });
    expect(t.card).toEqual({ channel: b.ws.channel, ts });

    // Pending: polled, nothing said.
    await tick(s);
    expect(dmsTo(b, b.ws.member)).toHaveLength(0);

    b.emulator!.approveRequest('DEMO', t.requestId);
    await tick(s);
    const dms = dmsTo(b, b.ws.member);
    expect(dms).toHaveLength(1);
    const dm = json(dms[0]);
    expect(dm).toContain(t.requestId);
    expect(dm).toContain('`DEMO`');
    expect(dm).toContain('DRM');
    expect(dm).toContain('*approved*');
    expect(dm.toLowerCase()).toContain('trial extension');
    expect(dm).toContain('America/New_York');
    expect(dms[0]!.metadata).toEqual({
      event_type: 'drm_chatops_delivery',
      event_payload: { key: `request:${t.id}:ST003#dm` },
    });

    const updated = messageAt(b, b.ws.channel, ts);
    expect(updated.edited).toBe(true);
    expect(json(updated.blocks)).toContain('*approved*');
    expect(json(updated.blocks)).toContain(t.requestId);
    expect(json(updated.blocks)).not.toContain('svc_plan_cancel');
    // The user's own text never pings anyone.
    expect(json(b.fake.allMessages())).not.toContain('<!here>');

    // Nothing more: no second DM, no more polling.
    await tick(s);
    await tick(s);
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
    expect(await listTrackedRequests(b.deps, s.ws)).toHaveLength(0);
  });

  it('cancelled elsewhere (the vendor console): the DM says it was cancelled outside the bot', async () => {
    s = await setupNotify();
    const b = s.bot;
    const card = await requestCard(b, 'plan trial drm', b.ws.member);
    const ts = (card.response as { ts: string }).ts;
    const t = await trackedOnly(s);
    b.emulator!.cancelRequestElsewhere('DEMO', t.requestId);
    await tick(s);
    const dms = dmsTo(b, b.ws.member);
    expect(dms).toHaveLength(1);
    expect(dms[0]!.text).toContain('cancelled outside the bot');
    expect(json(dms[0]!.blocks)).toContain("cancelled outside the bot* (on the provider's console");
    expect(json(dms[0]!.blocks)).toContain(t.requestId);
    expect(json(messageAt(b, b.ws.channel, ts).blocks)).toContain('cancelled outside the bot');
  });

  it('cancel with the Cancel button by the requester: no DM, the card shows the cancel', async () => {
    s = await setupNotify();
    const b = s.bot;
    // Cancelling is for admins: the admin asks, then cancels their own request.
    const card = await requestCard(b, 'plan trial drm', b.ws.admin);
    const ts = (card.response as { ts: string }).ts;
    const t = await trackedOnly(s);
    // The card is a channel message read by members too: no admin-only Cancel on it, the admin
    // command instead. The admin's own `/drm plan` card (ephemeral) has the button.
    expect(json(card.args.blocks)).not.toContain('svc_plan_cancel');
    expect(json(card.args.blocks)).toContain('/drm plan cancel drm site:');
    const seq0 = lastSeq(b);
    await b.command('plan drm', { command: '/drm', user: b.ws.admin });
    const own = await b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq0, 8000);
    const cancel = button(own.args.blocks as never[], (x) => x.action_id === 'svc_plan_cancel');
    const seq = lastSeq(b);
    await b.action({
      actionId: cancel.action_id,
      value: cancel.value!,
      user: b.ws.admin,
      channel: b.ws.channel,
    });
    await b.fake.waitFor((c) => c.method === 'chat.update' && c.seq > seq, 8000);
    await s.runtime.idle();
    await tick(s);
    await tick(s);
    expect(dmsTo(b, b.ws.admin)).toHaveLength(0);
    const final = messageAt(b, b.ws.channel, ts);
    expect(json(final.blocks)).toContain(`*cancelled* by <@${b.ws.admin}> through the bot`);
    expect(json(final.blocks)).toContain(t.requestId);
    expect(await listTrackedRequests(b.deps, s.ws)).toHaveLength(0);
    // Never reported as cancelled elsewhere, to anyone.
    expect(json(b.fake.allMessages())).not.toContain('outside the bot');
  });

  it("an admin cancels a member's request through the bot: the member hears who cancelled it", async () => {
    s = await setupNotify();
    const b = s.bot;
    await requestCard(b, 'plan trial drm', b.ws.member);
    const t = await trackedOnly(s);
    const seq = lastSeq(b);
    await b.command('plan cancel drm', { command: '/drm', user: b.ws.admin });
    await b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    await s.runtime.idle();
    await tick(s);
    const dms = dmsTo(b, b.ws.member);
    expect(dms).toHaveLength(1);
    expect(json(dms[0]!.blocks)).toContain(`*cancelled* by <@${b.ws.admin}> through the bot`);
    expect(json(dms[0]!.blocks)).toContain(t.requestId);
    expect(json(dms)).not.toContain('outside the bot');
  });

  it('the plan form posts the card in the channel of the button; approval updates it', async () => {
    s = await setupNotify();
    const b = s.bot;
    let seq = lastSeq(b);
    await b.command('plan', { command: '/drm', user: b.ws.member });
    const shown = await b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    const trial = button(shown.args.blocks as never[], (x) => x.action_id === 'svc_plan_request_trial');
    seq = lastSeq(b);
    await b.action({
      actionId: trial.action_id,
      value: trial.value!,
      user: b.ws.member,
      channel: b.ws.channel,
    });
    await b.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 8000);
    seq = lastSeq(b);
    await b.viewSubmission({
      user: b.ws.member,
      values: { svc_plan_service: selectValue('PD001'), svc_plan_message: textValue('Please') },
    });
    const card = await b.fake.waitFor((c) => c.method === 'chat.postMessage' && c.seq > seq && c.ok, 8000);
    expect(card.args.channel).toBe(b.ws.channel);
    const t = await trackedOnly(s);
    expect(t.card?.ts).toBe((card.response as { ts: string }).ts);
    b.emulator!.approveRequest('DEMO', t.requestId);
    await tick(s);
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
    expect(json(messageAt(b, b.ws.channel, t.card!.ts).blocks)).toContain('*approved*');
  });

  it('the bot not in the channel: the card goes to the DM (said so) and is updated there', async () => {
    s = await setupNotify();
    const b = s.bot;
    const seq = lastSeq(b);
    const card = await requestCard(b, 'plan trial drm', b.ws.member, b.ws.channelWithoutBot);
    expect(String(card.args.channel)).toBe(b.ws.member);
    const note = await b.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
    expect(json(note.args)).toContain('/invite @drm-chatops');
    const t = await trackedOnly(s);
    expect(t.card?.channel).toMatch(/^D/);
    b.emulator!.approveRequest('DEMO', t.requestId);
    await tick(s);
    expect(json(messageAt(b, t.card!.channel, t.card!.ts).blocks)).toContain('*approved*');
  });
});

describe('a trial extension requested by a workflow step', () => {
  it('is tracked for the person it runs for: the approval reaches them as ONE DM', async () => {
    s = await setupNotify();
    const b = s.bot;
    const r = await b.functionExecuted({
      callbackId: 'request_trial_extension',
      inputs: { site: 'DEMO', service: 'DRM', message: 'Pilot week', requested_by: b.ws.member },
    });
    const done = await b.fake.waitFor(
      (c) => c.method.startsWith('functions.complete') && json(c.args).includes(r.executionId),
      8000,
    );
    expect(done.method).toBe('functions.completeSuccess');
    const t = await trackedOnly(s, { card: false });
    expect(t).toMatchObject({ siteId: 'DEMO', serviceCode: 'PD001', requestedBy: b.ws.member });
    expect(t.card).toBeUndefined();
    expect(String((done.args.outputs as { request_id?: unknown }).request_id)).toBe(t.requestId);

    b.emulator!.approveRequest('DEMO', t.requestId);
    await tick(s);
    const dms = dmsTo(b, b.ws.member);
    expect(dms).toHaveLength(1);
    expect(json(dms[0])).toContain(t.requestId);
    expect(json(dms[0])).toContain('*approved*');
    await tick(s);
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
  });
});

describe('additional-site request outcomes', () => {
  it('approved: the admin who asked gets one DM with the new site id; the card is updated', async () => {
    s = await setupNotify();
    const b = s.bot;
    const card = await requestCard(b, 'site request Kids & Teens', b.ws.admin);
    const ts = (card.response as { ts: string }).ts;
    const t = await trackedOnly(s);
    expect(t).toMatchObject({ kind: 'site', siteName: 'Kids & Teens' });
    await tick(s);
    expect(dmsTo(b, b.ws.admin)).toHaveLength(0);
    b.emulator!.decideSiteRequest(
      b.emulator!.demo.service.accountId,
      Number(t.requestId),
      'approved',
      'KT01',
    );
    await tick(s);
    const dms = dmsTo(b, b.ws.admin);
    expect(dms).toHaveLength(1);
    const dm = json(dms[0]!.blocks);
    expect(dm).toContain('the new site id is `KT01`');
    expect(dm).toContain('Kids &amp; Teens');
    expect(dm).toContain(`\`${t.requestId}\``);
    expect(dm).toContain('Asia/Seoul');
    expect(json(messageAt(b, b.ws.channel, ts).blocks)).toContain('*approved*');
    await tick(s);
    expect(dmsTo(b, b.ws.admin)).toHaveLength(1);
  });
});

describe('timing', () => {
  it('with the shortest poll interval (5 s) the DM still comes within two intervals of the approval', async () => {
    s = await setupNotify({ bot: { env: { POLL_INTERVAL_SECONDS: '5' } } });
    const b = s.bot;
    await requestCard(b, 'plan trial drm', b.ws.member);
    const t = await trackedOnly(s);
    await tick(s, s.runtime, 5000);
    b.emulator!.approveRequest('DEMO', t.requestId);
    await tick(s, s.runtime, 5000);
    await tick(s, s.runtime, 5000);
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
  });
});

describe('polling cost', () => {
  it('polls upstream only while a request is pending', async () => {
    s = await setupNotify();
    const b = s.bot;
    b.emulator!.resetRequestCounts();
    await tick(s);
    await tick(s);
    expect(statusReads(b)).toBe(0);

    await requestCard(b, 'plan trial drm', b.ws.member);
    const t = await trackedOnly(s);
    b.emulator!.resetRequestCounts();
    await tick(s);
    await tick(s);
    expect(statusReads(b)).toBe(2);

    b.emulator!.approveRequest('DEMO', t.requestId);
    await tick(s);
    expect(dmsTo(b, b.ws.member)).toHaveLength(1);
    b.emulator!.resetRequestCounts();
    await tick(s);
    await tick(s);
    await tick(s);
    expect(statusReads(b)).toBe(0);
  });
});
