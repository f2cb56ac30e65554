/**
 * "Watch a channel" from the Home tab applies the slash command's ownership rule: a
 * member gets the watch form only for a channel they are in; another channel is admin-only.
 * Real app, fake Slack (conversations.members), env credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../../harness/index.js';

describe('Home: Watch a channel', () => {
  let bot: TestBot;
  const FINANCE = 'C0FINANCE1';
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env', store: 'memory' });
    // The bot is in #finance, the member is not; the admin is.
    bot.fake.addChannel(bot.ws.teamId, { id: FINANCE, name: 'finance', members: [bot.ws.admin] });
  });
  afterAll(async () => {
    await bot?.close();
  });

  async function pick(user: string, channel: string) {
    const before = bot.fake.lastSeq();
    await bot.action({ actionId: 'home_watch', value: '{}', user } as never);
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.ok && c.seq > before, 8000);
    const view = bot.fake.lastView(user, 'modal');
    expect(view?.callbackId).toBe('home_watch_pick');
    const seq = bot.fake.lastSeq();
    const ack = await bot.viewSubmission({
      user,
      view: view!,
      values: {
        home_watch_channel: { value: { type: 'conversations_select', selected_conversation: channel } },
      },
    });
    expect(ack.status).toBe(200);
    const upd = await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq, 8000);
    return JSON.stringify(upd.args);
  }

  it('a member is refused a channel they are not in (no form, audited)', async () => {
    const text = await pick(bot.ws.member, FINANCE);
    expect(text).toContain('You are not a member of');
    expect(text).not.toContain('watch_subscribe');
    const log = await bot.store.audit.list(bot.ws.teamId, { limit: 5 });
    expect(JSON.stringify(log)).toContain('requester not in the channel');
  });

  it('a member gets the form for a channel they are in', async () => {
    const text = await pick(bot.ws.member, bot.ws.channel);
    expect(text).toContain('watch_subscribe');
  });

  it('an admin gets the form for any channel the bot is in', async () => {
    const text = await pick(bot.ws.admin, FINANCE);
    expect(text).toContain('watch_subscribe');
  });
});
