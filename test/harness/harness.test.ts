/**
 * The harness itself: each payload kind reaches the real Bolt app in the shape Slack sends, acks are
 * measured, the sqlite store works, and a throwing listener is reported with a reference id.
 */
import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackSignature, startTestBot, type TestBot, testWorkspace } from './index.js';

describe('harness payloads reach the real app', () => {
  let bot: TestBot;
  const seen: Record<string, unknown> = {};
  function register(app: App) {
    app.command('/dwm', async ({ ack, command, client }) => {
      await ack();
      seen.command = command;
      if (command.text === 'modal') {
        await client.views.open({
          trigger_id: command.trigger_id,
          view: {
            type: 'modal',
            callback_id: 'harness-modal',
            private_metadata: 'meta-1',
            title: { type: 'plain_text', text: 'Harness' },
            submit: { type: 'plain_text', text: 'Save' },
            notify_on_close: true,
            blocks: [
              {
                type: 'input',
                block_id: 'name',
                label: { type: 'plain_text', text: 'Name' },
                element: { type: 'plain_text_input', action_id: 'value' },
              },
            ],
          },
        });
      }
      if (command.text === 'boom') throw new Error('listener exploded');
    });
    app.action('harness-button', async ({ ack, body, respond }) => {
      await ack();
      seen.action = body;
      await respond({ text: 'clicked', replace_original: false });
    });
    app.view('harness-modal', async ({ ack, view }) => {
      seen.submission = view;
      await ack({ response_action: 'errors', errors: { name: 'Too short' } });
    });
    app.view({ callback_id: 'harness-modal', type: 'view_closed' }, async ({ ack, body }) => {
      await ack();
      seen.closed = body;
    });
    app.shortcut('harness-shortcut', async ({ ack, shortcut }) => {
      await ack();
      seen.shortcut = shortcut;
    });
  }

  beforeAll(async () => {
    bot = await startTestBot({ register, emulator: false, store: 'sqlite' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('sends a slash command form body and measures the ack', async () => {
    const r = await bot.command('hello world', { user: bot.ws.admin });
    expect(r.status).toBe(200);
    expect(r.ackMs).toBeGreaterThan(0);
    expect(seen.command).toMatchObject({
      command: '/dwm',
      text: 'hello world',
      user_id: bot.ws.admin,
      team_id: bot.ws.teamId,
    });
  });

  it('opens a modal with the trigger, then submits and closes it', async () => {
    await bot.command('modal');
    const opened = await bot.fake.waitFor((c) => c.method === 'views.open');
    expect(opened.ok).toBe(true);
    const r = await bot.viewSubmission({
      values: { name: { value: { type: 'plain_text_input', value: 'x' } } },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ response_action: 'errors', errors: { name: 'Too short' } });
    expect(seen.submission).toMatchObject({
      callback_id: 'harness-modal',
      private_metadata: 'meta-1',
      state: { values: { name: { value: { value: 'x' } } } },
    });
    const c = await bot.viewClosed({});
    expect(c.status).toBe(200);
    expect(seen.closed).toMatchObject({ type: 'view_closed', view: { callback_id: 'harness-modal' } });
  });

  it('sends block_actions with a response_url the fake records', async () => {
    const r = await bot.action({ actionId: 'harness-button', value: 'v1' });
    expect(r.status).toBe(200);
    expect(seen.action).toMatchObject({
      type: 'block_actions',
      actions: [{ action_id: 'harness-button', value: 'v1' }],
    });
    const resp = await bot.fake.waitFor((c) => c.method === 'response_url' && c.args.text === 'clicked');
    expect(resp.ok).toBe(true);
  });

  it('sends a global shortcut', async () => {
    const r = await bot.shortcut({ callbackId: 'harness-shortcut' });
    expect(r.status).toBe(200);
    expect(seen.shortcut).toMatchObject({
      type: 'shortcut',
      callback_id: 'harness-shortcut',
      trigger_id: r.triggerId,
    });
  });

  it('a throwing listener: the user gets a reference id that is in the log, no stack, no secret', async () => {
    await bot.command('boom');
    const resp = await bot.fake.waitFor(
      (c) => c.method === 'response_url' && /reference/.test(String(c.args.text)),
    );
    const ref = /`([0-9a-f]{8})`/.exec(String(resp.args.text))?.[1];
    expect(ref).toBeDefined();
    const entry = bot.logs.entries().find((e) => e.ref === ref);
    expect(entry).toMatchObject({ level: 'error', msg: 'unhandled error while handling a Slack request' });
    expect(String(resp.args.text)).not.toContain('exploded');
    expect(bot.logs.leaked(bot.secrets())).toEqual([]);
  });

  it('signs like Slack: v0= HMAC-SHA256 of v0:timestamp:body', () => {
    // Known vector from Slack's documentation.
    const sig = slackSignature(
      '8f742231b10e8888abcd99yyyzzz85a5',
      1531420618,
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    );
    expect(sig).toBe('v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503');
  });
});

describe('harness with the Redis store', () => {
  it('runs the app on redis:// (private redis-server) and cleans up', async () => {
    const bot = await startTestBot({ store: 'redis', emulator: false, register: () => undefined });
    try {
      expect(bot.store.backend).toBe('redis');
      const r = await bot.get('/readyz');
      expect(r.status).toBe(200);
      expect((r.json as { checks: { name: string; detail?: string }[] }).checks).toContainEqual(
        expect.objectContaining({ name: 'store', ok: true, detail: 'redis' }),
      );
    } finally {
      await bot.close();
    }
  });
});

describe('harness with given workspaces and settings built from the emulator', () => {
  it('serves the fixture workspace, sends its channel names and reads env that names the emulator', async () => {
    const fixture = testWorkspace(7);
    fixture.spec.channels = [{ id: fixture.channel, name: 'releases', botIsMember: true }];
    let seen: { team_id?: string; channel_name?: string } | undefined;
    const bot = await startTestBot({
      workspaceFixtures: [fixture],
      credentials: 'none',
      env: ({ emulator }) => ({ DWM_BASE_URL: emulator!.wmBaseUrl }),
      register: (app) =>
        app.command('/dwm', async ({ ack, command }) => {
          await ack();
          seen = command;
        }),
    });
    try {
      expect(bot.workspaces.map((w) => w.teamId)).toEqual([fixture.teamId]);
      expect(bot.config.dwmBaseUrl).toBe(bot.emulator!.wmBaseUrl);
      expect((await bot.command('hi')).status).toBe(200);
      expect(seen).toMatchObject({ team_id: fixture.teamId, channel_name: 'releases' });
    } finally {
      await bot.close();
    }
  });
});
