/**
 * `/drm sites`, `site request(s)`, `plan` (card, buttons, modal, cancel, direct forms) end to end:
 * signed requests to the real app, the emulator behind, the fake Slack in front.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeValue } from '../../../../src/slack/shared/svc/values.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import {
  actionElements,
  button,
  click,
  drm,
  lastSeq,
  nextResponse,
  selectValue,
  textOf,
  textValue,
} from '../../../support/slack.js';

/** Run a /drm command whose answer is a card posted in the channel (chat.postMessage). */
async function posted(b: TestBot, text: string, user: string) {
  const seq = lastSeq(b);
  const r = await b.command(text, { command: '/drm', user });
  if (r.status !== 200) throw new Error(`command answered HTTP ${r.status}`);
  return b.fake.waitFor((c) => c.method === 'chat.postMessage' && c.seq > seq, 8000);
}

let bot: TestBot;
let admin: string;
let member: string;

beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env' });
  admin = bot.ws.admin;
  member = bot.ws.member;
});
afterAll(async () => {
  await bot?.close();
});

describe('/drm sites', () => {
  it('lists every site with its products and status, suspended first, ephemeral', async () => {
    const r = await drm(bot, 'sites', member);
    expect(r.call.args.response_type).toBe('ephemeral');
    for (const s of ['DEMO', 'AB12', 'FILM', 'Demo Streaming', 'Acme Broadcast']) expect(r.text).toContain(s);
    expect(r.text).toContain(':red_circle: Suspended');
    expect(r.text).toContain(':large_green_circle: In service');
    // DEMO has every product in service: it comes after the sites with a suspended product.
    expect(r.text.indexOf('Demo Streaming')).toBeGreaterThan(r.text.indexOf('Acme Broadcast'));
    expect(r.text).toContain('(default)');
  });

  it('share posts it in the channel', async () => {
    const r = await drm(bot, 'sites share', member);
    expect(r.call.args.response_type).toBe('in_channel');
  });
});

describe('/drm site request and requests', () => {
  it('members are refused (audited); admins send it (audited) and it is listed', async () => {
    const refused = await drm(bot, 'site request "Kids EU"', member);
    expect(refused.text).toContain('Only admins can run /drm site request');
    // The card is a channel message (rewritten when the provider decides), not an ephemeral reply.
    const ok = await posted(bot, 'site request Kids EU', admin);
    expect(ok.args.channel).toBe(bot.ws.channel);
    expect(textOf(ok)).toContain('Additional site requested');
    expect(textOf(ok)).toContain('Kids EU');
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit.find((e) => e.action === 'site.request' && e.result === 'ok')?.userId).toBe(admin);
    expect(audit.find((e) => e.action === 'command.site.request' && e.result === 'refused')?.userId).toBe(
      member,
    );

    const list = await drm(bot, 'site requests', member);
    expect(list.text).toContain('Kids EU');
    expect(list.text).toContain('Demo Kids Channel');
  });

  it('invalid dates and both account: and site: are refused with what to fix', async () => {
    const bad = await drm(bot, 'site requests from:2026-02-30', member);
    expect(bad.text).toMatch(/from/);
    expect(bad.text).toContain(':pencil2: *Nothing was run: check what you typed');
    const both = await drm(bot, 'site requests account:a site:AB12', member);
    expect(both.text).toContain('Give either account: or site:');
  });

  it('an empty or too long name is refused before calling the service', async () => {
    const long = await drm(bot, `site request ${'x'.repeat(101)}`, admin);
    expect(long.text).toContain('at most 100 characters');
  });
});

describe('/drm plan', () => {
  it('a pending request shows Cancel (admin) and no new-request buttons; a member sees no Cancel', async () => {
    const m = await drm(bot, 'plan fwm site:AB12', member);
    expect(m.text).toContain(':hourglass_flowing_sand: Pending');
    expect(actionElements(m.blocks)).toEqual([]);
    expect(m.text).toContain('Only admins can cancel the pending request');
    const r = await drm(bot, 'plan fwm site:AB12', admin);
    expect(r.text).toContain('Plan · FWM · AB12');
    expect(r.text).toContain(':hourglass_flowing_sand: Pending');
    expect(r.text).toContain('Resume watermarking for the new season');
    const ids = actionElements(r.blocks).map((b) => b.action_id);
    expect(ids).toEqual(['svc_plan_cancel']);
    const cancel = button(r.blocks, (b) => b.action_id === 'svc_plan_cancel');
    expect(cancel.style).toBe('danger');
    expect(JSON.stringify(cancel.confirm)).toContain('cannot be undone');
    expect(r.text).toContain('<!date^');
  });

  it('cancel: a member is refused; an admin cancels and the card is replaced; audited', async () => {
    const r = await drm(bot, 'plan fwm site:AB12', admin);
    const cancel = button(r.blocks, (b) => b.action_id === 'svc_plan_cancel');
    const refused = await click(bot, cancel, member);
    expect(refused.text).toContain('Only admins can cancel a plan request');

    const done = await click(bot, cancel, admin);
    expect(done.call.args.replace_original).toBe(true);
    expect(done.text).toContain('cancelled request');
    expect(done.text).toContain(':no_entry_sign: Cancelled');
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit.find((e) => e.action === 'plan.cancel' && e.result === 'ok')).toMatchObject({
      userId: admin,
      siteId: 'AB12',
    });

    // Pressing the same (old) button again: nothing is pending any more.
    const again = await click(bot, cancel, admin);
    expect(again.text).toContain('only while the request is pending');
  });

  it('trial via button: confirm, modal, submit; the card is replaced with the pending request', async () => {
    const r = await drm(bot, 'plan', member);
    expect(r.text).toContain('Plan · DRM · DEMO');
    const trial = button(r.blocks, (b) => b.action_id === 'svc_plan_request_trial');
    expect(trial.style).toBe('primary');
    expect(trial.confirm).toBeTruthy();
    // Suspension (admin-only) is not rendered for a member; resume is not offered (nothing to resume).
    const ids = actionElements(r.blocks).map((b) => b.action_id);
    expect(ids).toEqual(['svc_plan_request_trial']);
    expect(r.text).toContain('Only admins can request a suspension');
    expect(r.text).toContain('nothing to resume');
    const a = await drm(bot, 'plan', admin);
    expect(actionElements(a.blocks).map((b) => b.action_id)).toEqual([
      'svc_plan_request_trial',
      'svc_plan_request_suspend',
    ]);

    const seq = lastSeq(bot);
    await bot.action({ actionId: trial.action_id, value: trial.value!, user: member });
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 5000);
    const view = bot.fake.lastView(member, 'modal');
    expect(view?.callbackId).toBe('svc_plan_request');

    const tooLong = await bot.viewSubmission({
      user: member,
      values: { svc_plan_service: selectValue('PD001'), svc_plan_message: textValue('x'.repeat(501)) },
    });
    expect(tooLong.json).toMatchObject({ response_action: 'errors' });

    const seq2 = lastSeq(bot);
    const sub = await bot.viewSubmission({
      user: member,
      values: {
        svc_plan_service: selectValue('PD001'),
        svc_plan_message: textValue('Launch <!channel> *soon*'),
      },
    });
    expect(sub.status).toBe(200);
    // The request's card is posted in the channel the button was in (editable later); the
    // ephemeral card the form came from says where it went.
    const resp = await nextResponse(bot, seq2);
    expect(resp.args.replace_original).toBe(true);
    expect(textOf(resp)).toContain(`<#${bot.ws.channel}>`);
    const card = await bot.fake.waitFor((c) => c.method === 'chat.postMessage' && c.seq > seq2, 8000);
    expect(card.args.channel).toBe(bot.ws.channel);
    const t = textOf(card);
    expect(t).toContain('trial extension request');
    expect(t).toContain(':hourglass_flowing_sand: Pending');
    expect(t).toContain('Launch &lt;!channel&gt; *soon*');
    expect(t).not.toContain('<!channel>');
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit[0]).toMatchObject({ action: 'plan.trial', result: 'ok', userId: member, siteId: 'DEMO' });

    // A second request while one is pending is refused with a clear reason (direct form).
    const dup = await drm(bot, 'plan trial drm Again please', member);
    expect(dup.text).toContain('already pending');
  });

  it('suspension: hidden from members, and a member clicking it anyway is refused; the direct form is admin-only', async () => {
    const m = await drm(bot, 'plan fwm', member);
    expect(actionElements(m.blocks).some((b) => b.action_id === 'svc_plan_request_suspend')).toBe(false);
    // Hidden is not a guard: the admin's button, clicked by a member, is refused by the server.
    const r = await drm(bot, 'plan fwm', admin);
    const suspend = button(r.blocks, (b) => b.action_id === 'svc_plan_request_suspend');
    expect(suspend.style).toBe('danger');
    expect(suspend.confirm?.style).toBe('danger');
    const refused = await click(bot, suspend, member);
    expect(refused.text).toContain('Only admins can request a service suspension');
    const cmd = await drm(bot, 'plan suspend fwm Pause', member);
    expect(cmd.text).toContain('Only admins can run /drm plan suspend');
    const ok = await posted(bot, 'plan suspend fwm Pause for the migration', admin);
    expect(textOf(ok)).toContain('service suspension request');
    expect(textOf(ok)).toContain('Pause for the migration');
  });

  it('channel cards (shared, or a request card) have no admin-only button and name the admin command, whoever clicked', async () => {
    const r = await drm(bot, 'plan fwm site:FILM share', admin);
    expect(r.call.args.response_type).toBe('in_channel');
    expect(actionElements(r.blocks).some((b) => b.action_id === 'svc_plan_request_suspend')).toBe(false);
    expect(r.text).toContain('/drm plan suspend fwm site:FILM');
    const posted = bot.fake.messages(bot.ws.channel).find((m) => m.text === r.call.args.text);
    expect(posted).toBeTruthy();
    const trial = button(r.blocks, (b) => b.action_id === 'svc_plan_request_trial');
    // An admin asks for a trial from the channel card: the request's card goes to the channel,
    // read by everyone: no Cancel button, the admin command instead.
    const seq = lastSeq(bot);
    await bot.action({ actionId: trial.action_id, value: trial.value!, user: admin, messageTs: posted!.ts });
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 5000);
    const seq2 = lastSeq(bot);
    await bot.viewSubmission({
      user: admin,
      values: { svc_plan_service: selectValue('PD002'), svc_plan_message: textValue('From the channel') },
    });
    const card = await bot.fake.waitFor((c) => c.method === 'chat.postMessage' && c.seq > seq2, 8000);
    expect(textOf(await nextResponse(bot, seq2))).toContain('Its card is in');
    expect(card.args.channel).toBe(bot.ws.channel);
    expect(textOf(card)).toContain(':hourglass_flowing_sand: Pending');
    expect(JSON.stringify(card.args.blocks)).not.toContain('svc_plan_cancel');
    expect(textOf(card)).toContain('/drm plan cancel fwm site:FILM');
    // The admin's own (ephemeral) card has Cancel; clicked on a message in the channel, the
    // replacing card is still for everyone.
    const mine = await drm(bot, 'plan fwm site:FILM', admin);
    const cancel = button(mine.blocks, (b) => b.action_id === 'svc_plan_cancel');
    const seq3 = lastSeq(bot);
    await bot.action({
      actionId: cancel.action_id,
      value: cancel.value!,
      user: admin,
      messageTs: posted!.ts,
    });
    const replaced = await nextResponse(bot, seq3);
    expect(replaced.args.replace_original).toBe(true);
    expect(textOf(replaced)).toContain(':no_entry_sign: Cancelled');
    expect(JSON.stringify(replaced.args.blocks)).not.toContain('svc_plan_request_suspend');
    expect(textOf(replaced)).toContain('/drm plan suspend fwm site:FILM');

    // An admin's direct request: its card is a channel message too, so it has no Cancel button.
    const seq4 = lastSeq(bot);
    await bot.command('plan trial fwm site:FILM Direct', { command: '/drm', user: admin });
    const direct = await bot.fake.waitFor((c) => c.method === 'chat.postMessage' && c.seq > seq4, 8000);
    expect(textOf(direct)).toContain(':hourglass_flowing_sand: Pending');
    expect(JSON.stringify(direct.args.blocks)).not.toContain('svc_plan_cancel');
    expect(textOf(direct)).toContain('/drm plan cancel fwm site:FILM');
    await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq4, 8000).catch(() => undefined);
    await drm(bot, 'plan cancel fwm site:FILM', admin);
  });

  it('direct cancel when nothing is pending is refused; unknown product and site are explained', async () => {
    const r = await drm(bot, 'plan cancel drm site:FILM', admin);
    expect(r.text).toContain('only while the request is pending');
    const bad = await drm(bot, 'plan xyz', member);
    expect(bad.text).toContain('must be one of drm, fwm');
    const site = await drm(bot, 'plan site:ZZZZ', member);
    expect(site.text).toContain('is not configured for this workspace');
  });

  it('a button value from another workspace never acts', async () => {
    const value = encodeValue({ w: 'T0OTHER00', s: 'DEMO', v: 'PD001', a: 'cancel' });
    const r = await click(bot, { action_id: 'svc_plan_cancel', value }, admin);
    expect(r.text).toContain('belongs to another workspace');
    const tampered = await click(bot, { action_id: 'svc_plan_cancel', value: '{"w":1}' }, admin);
    expect(tampered.text).toContain('out of date');
  });

  it('a product whose "no request yet" is a refusal the bot does not know: the card says so, and the first request is still sent', async () => {
    bot.emulator!.setBehaviours({ planNone: 'notFound', planNoneCode: 'NF-404' });
    try {
      const card = await drm(bot, 'plan drm site:AB12', member);
      expect(card.text).toContain(
        'No earlier request could be read (NF-404: No request found for AB12 PD001.)',
      );
      expect(JSON.stringify(card.blocks)).toContain('svc_plan_request_trial');
      const made = await posted(bot, 'plan trial drm site:AB12 two more weeks', member);
      const text = JSON.stringify(made.args.blocks);
      expect(text).toContain('sent a trial extension request');
      expect(text).toContain('No earlier request could be read (NF-404');
    } finally {
      bot.emulator!.setBehaviours({});
      await drm(bot, 'plan cancel drm site:AB12', admin);
    }
  });

  it('a service error is rendered with its code and what to do', async () => {
    bot.emulator!.faults.add({
      match: 'GET /svc/api/v2/plan/request/status',
      times: 1,
      errorCode: { code: 'E5001', message: 'Internal <b>error</b>' },
    });
    const r = await drm(bot, 'plan', member);
    expect(r.text).toContain('E5001');
    expect(r.text).toContain('Internal &lt;b&gt;error&lt;/b&gt;');
    bot.emulator!.faults.clear();
  });
});
