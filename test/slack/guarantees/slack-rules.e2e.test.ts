/**
 * End to end (signed requests, real app, emulator, fake Slack): the recipient edit answers Slack
 * before the service, the FairPlay key is pasted as text, `setup status share` is refused, modal
 * commands refuse members without a modal.
 */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../dev/fakeslack/index.js';
import { startTestBot, type TestBot } from '../../harness/index.js';
import { blocksText, buttons, lastSeq, nextCall, replyBlocks } from '../../support/slack.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env' });
});
afterAll(async () => {
  await bot?.close();
});

const text = (value: string) => ({ value: { type: 'plain_text_input', value } });
const viewUpdateAfter = (seq: number) =>
  bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq && c.ok, 10_000);

describe('recipient edit', () => {
  async function openEdit(name: string): Promise<{ view: FakeView; responseUrl: string | undefined }> {
    const admin = bot.ws.admin;
    const seq = lastSeq(bot);
    await bot.command(`recipient ${name}`, { user: admin });
    const card = await nextCall(bot, 'response_url', seq);
    const edit = buttons(replyBlocks(card)).find((b) => b.action_id === 'wm_recipient_edit')!;
    const clicked = await bot.action({ actionId: edit.action_id, value: edit.value!, user: admin });
    await nextCall(bot, 'views.update', seq);
    return { view: bot.fake.lastView(admin, 'modal') as FakeView, responseUrl: clicked.responseUrl };
  }
  const editValues = (name: string, description: string) => ({
    name: text(name),
    description: text(description),
  });

  it('local rules inline; in use, then saved, each shown after a "Saving…" answer', async () => {
    const admin = bot.ws.admin;
    const { view } = await openEdit('Stan-AU');
    const bad = await bot.viewSubmission({ user: admin, view, values: editValues('Stan AU!', '') });
    expect(bad.json).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(bad.json)).toContain('only letters');
    const shownDescription =
      (view.blocks as Array<{ block_id?: string; element?: { initial_value?: string } }>).find(
        (b) => b.block_id === 'description',
      )?.element?.initial_value ?? '';
    const same = await bot.viewSubmission({
      user: admin,
      view,
      values: editValues('Stan-AU', shownDescription),
    });
    expect(JSON.stringify(same.json)).toContain('Nothing changed');

    const emu = bot.emulator!;
    const jobId = emu.createJob('DEMO', 'IN-USE-R2', [{ recipient: 'Stan-AU' }]);
    const seq = lastSeq(bot);
    const inUse = await bot.viewSubmission({ user: admin, view, values: editValues('Stan-Australia', '') });
    expect(inUse.json).toMatchObject({ response_action: 'update' });
    expect(JSON.stringify(inUse.json)).toContain('Saving');
    expect(JSON.stringify((await viewUpdateAfter(seq)).args)).toContain(
      'being used by a running watermarking task',
    );
    emu.finishJob('DEMO', jobId);

    const again = await openEdit('Stan-AU');
    const seq2 = lastSeq(bot);
    const ok = await bot.viewSubmission({
      user: admin,
      view: again.view,
      values: editValues('Stan-Australia', 'AU <b>'),
    });
    expect(ok.json).toMatchObject({ response_action: 'update' });
    expect(JSON.stringify((await viewUpdateAfter(seq2)).args)).toContain('Saved.');
    const replaced = await bot.fake.waitFor(
      (c) => c.seq > seq2 && c.method === 'response_url' && c.ok && c.args.replace_original === true,
      10_000,
    );
    expect(blocksText(replyBlocks(replaced))).toContain('AU &lt;b&gt;');
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit.find((e) => e.action === 'recipient.edit' && e.result === 'ok')?.detail).toContain(
      'Stan-Australia',
    );
  });

  it('a taken name shows the form again with the reason, the typed values kept, and only changes sent', async () => {
    const admin = bot.ws.admin;
    const emu = bot.emulator!;
    await bot.deps.api
      .watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl })
      .registerRecipients('DEMO', [{ name: 'r2-dup-a' }, { name: 'r2-dup-b' }]);
    const { view } = await openEdit('r2-dup-a');
    const seq = lastSeq(bot);
    await bot.viewSubmission({ user: admin, view, values: editValues('R2-DUP-B', 'x') });
    const upd = await viewUpdateAfter(seq);
    const shown = JSON.stringify(upd.args);
    expect(shown).toContain('already named');
    expect(shown).toContain('"initial_value":"R2-DUP-B"');
    // The next save compares with the values first shown: "nothing changed" is not claimed.
    const form = bot.fake.lastView(admin, 'modal') as FakeView;
    const seq2 = lastSeq(bot);
    const ok = await bot.viewSubmission({ user: admin, view: form, values: editValues('r2-dup-a', 'x') });
    expect(ok.json).toMatchObject({ response_action: 'update' });
    expect(JSON.stringify((await viewUpdateAfter(seq2)).args)).toContain('Saved.');
  });
});

describe('FairPlay certificate', () => {
  const pem = '-----BEGIN PRIVATE KEY-----\r\nMIICdgIBADANBgkqhkiG9w0BAQEFAASC\r\n-----END PRIVATE KEY-----';

  async function upload(filename: string, file: Buffer): Promise<string> {
    const web = new WebClient(bot.ws.botToken, { slackApiUrl: bot.fake.apiUrl, retryConfig: { retries: 0 } });
    const r = (await web.files.uploadV2({ filename, file })) as unknown as {
      files: Array<{ files?: Array<{ id: string }>; id?: string }>;
    };
    return r.files[0]!.files?.[0]?.id ?? r.files[0]!.id!;
  }
  const uploadCert = () => upload('fps.der', Buffer.from([0x30, 0x82, 1, 2, 3]));
  const file = (id: string) => ({ file: { type: 'file_input', files: [{ id }] } });

  it('files only (no text input); a pasted PEM is refused; a key file (CRLF) and a secrets file are sent; the admin is told to delete them', async () => {
    const admin = bot.ws.admin;
    const seq = lastSeq(bot);
    await bot.command('fpscert', { command: '/drm', user: admin });
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 5000);
    const form = bot.fake.lastView(admin, 'modal') as FakeView;
    const blocks = form.blocks as Array<{
      block_id?: string;
      element?: { type: string; multiline?: boolean };
    }>;
    expect(blocks.find((b) => b.block_id === 'svc_fps_key_file')?.element).toMatchObject({
      type: 'file_input',
    });
    expect(blocks.find((b) => b.block_id === 'svc_fps_key')).toBeUndefined();
    expect(blocks.some((b) => b.element?.type === 'plain_text_input')).toBe(false);

    // A key pasted into a form opened by an older version (it had a text box) is never used.
    const pasted = await bot.viewSubmission({
      user: admin,
      view: form,
      values: {
        svc_fps_cert: file(await uploadCert()),
        svc_fps_key: text(pem),
        svc_fps_secrets_file: file(await upload('fps.txt', Buffer.from('ASK=ask-0123\nPASSWORD=pw\n'))),
      },
    });
    expect(pasted.json).toMatchObject({
      response_action: 'errors',
      errors: { svc_fps_key: expect.stringContaining('.pem file') },
    });

    const seq2 = lastSeq(bot);
    const sub = await bot.viewSubmission({
      user: admin,
      view: form,
      values: {
        svc_fps_cert: file(await uploadCert()),
        svc_fps_key_file: file(await upload('my-key.pem', Buffer.from(pem))),
        svc_fps_secrets_file: file(
          await upload(
            'fps-secrets.txt',
            Buffer.from('ASK=ask-0123456789abcdef\r\nPASSWORD=pw-secret-r16\r\n'),
          ),
        ),
      },
    });
    expect(sub.json).toMatchObject({ response_action: 'update' });
    const done = JSON.stringify((await viewUpdateAfter(seq2)).args);
    expect(done).toContain('Registered the FairPlay certificate');
    expect(done).toContain('Delete the private key file my-key.pem and the secrets file fps-secrets.txt');
    expect(bot.emulator!.certificateUploads('DEMO').at(-1)).toMatchObject({
      fpsCertFilename: 'fps.der',
      privateKeyFilename: 'my-key.pem',
    });
    expect(bot.fake.calls('download').filter((c) => c.seq > seq2 && c.ok)).toHaveLength(3);
    const everything =
      JSON.stringify(bot.fake.calls().filter((c) => c.seq > seq2 && c.method !== 'download')) +
      bot.logs.text();
    expect(everything).not.toContain('MIICdgIBADANBgkqhkiG9w0BAQEFAASC');
    expect(everything).not.toContain('pw-secret-r16');
    expect(everything).not.toContain('ask-0123456789abcdef');
  });
});

describe('setup', () => {
  it('setup status share is refused, said so, and audited', async () => {
    const seq = lastSeq(bot);
    await bot.command('setup status share', { user: bot.ws.admin });
    const r = await nextCall(bot, 'response_url', seq);
    expect(r.args.response_type).toBe('ephemeral');
    expect(JSON.stringify(r.args)).toContain('never posted in a channel');
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit[0]).toMatchObject({ action: 'setup.status', result: 'refused' });
  });

  it('a member running a modal command is refused with a message and no modal', async () => {
    for (const [command, words] of [
      ['/dwm', 'setup'],
      ['/drm', 'fpscert'],
    ] as const) {
      const seq = lastSeq(bot);
      await bot.command(words, { command, user: bot.ws.member });
      const r = await nextCall(bot, 'response_url', seq);
      expect(JSON.stringify(r.args)).toContain('Only admins');
      expect(bot.fake.calls().filter((c) => c.seq > seq && c.method.startsWith('views.'))).toEqual([]);
    }
  });
});
