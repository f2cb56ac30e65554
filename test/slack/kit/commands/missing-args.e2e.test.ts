/**
 * A slash command run without a required argument opens a "fill in what is missing" form
 * (issue 3) instead of an error: signed requests to the real app, the emulator behind, the fake
 * Slack in front. Submitting the form runs the command as if it had been typed complete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../../dev/fakeslack/index.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { lastSeq } from '../../../support/slack.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env' });
});
afterAll(async () => {
  await bot?.close();
});

const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
const json = (x: unknown) => JSON.stringify(x ?? {});

/** Run a command and wait for the form it opens. */
async function openForm(cmd: string, user: string, command: '/dwm' | '/drm' = '/dwm'): Promise<FakeView> {
  const seq = lastSeq(bot);
  await bot.command(cmd, { user, command });
  await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq && c.ok, 10_000);
  const v = bot.fake.lastView(user, 'modal') as FakeView;
  expect(v.callbackId).toBe('cmd_missing_args');
  return v;
}

describe('missing required argument: a form, not an error', () => {
  it('/dwm job: the form checks the id inline, then answers with the job where the command was run', async () => {
    const user = bot.ws.member;
    const emu = bot.emulator!;
    const jobId = emu.createJob('DEMO', 'FORM-JOB-1', [{ recipient: 'alice' }]);
    const seq0 = lastSeq(bot);
    const form = await openForm('job', user);
    expect(json(form.title)).toContain('/dwm job');
    expect(json(form.blocks)).toContain('arg_job');
    // Nothing was answered yet: no error reply.
    expect(bot.fake.calls('response_url').filter((c) => c.seq > seq0)).toEqual([]);

    const bad = await bot.viewSubmission({ user, view: form, values: { arg_jobId: text('abc') } });
    expect(bad.json).toMatchObject({ response_action: 'errors' });
    expect(json(bad.json)).toContain('arg_jobId');
    expect(json(bad.json)).toContain('whole number');

    const seq = lastSeq(bot);
    const ok = await bot.viewSubmission({ user, view: form, values: { arg_jobId: text(String(jobId)) } });
    expect(ok.status).toBe(200);
    expect(ok.json ?? {}).not.toHaveProperty('response_action');
    const reply = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq && c.ok, 10_000);
    expect(json(reply.args)).toContain('FORM-JOB-1');
    expect(reply.args.response_type).toBe('ephemeral');
  });

  it('/drm site request: an admin names the site in the form; the request is made and audited', async () => {
    const admin = bot.ws.admin;
    const form = await openForm('site request', admin, '/drm');
    const seq = lastSeq(bot);
    await bot.viewSubmission({ user: admin, view: form, values: { arg_name: text('Form <b> Site') } });
    // The request's card is a message in the channel (rewritten when the provider decides).
    const reply = await bot.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.seq > seq && c.ok,
      10_000,
    );
    expect(reply.args.channel).toBe(bot.ws.channel);
    expect(json(reply.args)).toContain('Additional site requested');
    // The value went through as typed (escaped for display, never markup).
    expect(json(reply.args)).toContain('Form &lt;b&gt; Site');
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(
      audit.some(
        (e) => e.action === 'site.request' && e.result === 'ok' && e.detail.includes('Form <b> Site'),
      ),
    ).toBe(true);
  });

  it('/dwm setup admins add: an admin gets a people picker; a member is refused without a form', async () => {
    const member = bot.ws.member;
    const seqM = lastSeq(bot);
    await bot.command('setup admins add', { user: member });
    const refused = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seqM, 10_000);
    expect(json(refused.args)).toContain('Only admins');
    expect(bot.fake.calls('views.open').filter((c) => c.seq > seqM)).toEqual([]);

    const admin = bot.ws.admin;
    const form = await openForm('setup admins add', admin);
    expect(json(form.blocks)).toContain('multi_users_select');
    const seq = lastSeq(bot);
    await bot.viewSubmission({
      user: admin,
      view: form,
      values: { arg_users: { value: { type: 'multi_users_select', selected_users: [member] } } },
    });
    const reply = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq && c.ok, 10_000);
    expect(json(reply.args)).toContain('Added 1 admin');
    expect((await bot.store.settings.get(bot.ws.teamId)).adminUserIds).toContain(member);
  });

  it('a form of another workspace, or tampered, is refused and runs nothing', async () => {
    const user = bot.ws.member;
    const form = await openForm('job', user);
    const meta = JSON.parse(form.privateMetadata ?? '{}') as Record<string, unknown>;
    const forged = { ...form, privateMetadata: JSON.stringify({ ...meta, w: 'T0OTHER' }) };
    const seq = lastSeq(bot);
    const r = await bot.viewSubmission({ user, view: forged as FakeView, values: { arg_jobId: text('1') } });
    expect(json(r.json)).toContain('out of date');
    // Text that no command could have sent (an unterminated quote): refused the same way.
    const broken = { ...form, privateMetadata: JSON.stringify({ ...meta, t: 'job "unterminated' }) };
    const r2 = await bot.viewSubmission({ user, view: broken as FakeView, values: { arg_jobId: text('1') } });
    expect(r2.status).toBe(200);
    expect(json(r2.json)).toContain('out of date');
    await new Promise((res) => setTimeout(res, 300));
    expect(bot.fake.calls('response_url').filter((c) => c.seq > seq)).toEqual([]);
  });
});
