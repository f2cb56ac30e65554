/**
 * Text cut to a length (a typed value quoted in a "not valid" answer, a value first shown in a
 * form) never leaves half of a surrogate pair: Slack refuses a payload with an unpaired surrogate,
 * so the user would get no answer at all. Through the signed app and the fake Slack, which
 * refuses such payloads as Slack does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeView } from '../../../dev/fakeslack/index.js';
import { startTestBot, type TestBot } from '../../harness/index.js';
import { buttons, lastSeq, nextCall, replyBlocks } from '../../support/slack.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env' });
});
afterAll(async () => {
  await bot?.close();
});

/** Every string in a payload is well-formed UTF-16 (no lone surrogate). */
function loneSurrogates(v: unknown, path = ''): string[] {
  if (typeof v === 'string') return /[\ud800-\udfff]/u.test(v) ? [path || '(root)'] : [];
  if (Array.isArray(v)) return v.flatMap((x, i) => loneSurrogates(x, `${path}/${i}`));
  if (v && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => loneSurrogates(x, `${path}/${k}`));
  return [];
}

// 'x' then emoji: a cut at an even number of UTF-16 units lands inside a pair.
const EMOJI_TAIL = `x${'🔥'.repeat(40)}`;

describe('a typed value quoted in a refusal', () => {
  it('/dwm watch content:<emoji…>: the "not a content filter" answer reaches the user', async () => {
    const seq = lastSeq(bot);
    await bot.command(`watch content:${EMOJI_TAIL}`, { user: bot.ws.admin });
    const reply = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 10_000);
    expect(loneSurrogates(reply.args)).toEqual([]);
    expect(reply.ok).toBe(true);
    expect(JSON.stringify(reply.args)).toContain('is not a content filter');
  });

  it('the watch form: the inline error on the content field is well-formed', async () => {
    const seq = lastSeq(bot);
    await bot.command('watch', { user: bot.ws.admin });
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq && c.ok, 10_000);
    const view = bot.fake.lastView(bot.ws.admin, 'modal') as FakeView;
    const r = await bot.viewSubmission({
      user: bot.ws.admin,
      view,
      values: { watch_content: { value: { type: 'plain_text_input', value: EMOJI_TAIL } } },
    });
    expect(r.json).toMatchObject({ response_action: 'errors' });
    expect(loneSurrogates(r.json)).toEqual([]);
  });
});

describe('a value first shown in a form', () => {
  const admin = () => bot.ws.admin;
  const wm = () => {
    const emu = bot.emulator!;
    return bot.deps.api.watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl });
  };
  type Shown = { blocks: Array<{ block_id?: string; element?: { initial_value?: string } }> };
  /** `/dwm recipient <name>`, then Edit: the form as Slack was asked to show it. */
  async function openEdit(name: string): Promise<Shown> {
    const seq = lastSeq(bot);
    await bot.command(`recipient ${name}`, { user: admin() });
    const card = await nextCall(bot, 'response_url', seq);
    const edit = buttons(replyBlocks(card)).find((b) => b.action_id === 'wm_recipient_edit')!;
    await bot.action({ actionId: edit.action_id, value: edit.value!, user: admin() });
    // The loading view, then the form (or a failure line) in its place.
    const shown = await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq, 10_000);
    expect({ ok: shown.ok, error: shown.error }).toEqual({ ok: true, error: undefined });
    return shown.args.view as Shown;
  }
  const initial = (v: Shown, block: string) =>
    v.blocks.find((b) => b.block_id === block)?.element?.initial_value;

  it('a description whose emoji straddles the field length: the edit form opens, no emoji cut in half', async () => {
    // 51 emoji (102 UTF-16 units) for a 50-character field: any cut of it lands on a pair.
    await wm().registerRecipients('DEMO', [{ name: 'emoji-cut', description: `x${'🔥'.repeat(49)}` }]);
    const v = await openEdit('emoji-cut');
    expect(initial(v, 'name')).toBe('emoji-cut');
    expect(loneSurrogates(initial(v, 'description'))).toEqual([]);
  });

  it('a description of 50 characters with emoji (as the service counts them) is shown whole, and kept on a rename', async () => {
    const description = `x${'🔥'.repeat(49)}`;
    await wm().registerRecipients('DEMO', [{ name: 'emoji-whole', description }]);
    const v = await openEdit('emoji-whole');
    expect(initial(v, 'description')).toBe(description);

    const view = bot.fake.lastView(admin(), 'modal') as FakeView;
    const values = (name: string, desc: string) => ({
      name: { value: { type: 'plain_text_input', value: name } },
      description: { value: { type: 'plain_text_input', value: desc } },
    });
    // One character too many as the service counts (100 UTF-16 units): refused on its field.
    const long = await bot.viewSubmission({
      user: admin(),
      view,
      values: values('emoji-whole', `${description}y`),
    });
    expect(long.json).toEqual({
      response_action: 'errors',
      errors: { description: 'The description is 51 characters long; the limit is 50.' },
    });
    // Renamed only: the description is not sent, so it stays whole.
    const seq = lastSeq(bot);
    const r = await bot.viewSubmission({ user: admin(), view, values: values('emoji-whole-2', description) });
    expect(r.json).toMatchObject({ response_action: 'update' });
    await bot.fake.waitFor(
      (c) => c.seq > seq && c.method === 'views.update' && JSON.stringify(c.args).includes('Saved.'),
      10_000,
    );
    const [after] = (await wm().searchRecipients('DEMO', { keywords: ['emoji-whole-2'] })).items;
    expect(after).toMatchObject({ name: 'emoji-whole-2', description });
  });
});

describe('a workflow step input quoted in its failure', () => {
  it('job status with a job id of emoji: the step fails with the reason, its text intact', async () => {
    const seq = lastSeq(bot);
    await bot.functionExecuted({ callbackId: 'job_status', inputs: { job_id: EMOJI_TAIL } });
    const c = await bot.fake.waitFor((x) => x.seq > seq && x.method.startsWith('functions.'), 10_000);
    expect({ method: c.method, ok: c.ok, error: c.error }).toEqual({
      method: 'functions.completeError',
      ok: true,
      error: undefined,
    });
    // The half pair is not sent: the client's form encoding would fuse it with the next
    // character (here the closing quote, read back as another emoji).
    expect(String(c.args.error)).toContain(`"x${'🔥'.repeat(19)}\ufffd" is not a job id.`);
  });
});

describe('an audit entry cut inside an emoji', () => {
  it('the audit channel gets the line, the typed text intact up to the cut', async () => {
    let seq = lastSeq(bot);
    await bot.command(`setup audit-channel <#${bot.ws.channel}|general>`, { user: bot.ws.admin });
    await bot.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.args.channel === bot.ws.channel && c.seq > seq,
      10_000,
    );
    // The detail quotes the first 100 UTF-16 units of the name: 'x' and 49.5 emoji.
    seq = lastSeq(bot);
    await bot.command(`site request ${EMOJI_TAIL}${'🔥'.repeat(20)}`, {
      command: '/drm',
      user: bot.ws.admin,
    });
    const line = await bot.fake.waitFor(
      (c) =>
        c.method === 'chat.postMessage' &&
        c.args.channel === bot.ws.channel &&
        c.seq > seq &&
        String(c.args.text).includes('site.request'),
      10_000,
    );
    expect(line.ok).toBe(true);
    expect(String(line.args.text)).toContain(`additional site "x${'🔥'.repeat(49)}\ufffd"`);
  });
});
