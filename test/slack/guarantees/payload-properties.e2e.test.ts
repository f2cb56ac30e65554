/**
 * Property-based: every kind of payload the app accepts (slash commands, block actions, view
 * submissions, options requests, events, Workflow Builder `function_executed`), signed as Slack
 * signs them and sent through the real app (startTestBot: Bolt, the request gate, the fake Slack,
 * the emulator), with random and hostile fields (ids of real buttons and forms, random ones,
 * prototype keys, bidi and zero-width characters, huge and empty strings, wrong types). Whatever
 * the fields:
 * - every request is answered below 500 (an ack, a refusal, 401 for a bad signature),
 * - nothing ends in an unhandled rejection, and the app still answers /healthz after them all,
 * - a request the guard chain must refuse (a Slack guest, a user Slack does not know, a bad
 *   signature) writes nothing upstream: no POST / PUT / DELETE reaches either service.
 * Bounded: a few dozen runs per property, so the file runs in seconds.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../../src/slack/features/index.js';
import { STEP_IDS } from '../../../src/slack/features/workflow-steps/index.js';
import { type SignatureMode, startTestBot, type TestBot } from '../../harness/index.js';

type Obj = Record<string, unknown>;
const TEAM = 'T0TEST0A';
const GUEST = 'U0GUESTPB';
const STRANGER = 'U0NOBODYX';

/** Action ids and callback ids the app declares (regexps as a matching sample), plus noise. */
const ACTION_IDS: string[] = [];
const CALLBACK_IDS: string[] = [];
for (const f of FEATURES) {
  for (const i of f.interactions ?? []) {
    if (i.kind === 'button') {
      const id = i.actionId;
      ACTION_IDS.push(typeof id === 'string' ? id : id.source.replace(/^\^/, '').replace(/[\\$()|?*+]/g, ''));
    } else CALLBACK_IDS.push(i.callbackId);
  }
}
const COMMAND_WORDS = [
  ...new Set(FEATURES.flatMap((f) => (f.commands ?? []).map((c) => c.path[0] ?? ''))),
].filter(Boolean);

/** Strings a hostile or confused sender puts anywhere. */
const hostile: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '__proto__',
    'constructor',
    '{"__proto__":{"admin":true}}',
    '{"w":"T0TEST0A","s":"DEMO"}',
    '{"w":"T0OTHER00"}',
    '<!channel> <@U0ADMIN0A>',
    '\u202eevil\u2066',
    '\u200b\u200d\ufeff',
    '../../etc/passwd',
    'NaN',
    '-1',
    '1e309',
    'site:DEMO',
    'site:../../x',
    'x'.repeat(4000),
    '\ud83d',
    'null',
  ),
);

/** JSON values of any type (inputs, state values, private metadata objects). */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  hostile,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(hostile, { maxLength: 3 }),
  fc.dictionary(hostile, hostile, { maxKeys: 3 }),
);

const member = fc.constantFrom('U0USER0A', 'U0ADMIN0A');
const barred = fc.constantFrom(GUEST, STRANGER);

type Send = (bot: TestBot) => Promise<{ status: number }>;

/** A request whose counterexample prints as its fields (fast-check shows `toString`). */
function shown(fields: unknown, send: Send): Send {
  return Object.assign(send, { toString: () => JSON.stringify(fields).slice(0, 2000) });
}

function form(payload: Obj): string {
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

function raw(
  bot: TestBot,
  body: string,
  signature?: SignatureMode,
): Promise<{ status: number; json?: unknown }> {
  return bot.send('/slack/events', body, 'application/x-www-form-urlencoded', signature);
}

/** One payload of each kind, from `user`, with random fields. */
function payloads(user: fc.Arbitrary<string>, signature: fc.Arbitrary<SignatureMode>): fc.Arbitrary<Send> {
  const team = { id: TEAM, domain: 'test' };
  const command = fc
    .record({
      user,
      sig: signature,
      slash: fc.constantFrom('/dwm', '/drm'),
      word: fc.oneof(fc.constantFrom(...COMMAND_WORDS), hostile),
      args: fc.array(hostile, { maxLength: 3 }),
    })
    .map(
      (p): Send =>
        (bot) =>
          bot.command([p.word, ...p.args].join(' '), { user: p.user, command: p.slash, signature: p.sig }),
    );
  const action = fc
    .record({
      user,
      sig: signature,
      actionId: fc.oneof(fc.constantFrom(...ACTION_IDS), hostile),
      value: hostile,
      blockId: hostile,
      type: fc.constantFrom('button', 'static_select', 'overflow', 'checkboxes', 'x'),
      state: fc.dictionary(hostile, fc.dictionary(hostile, anyValue, { maxKeys: 2 }), { maxKeys: 2 }),
    })
    .map(
      (p): Send =>
        (bot) =>
          bot.action({
            user: p.user,
            actionId: p.actionId || 'x',
            value: p.value,
            blockId: p.blockId || 'b',
            type: p.type,
            state: p.state as Obj,
            signature: p.sig,
          }),
    );
  const submission = fc
    .record({
      user,
      sig: signature,
      callbackId: fc.oneof(fc.constantFrom(...CALLBACK_IDS), hostile),
      meta: fc.oneof(
        hostile,
        anyValue.map((v) => JSON.stringify(v) ?? ''),
      ),
      values: fc.dictionary(hostile, fc.dictionary(hostile, anyValue, { maxKeys: 2 }), { maxKeys: 3 }),
      kind: fc.constantFrom('view_submission', 'view_closed'),
    })
    .map(
      (p): Send =>
        (bot) =>
          raw(
            bot,
            form({
              type: p.kind,
              team,
              user: { id: p.user, team_id: TEAM, name: 'x', username: 'x' },
              api_app_id: 'A0FAKEAPP',
              token: 'x',
              trigger_id: bot.fake.issueTrigger(TEAM, p.user),
              view: {
                id: 'V0FUZZ0001',
                team_id: TEAM,
                type: 'modal',
                callback_id: p.callbackId,
                private_metadata: p.meta,
                state: { values: p.values },
                hash: 'h',
                app_installed_team_id: TEAM,
              },
            }),
            p.sig,
          ),
    );
  const options = fc.record({ user, sig: signature, actionId: hostile, value: hostile }).map(
    (p): Send =>
      (bot) =>
        raw(
          bot,
          form({
            type: 'block_suggestion',
            team,
            user: { id: p.user, team_id: TEAM },
            api_app_id: 'A0FAKEAPP',
            token: 'x',
            action_id: p.actionId,
            block_id: 'b',
            value: p.value,
          }),
          p.sig,
        ),
  );
  const event = fc
    .record({
      user,
      sig: signature,
      type: fc.constantFrom(
        'app_home_opened',
        'app_uninstalled_fuzz',
        'member_joined_channel',
        'channel_shared',
        'message',
        'app_mention',
      ),
      tab: fc.constantFrom('home', 'messages', 'x'),
      extra: fc.dictionary(hostile, anyValue, { maxKeys: 3 }),
    })
    .map(
      (p): Send =>
        (bot) =>
          bot.event(
            // app_uninstalled / tokens_revoked are left out: they end the test workspace.
            { ...p.extra, type: p.type, user: p.user, channel: 'C0TEST0A', tab: p.tab },
            { signature: p.sig },
          ),
    );
  const step = fc
    .record({
      user,
      sig: signature,
      // The app's steps only: an event for a step the app does not declare is left to Bolt (its
      // "not acknowledged" answer after 3 s, a 404), which only slows the run.
      callbackId: fc.constantFrom(...Object.values(STEP_IDS)),
      inputs: fc.dictionary(
        fc.oneof(
          fc.constantFrom('site', 'recipients', 'job_id', 'timeout_hours', 'service', 'message'),
          hostile,
        ),
        anyValue,
        { maxKeys: 4 },
      ),
      interactor: fc.boolean(),
    })
    .map(
      (p): Send =>
        (bot) =>
          bot.functionExecuted({
            callbackId: p.callbackId,
            inputs: {
              ...p.inputs,
              requested_by: p.user,
              ...(p.interactor
                ? { interactivity: { interactivity_pointer: '1.2.x', interactor: { id: p.user } } }
                : {}),
            },
            signature: p.sig,
          }),
    );
  // Bodies of no shape, and payloads of a known type with random fields. (A payload of a type Slack
  // never sends is left to Bolt: its "not acknowledged" 404 after 3 s, which only slows the run.)
  const garbage = fc
    .record({
      sig: signature,
      body: fc.oneof(
        hostile,
        fc
          .record({
            type: fc.constantFrom('block_actions', 'view_submission', 'view_closed', 'block_suggestion'),
            extra: fc.dictionary(hostile, anyValue, { maxKeys: 4 }),
          })
          .map((p) => form({ ...p.extra, type: p.type })),
      ),
    })
    .map((p) =>
      shown(p, (bot) =>
        raw(bot, p.body.startsWith('payload=') ? p.body : `payload=${encodeURIComponent(p.body)}`, p.sig),
      ),
    );
  return fc.oneof(command, action, submission, options, event, step, garbage);
}

/** Upstream writes (either service) so far, token calls aside. */
function writes(bot: TestBot): number {
  let n = 0;
  for (const [k, v] of Object.entries(bot.emulator!.requestCounts())) {
    if (/^(POST|PUT|PATCH|DELETE) /.test(k) && !k.includes('/token')) n += v;
  }
  return n;
}

/** Until the background work of the requests sent has settled (no new Slack or upstream call for a while). */
async function settle(bot: TestBot): Promise<void> {
  let last = -1;
  for (let i = 0; i < 100; i++) {
    const now = bot.fake.lastSeq() + writes(bot) * 1e6;
    if (now === last) return;
    last = now;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('payloads of ids the app does not declare, and of shapes Slack never sends', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('a button, a form and an options request the app does not know are acked at once (200), not left to time out', async () => {
    expect((await bot.action({ actionId: 'not_a_button_of_this_app', value: 'x' })).status).toBe(200);
    const view = form({
      type: 'view_submission',
      team: { id: TEAM, domain: 'test' },
      user: { id: bot.ws.member, team_id: TEAM },
      api_app_id: 'A0FAKEAPP',
      token: 'x',
      trigger_id: bot.fake.issueTrigger(TEAM, bot.ws.member),
      view: {
        id: 'V0UNKNOWN1',
        team_id: TEAM,
        type: 'modal',
        callback_id: 'not_a_form',
        private_metadata: '',
        state: { values: {} },
        hash: 'h',
      },
    });
    expect((await raw(bot, view)).status).toBe(200);
    const options = form({
      type: 'block_suggestion',
      team: { id: TEAM, domain: 'test' },
      user: { id: bot.ws.member, team_id: TEAM },
      api_app_id: 'A0FAKEAPP',
      token: 'x',
      action_id: 'anything',
      block_id: 'b',
      value: 'a',
    });
    const r = await raw(bot, options);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ options: [] });
    const closed = form({
      type: 'view_closed',
      team: { id: TEAM, domain: 'test' },
      user: { id: bot.ws.member, team_id: TEAM },
      api_app_id: 'A0FAKEAPP',
      token: 'x',
      view: {
        id: 'V0UNKNOWN2',
        team_id: TEAM,
        type: 'modal',
        callback_id: 'svc_fpscert',
        private_metadata: '',
        state: { values: {} },
        hash: 'h',
      },
      is_cleared: false,
    });
    expect((await raw(bot, closed)).status).toBe(200);
  });

  it('a signed payload of a shape Slack never sends (no user, no view, no event) is answered 400, not a 500 from Bolt', async () => {
    for (const p of [
      { type: 'block_suggestion' },
      { type: 'view_submission', user: { id: 'U0USER0A' } },
      { type: 'block_actions' },
      [1],
    ]) {
      expect((await raw(bot, form(p as Obj))).status, JSON.stringify(p)).toBe(400);
    }
    expect((await raw(bot, 'payload=%7Bnot%20json')).status).toBe(400);
    for (const body of ['{"type":"event_callback"}', '[]', '{"event":{}}']) {
      expect((await bot.send('/slack/events', body, 'application/json')).status, body).toBe(400);
    }
  });
});

describe('any payload, any fields: answered, no unhandled rejection, no unguarded upstream write', () => {
  let bot: TestBot;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    bot = await startTestBot({
      credentials: 'env',
      env: ({ fake }) => {
        fake.addUser(TEAM, { id: GUEST, name: 'partner', isRestricted: true });
        return {};
      },
    });
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    await bot?.close();
  });

  it('requests the guard chain must refuse (guests, unknown users, bad signatures) write nothing upstream and are answered below 500', {
    timeout: 60_000,
  }, async () => {
    const before = writes(bot);
    const statuses: number[] = [];
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          payloads(barred, fc.constant<SignatureMode>('valid')),
          payloads(member, fc.constantFrom<SignatureMode>('bad', 'missing', 'stale')),
        ),
        async (send) => {
          const r = await send(bot);
          statuses.push(r.status);
          expect(r.status).toBeLessThan(500);
        },
      ),
      { numRuns: 60, seed: 27_0009 },
    );
    await settle(bot);
    expect(writes(bot)).toBe(before);
    expect(statuses.length).toBe(60);
  });

  it('any user, any fields: every request answered below 500, no unhandled rejection, the app still healthy', {
    timeout: 60_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        payloads(fc.oneof(member, barred), fc.constant<SignatureMode>('valid')),
        async (send) => {
          const r = await send(bot);
          expect(r.status).toBeLessThan(500);
        },
      ),
      { numRuns: 60, seed: 27_0010 },
    );
    await settle(bot);
    expect(rejections).toEqual([]);
    expect((await bot.get('/healthz')).status).toBe(200);
    // Nothing the bot logged at error level was an unexpected crash of a handler.
    const crashes = bot.logs
      .entries()
      .filter((e) => (e.level === 'fatal' || e.level === 60) && String(e.msg ?? '').length > 0);
    expect(crashes).toEqual([]);
  });
});
