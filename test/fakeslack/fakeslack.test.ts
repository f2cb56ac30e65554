/**
 * The fake Slack refuses what Slack refuses, with Slack's error strings, so the bot's tests can
 * trust a green run. Driven through the real @slack/web-api client, as the bot uses it.
 */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeSlack, viewAckProblems } from '../../dev/fakeslack/index.js';

const A = { teamId: 'T0AAA', botToken: 'xoxb-1-aaa' };
const B = { teamId: 'T0BBB', botToken: 'xoxb-2-bbb' };

let clock = 1_800_000_000_000;
let fake: FakeSlack;
let a: WebClient;
let b: WebClient;

const err = (error: string) => ({ data: expect.objectContaining({ ok: false, error }) });
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const modal = (extra: Record<string, unknown> = {}) => ({
  type: 'modal' as const,
  title: { type: 'plain_text' as const, text: 'Title' },
  blocks: [section('hello')],
  ...extra,
});

beforeAll(async () => {
  fake = await FakeSlack.start({ now: () => clock, clientId: '1.2', clientSecret: 'client-secret' });
  fake.addWorkspace({
    ...A,
    users: [
      { id: 'U0AADMIN', tz: 'Asia/Seoul', isAdmin: true },
      { id: 'U0AUSER', tz: 'America/New_York' },
      { id: 'U0AOWNER', isOwner: true },
    ],
    channels: [
      { id: 'C0AGEN', name: 'general' },
      { id: 'C0ANOBOT', name: 'random', botIsMember: false },
      { id: 'C0AOLD', name: 'old', isArchived: true },
    ],
    usergroups: [{ id: 'S0AOPS', users: ['U0AADMIN'] }],
  });
  fake.addWorkspace({ ...B, users: [{ id: 'U0BUSER' }], channels: [{ id: 'C0BGEN', name: 'general' }] });
  const opts = { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true };
  a = new WebClient(A.botToken, opts);
  b = new WebClient(B.botToken, opts);
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  clock += 10_000;
  fake.reset();
});

describe('auth and workspaces', () => {
  it('answers auth.test with the workspace of the token', async () => {
    const r = await a.auth.test();
    expect(r).toMatchObject({ ok: true, team_id: A.teamId, bot_id: 'B0AAA', user_id: 'U0AAABOT' });
  });

  it('refuses an unknown token (invalid_auth) and a missing one (not_authed)', async () => {
    const bad = new WebClient('xoxb-9-unknown', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    await expect(bad.auth.test()).rejects.toMatchObject(err('invalid_auth'));
    const none = new WebClient(undefined, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    await expect(none.chat.postMessage({ channel: 'C0AGEN', text: 'x' })).rejects.toMatchObject(
      err('not_authed'),
    );
  });

  it("a token of A cannot post in B's channel nor read B's user", async () => {
    await expect(a.chat.postMessage({ channel: 'C0BGEN', text: 'x' })).rejects.toMatchObject(
      err('channel_not_found'),
    );
    await expect(a.users.info({ user: 'U0BUSER' })).rejects.toMatchObject(err('user_not_found'));
    await expect(b.chat.postMessage({ channel: 'C0BGEN', text: 'ok' })).resolves.toMatchObject({ ok: true });
    expect(fake.messages('C0BGEN')).toHaveLength(1);
  });

  it('records every call with the team of its token and without the token', async () => {
    await a.chat.postMessage({ channel: 'C0AGEN', text: 'hi' });
    const [call] = fake.calls('chat.postMessage');
    expect(call).toMatchObject({
      method: 'chat.postMessage',
      teamId: A.teamId,
      ok: true,
      args: { text: 'hi' },
    });
    expect(JSON.stringify(call)).not.toContain(A.botToken);
  });

  it('lastSeq is the sequence number of the last call, and keeps counting after reset()', async () => {
    await a.chat.postMessage({ channel: 'C0AGEN', text: 'one' });
    const seq = fake.lastSeq();
    expect(seq).toBe(Math.max(...fake.calls().map((c) => c.seq)));
    fake.reset();
    expect(fake.lastSeq()).toBe(seq);
    await a.chat.postMessage({ channel: 'C0AGEN', text: 'two' });
    expect(fake.calls().map((c) => c.seq)).toEqual([fake.lastSeq()]);
    expect(fake.lastSeq()).toBeGreaterThan(seq);
  });
});

describe('channels', () => {
  it('refuses channels the bot is not in (not_in_channel) and archived ones (is_archived)', async () => {
    await expect(a.chat.postMessage({ channel: 'C0ANOBOT', text: 'x' })).rejects.toMatchObject(
      err('not_in_channel'),
    );
    await expect(a.chat.postMessage({ channel: 'C0AOLD', text: 'x' })).rejects.toMatchObject(
      err('is_archived'),
    );
    await expect(
      a.chat.postEphemeral({ channel: 'C0ANOBOT', user: 'U0AUSER', text: 'x' }),
    ).rejects.toMatchObject(err('not_in_channel'));
  });

  it('conversations.info reports is_member; users.info gives tz, is_admin, is_owner', async () => {
    const ch = await a.conversations.info({ channel: 'C0ANOBOT' });
    expect(ch.channel).toMatchObject({ id: 'C0ANOBOT', is_member: false, is_archived: false });
    const admin = await a.users.info({ user: 'U0AADMIN' });
    expect(admin.user).toMatchObject({
      tz: 'Asia/Seoul',
      tz_offset: 9 * 3600,
      is_admin: true,
      is_owner: false,
    });
    const owner = await a.users.info({ user: 'U0AOWNER' });
    expect(owner.user).toMatchObject({ is_admin: true, is_owner: true, tz: 'UTC' });
    const dm = await a.conversations.info({ channel: 'D0AUSER' });
    expect(dm.channel).toMatchObject({ id: 'D0AUSER', is_im: true, user: 'U0AUSER' });
    const self = await a.users.info({ user: 'U0AAABOT' });
    expect(self.user).toMatchObject({ is_bot: true, is_admin: false });
    const g = await a.usergroups.users.list({ usergroup: 'S0AOPS' });
    expect(g.users).toEqual(['U0AADMIN']);
    await expect(a.usergroups.users.list({ usergroup: 'S0NOPE' })).rejects.toMatchObject(
      err('no_such_subteam'),
    );
  });

  it('posts to a user id as a DM; updates, deletes and permalinks own messages', async () => {
    const r = await a.chat.postMessage({ channel: 'U0AUSER', text: 'dm' });
    expect(r.channel).toBe('D0AUSER');
    expect(fake.messages('U0AUSER').map((m) => m.text)).toEqual(['dm']);
    const p = await a.chat.postMessage({ channel: 'C0AGEN', text: 'v1' });
    await a.chat.update({ channel: 'C0AGEN', ts: p.ts!, text: 'v2' });
    expect(fake.messages('C0AGEN')[0]).toMatchObject({ text: 'v2', edited: true });
    const link = await a.chat.getPermalink({ channel: 'C0AGEN', message_ts: p.ts! });
    expect(link.permalink).toContain(`/archives/C0AGEN/p${p.ts!.replace('.', '')}`);
    await a.chat.delete({ channel: 'C0AGEN', ts: p.ts! });
    expect(fake.messages('C0AGEN')).toEqual([]);
    await expect(a.chat.update({ channel: 'C0AGEN', ts: '1.000001', text: 'x' })).rejects.toMatchObject(
      err('message_not_found'),
    );
  });

  it('refuses an empty message (no_text)', async () => {
    await expect(a.chat.postMessage({ channel: 'C0AGEN', text: '' })).rejects.toMatchObject(err('no_text'));
  });
});

describe('Block Kit limits', () => {
  const button = (text: string, action_id = 'a1') => ({
    type: 'button',
    text: { type: 'plain_text', text },
    action_id,
  });
  const cases: [string, unknown[]][] = [
    ['more than 50 blocks', Array.from({ length: 51 }, () => ({ type: 'divider' }))],
    ['section text over 3000', [section('x'.repeat(3001))]],
    ['header over 150', [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }]],
    ['header in mrkdwn', [{ type: 'header', text: { type: 'mrkdwn', text: 'h' } }]],
    ['button text over 75', [{ type: 'actions', elements: [button('b'.repeat(76))] }]],
    ['action_id over 255', [{ type: 'actions', elements: [button('ok', 'a'.repeat(256))] }]],
    ['block_id over 255', [{ ...section('x'), block_id: 'b'.repeat(256) }]],
    [
      'more than 25 elements in actions',
      [{ type: 'actions', elements: Array.from({ length: 26 }, (_, i) => button('b', `a${i}`)) }],
    ],
    [
      'duplicate action_id in a block',
      [{ type: 'actions', elements: [button('b', 'same'), button('c', 'same')] }],
    ],
    [
      'duplicate block_id',
      [
        { ...section('x'), block_id: 'dup' },
        { ...section('y'), block_id: 'dup' },
      ],
    ],
    [
      'more than 10 section fields',
      [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) }],
    ],
    ['section field over 2000', [{ type: 'section', fields: [{ type: 'mrkdwn', text: 'f'.repeat(2001) }] }]],
    [
      'option text over 75',
      [
        {
          ...section('pick'),
          accessory: {
            type: 'static_select',
            action_id: 's',
            options: [{ text: { type: 'plain_text', text: 'o'.repeat(76) }, value: 'v' }],
          },
        },
      ],
    ],
    [
      'more than 10 context elements',
      [{ type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'c' })) }],
    ],
    ['unknown block type', [{ type: 'carousel' }]],
    [
      'input block in a message',
      [{ type: 'input', label: { type: 'plain_text', text: 'l' }, element: { type: 'plain_text_input' } }],
    ],
    ['section without text or fields', [{ type: 'section' }]],
    [
      'confirm text over 300',
      [
        {
          type: 'actions',
          elements: [
            {
              ...button('b'),
              confirm: {
                title: { type: 'plain_text', text: 't' },
                text: { type: 'plain_text', text: 'x'.repeat(301) },
                confirm: { type: 'plain_text', text: 'y' },
                deny: { type: 'plain_text', text: 'n' },
              },
            },
          ],
        },
      ],
    ],
  ];

  const pointer: Record<string, string> = {
    'more than 50 blocks': '/blocks]',
    'section text over 3000': '/blocks/0/text/text]',
    'header over 150': '/blocks/0/text/text]',
    'header in mrkdwn': '/blocks/0/text/type]',
    'button text over 75': '/blocks/0/elements/0/text/text]',
    'action_id over 255': '/blocks/0/elements/0/action_id]',
    'block_id over 255': '/blocks/0/block_id]',
    'more than 25 elements in actions': '/blocks/0/elements]',
    'duplicate action_id in a block': '/blocks/0/elements/1/action_id]',
    'duplicate block_id': '/blocks/1/block_id]',
    'more than 10 section fields': '/blocks/0/fields]',
    'section field over 2000': '/blocks/0/fields/0/text]',
    'option text over 75': '/blocks/0/accessory/options/0/text/text]',
    'more than 10 context elements': '/blocks/0/elements]',
    'unknown block type': '/blocks/0/type]',
    'input block in a message': '/blocks/0/type]',
    'section without text or fields': '/blocks/0]',
    'confirm text over 300': '/blocks/0/elements/0/confirm/text/text]',
  };

  it.each(cases)(
    'refuses a message with %s (invalid_blocks, with Slack-style detail)',
    async (name, blocks) => {
      const e = await a.chat
        .postMessage({ channel: 'C0AGEN', text: 'fallback', blocks: blocks as never })
        .catch((x: unknown) => x);
      expect(e).toMatchObject(err('invalid_blocks'));
      const messages = (e as { data: { response_metadata: { messages: string[] } } }).data.response_metadata
        .messages;
      expect(messages[0]).toMatch(/^\[ERROR\] .+ \[json-pointer:\/blocks/);
      expect(
        messages.some((m) => m.endsWith(`[json-pointer:${pointer[name]}`)),
        messages.join('\n'),
      ).toBe(true);
      expect(fake.messages('C0AGEN')).toEqual([]);
    },
  );

  it('accepts a message at every limit exactly', async () => {
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(150) } },
      section('x'.repeat(3000)),
      {
        type: 'section',
        fields: Array.from({ length: 10 }, () => ({ type: 'mrkdwn', text: 'f'.repeat(2000) })),
      },
      {
        type: 'actions',
        block_id: 'b'.repeat(255),
        elements: Array.from({ length: 25 }, (_, i) => button('b'.repeat(75), `${i}`.padEnd(255, 'a'))),
      },
      ...Array.from({ length: 46 }, () => ({ type: 'divider' })),
    ];
    expect(blocks).toHaveLength(50);
    await expect(
      a.chat.postMessage({ channel: 'C0AGEN', text: 'x'.repeat(40_000), blocks: blocks as never }),
    ).resolves.toMatchObject({ ok: true });
  });

  it('refuses text over 40,000 characters (msg_too_long)', async () => {
    await expect(a.chat.postMessage({ channel: 'C0AGEN', text: 'x'.repeat(40_001) })).rejects.toMatchObject(
      err('msg_too_long'),
    );
  });

  it('refuses text holding half of a surrogate pair (a cut inside an emoji), accepts whole pairs', async () => {
    const half = '🔥🔥'.slice(0, 3);
    // The Web API client cannot even encode it (form encoding throws before any request)...
    await expect(a.chat.postMessage({ channel: 'C0AGEN', text: `cut ${half}` })).rejects.toThrow(
      /URI malformed/,
    );
    // ...and a JSON body carrying it is refused.
    const json = (text: string) =>
      fetch(`${fake.apiUrl}chat.postMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${A.botToken}` },
        body: JSON.stringify({ channel: 'C0AGEN', text: 'x', blocks: [section(text)] }),
      }).then((r) => r.json());
    await expect(json(`cut ${half}`)).resolves.toMatchObject({ ok: false, error: 'invalid_json' });
    await expect(json('🔥👩‍👩‍👧')).resolves.toMatchObject({ ok: true });
  });
});

describe('views and trigger ids', () => {
  it('opens a modal with a fresh trigger and records it as the last view of the user', async () => {
    const trigger = fake.issueTrigger(A.teamId, 'U0AUSER');
    const r = await a.views.open({
      trigger_id: trigger,
      view: modal({ callback_id: 'cb', private_metadata: 'pm' }),
    });
    expect(r.view).toMatchObject({
      type: 'modal',
      callback_id: 'cb',
      private_metadata: 'pm',
      team_id: A.teamId,
    });
    expect(fake.lastView('U0AUSER')).toMatchObject({ id: r.view!.id, callbackId: 'cb' });
  });

  it('refuses a trigger older than 3 s, a used one and an unknown one', async () => {
    const t1 = fake.issueTrigger(A.teamId, 'U0AUSER');
    clock += 3001;
    await expect(a.views.open({ trigger_id: t1, view: modal() })).rejects.toMatchObject(
      err('expired_trigger_id'),
    );
    const t2 = fake.issueTrigger(A.teamId, 'U0AUSER');
    await a.views.open({ trigger_id: t2, view: modal() });
    await expect(a.views.open({ trigger_id: t2, view: modal() })).rejects.toMatchObject(
      err('exchanged_trigger_id'),
    );
    await expect(a.views.open({ trigger_id: '1.2.nope', view: modal() })).rejects.toMatchObject(
      err('invalid_trigger_id'),
    );
    const tb = fake.issueTrigger(B.teamId, 'U0BUSER');
    await expect(a.views.open({ trigger_id: tb, view: modal() })).rejects.toMatchObject(
      err('invalid_trigger_id'),
    );
  });

  it('refuses a modal title over 24, more than 100 blocks, and inputs without submit', async () => {
    const open = (view: unknown) =>
      a.views.open({ trigger_id: fake.issueTrigger(A.teamId, 'U0AUSER'), view: view as never });
    await expect(open(modal({ title: { type: 'plain_text', text: 't'.repeat(25) } }))).rejects.toMatchObject(
      err('invalid_arguments'),
    );
    await expect(
      open(modal({ blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) })),
    ).rejects.toMatchObject(err('invalid_arguments'));
    const input = {
      type: 'input',
      label: { type: 'plain_text', text: 'Name' },
      element: { type: 'plain_text_input', action_id: 'n' },
    };
    await expect(open(modal({ blocks: [input] }))).rejects.toMatchObject(err('invalid_arguments'));
    await expect(
      open(modal({ blocks: [input], submit: { type: 'plain_text', text: 'Save' } })),
    ).resolves.toMatchObject({ ok: true });
    await expect(
      open(modal({ blocks: Array.from({ length: 100 }, () => ({ type: 'divider' })) })),
    ).resolves.toMatchObject({ ok: true });
  });

  it('updates by view id with hash checking, pushes on top, publishes home tabs', async () => {
    const r = await a.views.open({ trigger_id: fake.issueTrigger(A.teamId, 'U0AUSER'), view: modal() });
    const v = r.view!;
    await expect(a.views.update({ view_id: v.id!, hash: 'stale', view: modal() })).rejects.toMatchObject(
      err('hash_conflict'),
    );
    const u = await a.views.update({
      view_id: v.id!,
      hash: v.hash!,
      view: modal({ blocks: [section('step 2')] }),
    });
    expect(fake.lastView('U0AUSER')?.blocks).toEqual([section('step 2')]);
    const p = await a.views.push({
      trigger_id: fake.issueTrigger(A.teamId, 'U0AUSER'),
      view: modal({ callback_id: 'pushed' }),
    });
    expect(p.view).toMatchObject({ root_view_id: v.id, previous_view_id: u.view!.id });
    await a.views.publish({ user_id: 'U0AUSER', view: { type: 'home', blocks: [section('home')] } });
    expect(fake.lastView('U0AUSER', 'home')?.blocks).toEqual([section('home')]);
    expect(fake.lastView('U0AUSER', 'modal')?.callbackId).toBe('pushed');
  });
});

describe('answers to a view submission', () => {
  const form = {
    blocks: [
      { type: 'section', block_id: 'intro', text: { type: 'mrkdwn', text: 'x' } },
      {
        type: 'input',
        block_id: 'name',
        label: { type: 'plain_text', text: 'Name' },
        element: { type: 'plain_text_input' },
      },
    ],
  };
  it("takes inline errors on the form's inputs, an empty ack, and a valid update", () => {
    expect(viewAckProblems(form, [], { response_action: 'errors', errors: { name: 'Too long.' } })).toEqual(
      [],
    );
    expect(viewAckProblems(form, [], undefined)).toEqual([]);
    const update = { type: 'modal', title: { type: 'plain_text', text: 'Saved' }, blocks: [] };
    expect(viewAckProblems(form, [], { response_action: 'update', view: update })).toEqual([]);
  });
  it('refuses errors on a block that is not an input of the form, an invalid view, half a surrogate pair', () => {
    expect(viewAckProblems(form, [], { response_action: 'errors', errors: { intro: 'x' } })).toEqual([
      'errors: "intro" is not an input block of the form',
    ]);
    // A form opened by an older version: its inputs are the blocks the submission has values for.
    expect(viewAckProblems(form, ['old'], { response_action: 'errors', errors: { old: 'x' } })).toEqual([]);
    const bad = { type: 'modal', title: { type: 'plain_text', text: 't'.repeat(25) }, blocks: [] };
    expect(viewAckProblems(form, [], { response_action: 'update', view: bad })).toHaveLength(1);
    expect(
      viewAckProblems(form, [], { response_action: 'errors', errors: { name: `cut ${'🔥'.slice(0, 1)}` } }),
    ).toEqual(['half of a surrogate pair in the answer']);
  });
});

describe('scripted failures', () => {
  it('answers ratelimited with HTTP 429 and Retry-After, for N calls', async () => {
    fake.fail('chat.postMessage', { status: 429, retryAfterSeconds: 7, times: 2 });
    const res = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${A.botToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'channel=C0AGEN&text=x',
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.json()).toEqual({ ok: false, error: 'ratelimited' });
    await expect(a.chat.postMessage({ channel: 'C0AGEN', text: 'x' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 7,
    });
    await expect(a.chat.postMessage({ channel: 'C0AGEN', text: 'third' })).resolves.toMatchObject({
      ok: true,
    });
  });

  it('answers 5xx and any error string, then recovers', async () => {
    fake.fail('users.info', { status: 503 });
    await expect(a.users.info({ user: 'U0AUSER' })).rejects.toMatchObject({
      code: 'slack_webapi_http_error',
      statusCode: 503,
    });
    fake.fail('*', { error: 'fatal_error', times: 1 });
    await expect(a.auth.test()).rejects.toMatchObject(err('fatal_error'));
    await expect(a.auth.test()).resolves.toMatchObject({ ok: true });
  });
});

describe('1 message per second per channel', () => {
  it('records posts closer than 1 s in the same channel, not in different channels or spaced ones', async () => {
    await a.chat.postMessage({ channel: 'C0AGEN', text: '1' });
    clock += 400;
    await a.chat.postMessage({ channel: 'C0AGEN', text: '2' });
    await a.chat.postMessage({ channel: 'U0AUSER', text: 'other channel' });
    clock += 1000;
    await a.chat.postMessage({ channel: 'C0AGEN', text: '3' });
    expect(fake.rateViolations()).toEqual([{ channel: 'C0AGEN', ts: expect.any(String), sinceLastMs: 400 }]);
  });
});

describe('files', () => {
  it('supports files.uploadV2 end to end and serves url_private only with a token of the workspace', async () => {
    const r = await a.files.uploadV2({
      channel_id: 'C0AGEN',
      filename: 'report.csv',
      content: 'a,b\n1,2\n',
      initial_comment: 'Report',
    });
    expect(r.ok).toBe(true);
    const msg = fake.messages('C0AGEN')[0]!;
    expect(msg).toMatchObject({ text: 'Report', via: 'files.completeUploadExternal' });
    const fileId = msg.files![0]!;
    expect(fake.file(fileId)?.data.toString()).toBe('a,b\n1,2\n');

    const info = await a.files.info({ file: fileId });
    const url = info.file!.url_private!;
    await expect(b.files.info({ file: fileId })).rejects.toMatchObject(err('file_not_found'));
    const ok = await fetch(url, { headers: { authorization: `Bearer ${A.botToken}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('a,b\n1,2\n');
    const anon = await fetch(url, { redirect: 'manual' });
    expect(anon.status).toBe(302);
    const other = await fetch(url, {
      headers: { authorization: `Bearer ${B.botToken}` },
      redirect: 'manual',
    });
    expect(other.status).toBe(302);
  });

  it('refuses an upload to a channel the bot is not in', async () => {
    await expect(
      a.files.uploadV2({ channel_id: 'C0ANOBOT', filename: 'x.txt', content: 'x' }),
    ).rejects.toMatchObject(err('not_in_channel'));
  });

  it('serves a user-uploaded file added by the test', async () => {
    const id = fake.addFile(A.teamId, { name: 'cert.der', data: Buffer.from([1, 2, 3]), user: 'U0AADMIN' });
    const info = await a.files.info({ file: id });
    expect(info.file).toMatchObject({ id, name: 'cert.der', size: 3, user: 'U0AADMIN' });
  });
});

describe('response_url', () => {
  const post = (url: string, body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('records ephemeral and in_channel responses and allows 5 uses', async () => {
    const url = fake.responseUrl(A.teamId, { channel: 'C0AGEN', userId: 'U0AUSER' });
    expect((await post(url, { text: 'just you' })).status).toBe(200);
    expect((await post(url, { text: 'everyone', response_type: 'in_channel' })).status).toBe(200);
    expect(fake.ephemerals({ user: 'U0AUSER' }).map((e) => e.text)).toEqual(['just you']);
    expect(fake.messages('C0AGEN').map((m) => m.text)).toEqual(['everyone']);
    for (let i = 0; i < 3; i++) await post(url, { text: `n${i}` });
    const sixth = await post(url, { text: 'too many' });
    expect(sixth.status).toBe(404);
    expect(fake.responses().filter((r) => r.ok)).toHaveLength(5);
    expect(fake.responses().at(-1)).toMatchObject({ ok: false, error: 'used_url' });
  });

  it('refuses invalid blocks and expires after 30 minutes', async () => {
    const url = fake.responseUrl(A.teamId, { channel: 'C0AGEN', userId: 'U0AUSER' });
    const r = await post(url, { text: 'x', blocks: [section('x'.repeat(3001))] });
    expect(r.status).toBe(400);
    expect((await post(url, { text: `cut ${'🔥'.slice(0, 1)}` })).status).toBe(400);
    clock += 31 * 60_000;
    expect((await post(url, { text: 'late' })).status).toBe(404);
  });

  it('replaces and deletes the original message', async () => {
    const p = await a.chat.postMessage({ channel: 'C0AGEN', text: 'card' });
    const url = fake.responseUrl(A.teamId, { channel: 'C0AGEN', userId: 'U0AUSER', messageTs: p.ts! });
    await post(url, { replace_original: true, text: 'card v2' });
    expect(fake.messages('C0AGEN')[0]?.text).toBe('card v2');
    await post(url, { delete_original: true });
    expect(fake.messages('C0AGEN')).toEqual([]);
  });
});

describe('oauth.v2.access', () => {
  it('exchanges a code once for the workspace bot token, checking the client credentials', async () => {
    const anon = new WebClient(undefined, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    const code = fake.oauthCode({ teamId: A.teamId, userId: 'U0AADMIN' });
    await expect(
      anon.oauth.v2.access({ client_id: '1.2', client_secret: 'wrong', code }),
    ).rejects.toMatchObject(err('bad_client_secret'));
    const r = await anon.oauth.v2.access({ client_id: '1.2', client_secret: 'client-secret', code });
    expect(r).toMatchObject({
      access_token: A.botToken,
      team: { id: A.teamId },
      token_type: 'bot',
      authed_user: { id: 'U0AADMIN' },
    });
    await expect(
      anon.oauth.v2.access({ client_id: '1.2', client_secret: 'client-secret', code }),
    ).rejects.toMatchObject(err('invalid_code'));
    expect(JSON.stringify(fake.calls('oauth.v2.access'))).not.toContain('client-secret');
  });
});

describe('waitFor', () => {
  it('resolves with a call made later, and times out naming the recent calls', async () => {
    const waiting = fake.waitFor((c) => c.method === 'chat.postMessage' && c.args.text === 'later', 2000);
    await a.chat.postMessage({ channel: 'C0AGEN', text: 'later' });
    await expect(waiting).resolves.toMatchObject({ teamId: A.teamId });
    await expect(fake.waitFor((c) => c.method === 'views.open', 50)).rejects.toThrow(/chat\.postMessage/);
  });
});

describe('Workflow Builder step completions', () => {
  it('records the kind of token of each call (never the token), and can refuse a token type for completions', async () => {
    const ex = fake.startFunctionExecution(A.teamId);
    const fn = new WebClient(ex.token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    fake.refuseCompletionTokens('bot');
    try {
      await expect(
        a.functions.completeSuccess({ function_execution_id: ex.executionId, outputs: {} }),
      ).rejects.toMatchObject(err('not_allowed_token_type'));
      await fn.functions.completeSuccess({ function_execution_id: ex.executionId, outputs: {} });
    } finally {
      fake.refuseCompletionTokens();
    }
    const calls = fake.calls().filter((c) => c.args.function_execution_id === ex.executionId);
    expect(calls.map((c) => `${c.tokenKind}:${c.ok}`)).toEqual(['bot:false', 'function:true']);
    expect(JSON.stringify(calls)).not.toContain(ex.token);
    expect(fake.functionExecution(ex.executionId)).toBe('completed');
  });
});
