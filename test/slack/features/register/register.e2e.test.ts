/**
 * Bulk registration end to end: form -> "Checking…" -> preview (counts, invalid lines with line
 * numbers) -> back to edit (input kept) -> confirm -> background run with DM progress -> final
 * report (CSV when long), failed batches reported beside successful ones, and resume after a
 * restart. Signed requests against the real app, the seeded emulator, the fake Slack.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resumePendingRegistrations } from '../../../../src/slack/features/register/index.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { storeInterruptedRun } from '../../../support/interrupted-run.js';
import { blocksText, buttons, lastSeq, nextCall, waitForView } from '../../../support/slack.js';

const textValues = (text: string) => ({
  recipients_text: { value: { type: 'plain_text_input', value: text } },
});
const fileValues = (fileId: string) => ({
  recipients_text: { value: { type: 'plain_text_input', value: null } },
  recipients_file: { value: { type: 'file_input', files: [{ id: fileId, name: 'list.csv' }] } },
});

async function waitForDm(bot: TestBot, user: string, pred: (text: string) => boolean, ms = 30_000) {
  const until = Date.now() + ms;
  for (;;) {
    const m = bot.fake.messages(user).find((x) => pred(`${x.text ?? ''} ${JSON.stringify(x.blocks ?? [])}`));
    if (m) return m;
    if (Date.now() > until) {
      throw new Error(
        `DM not reached: ${JSON.stringify(bot.fake.messages(user).map((x) => x.text)).slice(0, 600)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('/dwm register', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('is open to members (project rule: members read and register recipients)', async () => {
    const seq = lastSeq(bot);
    await bot.command('register', { user: bot.ws.member });
    await nextCall(bot, 'views.open', seq);
    expect(blocksText(bot.fake.lastView(bot.ws.member, 'modal')!.blocks)).toContain('file_input');
  });

  it('form -> preview with counts and invalid lines -> back keeps the input -> confirm -> DM report', async () => {
    const admin = bot.ws.admin;
    const seq = lastSeq(bot);
    await bot.command('register', { user: admin });
    await nextCall(bot, 'views.open', seq);
    const form = bot.fake.lastView(admin, 'modal')!;
    const formText = blocksText(form.blocks);
    expect(formText).toContain('file_input');
    expect(formText).toContain('"multiline":true');

    const long = 'x'.repeat(129);
    const input = [
      'e2e-new-1, first one', // 1 new
      'NETFLIX-emea', // 2 already registered (other case)
      'e2e-new-2', // 3 new
      'E2E-NEW-1', // 4 duplicate of line 1
      'bad name!', // 5 invalid characters
      long, // 6 too long
      `e2e-new-3, ${'d'.repeat(51)}`, // 7 description too long
      '', // 8 blank
      'e2e-new-4', // 9 new
    ].join('\n');
    const ack = await bot.viewSubmission({ user: admin, view: form, values: textValues(input) });
    expect(ack.json).toMatchObject({ response_action: 'update' });
    expect(JSON.stringify(ack.json)).toContain('Checking');

    const preview = await waitForView(bot, admin, (v) => v.callbackId === 'wm_register_preview');
    const pt = blocksText(preview.blocks);
    expect(pt).toContain('*3*'); // new
    expect(pt).toMatch(/Already registered \(skipped\)\*\\n1/);
    expect(pt).toMatch(/Duplicates in your list \(skipped\)\*\\n1/);
    expect(pt).toContain('Line 5:');
    expect(pt).toContain('Line 6:');
    expect(pt).toContain('the limit is 128');
    expect(pt).toContain('Line 7:');
    expect(pt).toContain('the limit is 50');
    expect(pt).toContain('Line 4: `E2E-NEW-1` repeats line 1');
    expect((preview.view.submit as { text: string }).text).toBe('Register 3');
    expect((preview.privateMetadata ?? '').length).toBeLessThan(3000);
    expect(bot.emulator!.recipientCount('DEMO')).toBe(40);

    // Back to edit: the text comes back.
    const back = buttons(preview.blocks).find((b) => b.action_id === 'wm_register_back')!;
    await bot.action({ actionId: back.action_id, value: back.value!, user: admin, view: preview });
    const again = await waitForView(bot, admin, (v) => v.callbackId === 'wm_register_form');
    expect(blocksText(again.blocks)).toContain('e2e-new-1, first one');

    await bot.viewSubmission({ user: admin, view: again, values: textValues(input) });
    const preview2 = await waitForView(
      bot,
      admin,
      (v) => v.callbackId === 'wm_register_preview' && v.hash !== preview.hash,
    );
    const seq2 = lastSeq(bot);
    const confirm = await bot.viewSubmission({ user: admin, view: preview2 });
    expect(JSON.stringify(confirm.json)).toContain('direct messages');
    const report = await waitForDm(bot, admin, (t) => t.includes('Registered '));
    const rt = `${report.text} ${JSON.stringify(report.blocks)}`;
    // One sentence, counters only when not zero, no internals (report id, batches).
    expect(report.text).toMatch(/^Registered 3 recipients on DEMO\. Skipped \d+: [a-z0-9 ,]+\.$/);
    expect(rt).not.toMatch(/[Bb]atch|Report `|0 failed/);
    expect(rt).toContain('e2e-new-4');
    expect(rt).toContain('DWM ID');
    // The full report follows as a file even when the rows fit in the message.
    expect(rt).toContain('The full report');
    await bot.fake.waitFor(
      (c) => c.method === 'files.completeUploadExternal' && c.ok && c.seq > seq2,
      10_000,
    );
    expect(report.edited).toBe(true); // the progress message was replaced in place
    expect(bot.fake.calls('chat.update').filter((c) => c.seq > seq2).length).toBeGreaterThan(0);
    expect(bot.emulator!.recipientCount('DEMO')).toBe(43);
    // The audit entry is written after the report is shown: wait for it (not a fixed delay).
    // Written after the report: wait for it.
    const entry = await vi.waitFor(
      async () => {
        const e = (await bot.store.audit.list(bot.ws.teamId)).find((x) => x.action === 'recipient.register');
        if (!e) throw new Error('no recipient.register audit entry yet');
        return e;
      },
      { timeout: 30_000, interval: 20 },
    );
    expect(entry).toMatchObject({
      result: 'ok',
      userId: admin,
    });
  });

  it('typed text over the modal limit is refused with a pointer to the CSV input', async () => {
    const admin = bot.ws.admin;
    const seq = lastSeq(bot);
    await bot.command('register', { user: admin });
    await nextCall(bot, 'views.open', seq);
    const form = bot.fake.lastView(admin, 'modal')!;
    const big = Array.from({ length: 400 }, (_, i) => `long-list-${i}`).join('\n');
    const r = await bot.viewSubmission({ user: admin, view: form, values: textValues(big) });
    expect(r.json).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(r.json)).toContain('CSV');
  });

  it('names typed inline, more than the text box holds: Back to edit keeps the whole list, never a cut one', async () => {
    const admin = bot.ws.admin;
    // 320 names (5,440 characters one a line): the form's text box holds 3,000.
    const names = Array.from({ length: 320 }, (_, i) => `inline-long-${String(i).padStart(4, '0')}`);
    const seq = lastSeq(bot);
    await bot.command(`register ${names.join(' ')}`, { user: admin });
    await nextCall(bot, 'views.open', seq);
    const preview = await waitForView(bot, admin, (v) => v.callbackId === 'wm_register_preview');
    expect(blocksText(preview.blocks)).toContain('(320 typed lines)');

    const back = buttons(preview.blocks).find((b) => b.action_id === 'wm_register_back')!;
    await bot.action({ actionId: back.action_id, value: back.value!, user: admin, view: preview });
    const form = await waitForView(bot, admin, (v) => v.callbackId === 'wm_register_form');
    const box = (form.blocks as Array<{ block_id?: string; element?: { initial_value?: string } }>).find(
      (b) => b.block_id === 'recipients_text',
    )?.element?.initial_value;
    // Never part of the list (the last name cut into another valid name, the rest dropped).
    expect(box === undefined || box === names.join('\n')).toBe(true);
    expect(blocksText(form.blocks)).toContain('320 lines');

    // Preview as the form stands (the box as shown): the same 320 names are checked again.
    await bot.viewSubmission({ user: admin, view: form, values: textValues(box ?? '') });
    const again = await waitForView(
      bot,
      admin,
      (v) => v.callbackId === 'wm_register_preview' && v.hash !== preview.hash,
    );
    expect(blocksText(again.blocks)).toContain('(320 typed lines)');
    expect(blocksText(again.blocks)).toContain('*320*');
  });

  it('a CSV of 1,000 lines with a failed batch: the others are registered, the failure is reported', async () => {
    const admin = bot.ws.admin;
    const emu = bot.emulator!;
    const lines = ['name,description', ...Array.from({ length: 1000 }, (_, i) => `bulk-${i},batch test`)];
    const fileId = bot.fake.addFile(bot.ws.teamId, {
      name: 'list.csv',
      data: lines.join('\r\n'),
      user: admin,
    });
    const seq = lastSeq(bot);
    await bot.command('register', { user: admin });
    await nextCall(bot, 'views.open', seq);
    const form = bot.fake.lastView(admin, 'modal')!;
    await bot.viewSubmission({ user: admin, view: form, values: fileValues(fileId) });
    const preview = await waitForView(bot, admin, (v) => v.callbackId === 'wm_register_preview');
    expect(blocksText(preview.blocks)).toContain('in 7 batches');
    const download = bot.fake.calls('download').filter((c) => c.seq > seq);
    expect(download.some((c) => c.ok)).toBe(true);

    const before = emu.recipientCount('DEMO');
    // One registration request is refused by the service (not ambiguous: not retried).
    emu.faults.add({
      match: /POST \/wm\/api\/recipient/,
      times: 1,
      errorCode: { code: 'E1001', message: 'Batch refused for the test' },
    });
    await bot.viewSubmission({ user: admin, view: preview });
    const report = await waitForDm(
      bot,
      admin,
      (t) => t.includes('Registered ') && t.includes('failed') && t.includes('Batch refused'),
    );
    const rt = JSON.stringify(report.blocks);
    expect(rt).toContain('Registered 850 recipients');
    expect(rt).toContain('150 failed');
    expect(rt).toContain('E1001');
    expect(emu.recipientCount('DEMO')).toBe(before + 850);
    emu.faults.clear();
    // More than a screenful: the CSV report follows in the DM.
    const file = await bot.fake.waitFor(
      (c) => c.method === 'files.completeUploadExternal' && c.ok && c.seq > seq,
      10_000,
    );
    const fid = String((file.args.files as Array<{ id: string }>)[0]!.id);
    const csv = bot.fake.file(fid)!.data.toString('utf8');
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(1001);
    expect(csv).toContain('failed');

    // "Retry failed" sends the refused batch again; the report becomes complete in place.
    const retry = buttons((report.blocks ?? []) as never).find((b) => b.action_id === 'wm_register_resume');
    expect(retry?.text).toBe('Retry failed');
    await bot.action({ actionId: retry!.action_id, value: retry!.value!, user: admin, channel: admin });
    const complete = await waitForDm(bot, admin, (t) => t.includes('Registered 1,000 recipients'));
    expect(complete.ts).toBe(report.ts);
    expect(emu.recipientCount('DEMO')).toBe(before + 1000);
  });

  it('a run stopped by the service shows Resume; pressing it finishes the run, each name sent once', async () => {
    const admin = bot.ws.admin;
    const member = bot.ws.member;
    const emu = bot.emulator!;
    // 180 short names (the text field takes 3,000 characters): two batches.
    const names = Array.from({ length: 180 }, (_, i) => `sr-${i}`);
    const seqForm = lastSeq(bot);
    await bot.command('register', { user: admin });
    await nextCall(bot, 'views.open', seqForm);
    const form = bot.fake.lastView(admin, 'modal')!;
    await bot.viewSubmission({ user: admin, view: form, values: textValues(names.join('\n')) });
    const preview = await waitForView(bot, admin, (v) => v.callbackId === 'wm_register_preview');
    expect(blocksText(preview.blocks)).toContain('in 2 batches');
    const before = emu.recipientCount('DEMO');
    // The service goes down once the run starts: no batch can be sent or confirmed.
    emu.faults.add({ match: /\/wm\/api\/recipient/, status: 503 });
    await bot.viewSubmission({ user: admin, view: preview });
    const stopped = await waitForDm(bot, admin, (t) => t.includes('stopped before the end'));
    const resume = buttons((stopped.blocks ?? []) as never).find((b) => b.action_id === 'wm_register_resume');
    expect(resume, JSON.stringify(stopped.blocks)).toBeDefined();
    expect(blocksText(stopped.blocks as never)).toContain('press Resume');
    emu.faults.clear();

    // Someone else (a member, not the run's user) is refused.
    const seqM = lastSeq(bot);
    await bot.action({ actionId: resume!.action_id, value: resume!.value!, user: member, channel: admin });
    const refused = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seqM, 10_000);
    expect(JSON.stringify(refused.args)).toContain('who started this registration');

    // The run's user resumes it; the same message becomes the final report.
    await bot.action({ actionId: resume!.action_id, value: resume!.value!, user: admin, channel: admin });
    const done = await waitForDm(
      bot,
      admin,
      (t) => t.includes('Registered ') && t.includes('Registered 180 recipients'),
    );
    expect(done.ts).toBe(stopped.ts);
    expect(emu.recipientCount('DEMO')).toBe(before + 180);
    // Pressed again: nothing left to send, and nothing is sent twice.
    const seq2 = lastSeq(bot);
    await bot.action({ actionId: resume!.action_id, value: resume!.value!, user: admin, channel: admin });
    const again = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq2, 10_000);
    expect(JSON.stringify(again.args)).toContain('Nothing is left to send');
    expect(emu.recipientCount('DEMO')).toBe(before + 180);
  });
});

// Its own bot (fake Slack, emulator, store): background work of the tests above (late DMs, file
// uploads, registrations) cannot land in this DM, the site or the pending index.
describe('/dwm register after a restart', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('resumes a run left "running" by a previous process and updates its DM message', async () => {
    const admin = bot.ws.admin;
    const reportId = 'resume-test-1';
    // The progress message of the dead run, in the admin's DM.
    const fake = bot.fake;
    const { progress } = await storeInterruptedRun(bot, {
      reportId,
      names: Array.from({ length: 300 }, (_, i) => `resume-${i}`),
      userId: admin,
      progressDm: true,
    });
    const msg = progress!;
    // Found by its ts, not counted: an earlier test's report file may still be arriving in the DM.
    expect(fake.messages(admin).some((m) => m.ts === msg.ts)).toBe(true);

    const count = bot.emulator!.recipientCount('DEMO');
    const r = await resumePendingRegistrations(bot.deps);
    expect(r.resumed).toEqual([reportId]);
    expect(bot.emulator!.recipientCount('DEMO')).toBe(count + 300);
    const updated = fake.messages(admin).find((m) => m.ts === msg.ts)!;
    expect(JSON.stringify(updated.blocks)).toContain('Registered 300 recipients');
    // Nothing left pending: a second call does nothing.
    expect((await resumePendingRegistrations(bot.deps)).resumed).toEqual([]);
  });
});
