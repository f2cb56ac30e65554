/**
 * /dwm recipients, /dwm recipient and the Edit modal end to end (signed requests, real app,
 * seeded emulator, fake Slack).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../../dev/fakeslack/index.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { blocksText, buttons, lastSeq, nextCall, replyBlocks } from '../../../support/slack.js';

function editValues(name: string, description: string) {
  return {
    name: { value: { type: 'plain_text_input', value: name } },
    description: { value: { type: 'plain_text_input', value: description } },
  };
}

describe('recipients', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('searches with paging, a Details button per row and the total', async () => {
    const seq = lastSeq(bot);
    await bot.command('recipients');
    const r = await nextCall(bot, 'response_url', seq);
    const text = blocksText(replyBlocks(r));
    expect(text).toMatch(/Recipients on DEMO: \d+ total/);
    const btns = buttons(replyBlocks(r));
    expect(btns.filter((b) => b.action_id === 'wm_recipient_details')).toHaveLength(10);
    const next = btns.find((b) => b.action_id === 'wm_recipients_page_next')!;
    const seq2 = lastSeq(bot);
    await bot.action({ actionId: next.action_id, value: next.value! });
    const r2 = await nextCall(bot, 'response_url', seq2);
    expect(r2.args.replace_original).toBe(true);
    expect(blocksText(replyBlocks(r2))).toContain('page 2 of');

    const seq3 = lastSeq(bot);
    await bot.command('recipients sky');
    const r3 = await nextCall(bot, 'response_url', seq3);
    const t3 = blocksText(replyBlocks(r3));
    expect(t3).toContain('Sky-UK');
    expect(t3).toContain('Sky.DE');
    expect(t3).not.toContain('Netflix-EMEA');
  });

  it('a name in another case resolves to the registered recipient (rule 4); Details opens the card', async () => {
    const seq = lastSeq(bot);
    await bot.command('recipient NETFLIX-emea');
    const r = await nextCall(bot, 'response_url', seq);
    const text = blocksText(replyBlocks(r));
    expect(text).toContain('Recipient · Netflix-EMEA');
    expect(text).toContain('registered as `Netflix-EMEA`');
    const edit = buttons(replyBlocks(r)).find((b) => b.action_id === 'wm_recipient_edit');
    expect(edit?.style).toBe('primary');

    const seq2 = lastSeq(bot);
    await bot.command('recipient Netflx-EMEA');
    const miss = await nextCall(bot, 'response_url', seq2);
    expect(blocksText(replyBlocks(miss))).toContain('Did you mean');
  });

  it('Edit is open to members (project rule: members read and register recipients)', async () => {
    const seq = lastSeq(bot);
    await bot.command('recipient Hulu-US');
    const card = await nextCall(bot, 'response_url', seq);
    const edit = buttons(replyBlocks(card)).find((b) => b.action_id === 'wm_recipient_edit')!;
    const seq2 = lastSeq(bot);
    await bot.action({ actionId: edit.action_id, value: edit.value!, user: bot.ws.member });
    await nextCall(bot, 'views.open', seq2);
    // The "Loading" modal is then filled with the recipient (prefilled form).
    await nextCall(bot, 'views.update', seq2);
    expect(blocksText(bot.fake.lastView(bot.ws.member, 'modal')!.blocks)).toContain('Hulu-US');
    expect(bot.fake.calls('response_url').filter((c) => c.seq > seq2)).toHaveLength(0);
  });

  it('Edit: prefilled modal, inline validation, "in use" in plain words, success updates the card', async () => {
    const admin = bot.ws.admin;
    const seq = lastSeq(bot);
    await bot.command('recipient Stan-AU', { user: admin });
    const card = await nextCall(bot, 'response_url', seq);
    const edit = buttons(replyBlocks(card)).find((b) => b.action_id === 'wm_recipient_edit')!;
    const clicked = await bot.action({ actionId: edit.action_id, value: edit.value!, user: admin });
    await nextCall(bot, 'views.update', seq);
    const view = bot.fake.lastView(admin, 'modal') as FakeView;
    expect(blocksText(view.blocks)).toContain('"initial_value":"Stan-AU"');

    // Validation: inline on the field.
    const bad = await bot.viewSubmission({ user: admin, view, values: editValues('Stan AU!', '') });
    expect(bad.json).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(bad.json)).toContain('"name"');
    expect(JSON.stringify(bad.json)).toContain('only letters');

    // In use by a running task: explained in words a user understands.
    const emu = bot.emulator!;
    const jobId = emu.createJob('DEMO', 'IN-USE-001', [{ recipient: 'Stan-AU' }]);
    // Answered with "Saving…" before the service is called; the outcome follows by views.update.
    const seqUse = lastSeq(bot);
    const inUse = await bot.viewSubmission({ user: admin, view, values: editValues('Stan-Australia', '') });
    expect(inUse.json).toMatchObject({ response_action: 'update' });
    expect(JSON.stringify(inUse.json)).toContain('Saving');
    const inUseShown = await bot.fake.waitFor(
      (c) => c.method === 'views.update' && c.seq > seqUse && c.ok,
      10_000,
    );
    expect(JSON.stringify(inUseShown.args)).toContain('being used by a running watermarking task');
    emu.finishJob('DEMO', jobId);

    // Success: closes, audited, the card is replaced through the Edit click's response_url.
    const seq2 = lastSeq(bot);
    const ok = await bot.viewSubmission({
      user: admin,
      view,
      values: editValues('Stan-Australia', 'AU <b>'),
    });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ response_action: 'update' });
    const replaced = await bot.fake.waitFor(
      (c) => c.seq > seq2 && c.method === 'response_url' && c.ok && c.args.replace_original === true,
      10_000,
    );
    const text = blocksText(replyBlocks(replaced));
    expect(text).toContain('Stan-Australia');
    expect(text).toContain('AU &lt;b&gt;');
    expect(text).toContain('Saved by');
    expect(clicked.responseUrl).toBeDefined();
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit.find((e) => e.action === 'recipient.edit' && e.result === 'ok')?.detail).toContain(
      'Stan-Australia',
    );
  });

  it('a name taken by another recipient is refused inline', async () => {
    const admin = bot.ws.admin;
    const emu = bot.emulator!;
    await bot.deps.api
      .watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl })
      .registerRecipients('DEMO', [{ name: 'dup-test-a' }, { name: 'dup-test-b' }]);
    const seq = lastSeq(bot);
    await bot.command('recipient dup-test-a', { user: admin });
    const card = await nextCall(bot, 'response_url', seq);
    const edit = buttons(replyBlocks(card)).find((b) => b.action_id === 'wm_recipient_edit')!;
    await bot.action({ actionId: edit.action_id, value: edit.value!, user: admin });
    await nextCall(bot, 'views.update', seq);
    const view = bot.fake.lastView(admin, 'modal') as FakeView;
    const seq2 = lastSeq(bot);
    const dup = await bot.viewSubmission({ user: admin, view, values: editValues('DUP-TEST-B', '') });
    expect(dup.json).toMatchObject({ response_action: 'update' });
    const shown = await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq2 && c.ok, 10_000);
    expect(JSON.stringify(shown.args)).toContain('already named');
  });

  it('a failed save shows a reference id only when the error is unexpected', async () => {
    const admin = bot.ws.admin;
    const emu = bot.emulator!;
    await bot.deps.api
      .watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl })
      .registerRecipients('DEMO', [{ name: 'ref-test-a' }]);
    const seq = lastSeq(bot);
    await bot.command('recipient ref-test-a', { user: admin });
    const card = await nextCall(bot, 'response_url', seq);
    const edit = buttons(replyBlocks(card)).find((b) => b.action_id === 'wm_recipient_edit')!;
    await bot.action({ actionId: edit.action_id, value: edit.value!, user: admin });
    await nextCall(bot, 'views.update', seq);
    const view = bot.fake.lastView(admin, 'modal') as FakeView;
    const saveWith = async (fault: Parameters<typeof emu.faults.add>[0]) => {
      emu.faults.add({ match: /PUT \/wm\/api\/recipient/, times: 10, ...fault });
      const seq2 = lastSeq(bot);
      try {
        await bot.viewSubmission({ user: admin, view, values: editValues('ref-test-b', '') });
        const shown = await bot.fake.waitFor(
          (c) =>
            c.method === 'views.update' &&
            c.seq > seq2 &&
            c.ok &&
            /Nothing was saved|cannot tell whether/.test(JSON.stringify(c.args)),
          10_000,
        );
        return JSON.stringify(shown.args);
      } finally {
        emu.faults.clear();
      }
    };
    // Expected: the service refused the change (its own error code): what to do, no reference.
    const refused = await saveWith({ errorCode: { code: 'E1001', message: 'Refused for the test' } });
    expect(refused).toContain('Refused for the test');
    expect(refused).not.toMatch(/[Rr]eference/);
    // Unexpected: an answer the client cannot read: the reference id to report.
    // The change may have been made (the service answered): not "Nothing was saved".
    const odd = await saveWith({ malformed: true });
    expect(odd).toContain('Reference');
    expect(odd).toContain('cannot tell whether the change was made');
    expect(odd).not.toContain('Nothing was saved');
  });

  it('a save that fails on an outage shows the form again with what was typed, and saving it again works', async () => {
    const admin = bot.ws.admin;
    const emu = bot.emulator!;
    await bot.deps.api
      .watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl })
      .registerRecipients('DEMO', [{ name: 'outage-edit-a' }]);
    const seq = lastSeq(bot);
    await bot.command('recipient outage-edit-a', { user: admin });
    const card = await nextCall(bot, 'response_url', seq);
    const edit = buttons(replyBlocks(card)).find((b) => b.action_id === 'wm_recipient_edit')!;
    await bot.action({ actionId: edit.action_id, value: edit.value!, user: admin });
    await nextCall(bot, 'views.update', seq);
    const form = bot.fake.lastView(admin, 'modal') as FakeView;
    // The service is busy (429: the change was not processed).
    emu.faults.add({ match: /PUT \/wm\/api\/recipient/, status: 429, times: 1 });
    const seq2 = lastSeq(bot);
    await bot.viewSubmission({
      user: admin,
      view: form,
      values: editValues('outage-edit-b', 'typed by hand'),
    });
    const shown = await bot.fake.waitFor(
      (c) =>
        c.method === 'views.update' &&
        c.seq > seq2 &&
        c.ok &&
        /Nothing was saved/.test(JSON.stringify(c.args)),
      10_000,
    );
    emu.faults.clear();
    const text = JSON.stringify(shown.args);
    expect(text).toContain('rate limited');
    // The form, not a closing line: the fields hold what the user typed.
    const again = bot.fake.lastView(admin, 'modal') as FakeView;
    const initial = (id: string) =>
      (again.blocks as Array<{ block_id?: string; element?: { initial_value?: string } }>).find(
        (b) => b.block_id === id,
      )?.element?.initial_value;
    expect(initial('name')).toBe('outage-edit-b');
    expect(initial('description')).toBe('typed by hand');
    // Saved from that form once the service is back.
    const seq3 = lastSeq(bot);
    await bot.viewSubmission({
      user: admin,
      view: again,
      values: editValues('outage-edit-b', 'typed by hand'),
    });
    await bot.fake.waitFor(
      (c) => c.method === 'views.update' && c.seq > seq3 && c.ok && /Saved\./.test(JSON.stringify(c.args)),
      10_000,
    );
    const saved = await bot.deps.api
      .watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl })
      .searchRecipients('DEMO', { keywords: ['outage-edit-b'] });
    expect(saved.items.map((r) => [r.name, r.description])).toEqual([['outage-edit-b', 'typed by hand']]);
  });
});
