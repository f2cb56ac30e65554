/**
 * `/dwm setup admins …` and `/dwm setup audit-channel` end to end: an admin adds a member as an
 * admin, who can then run admin commands; removing them takes it away again; the audit log is
 * mirrored to the configured channel; members cannot change any of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { lastSeq, replyText } from '../../../support/slack.js';

describe('admins and audit channel settings', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('a member can neither see nor change the admin list', async () => {
    let seq = lastSeq(bot);
    await bot.command(`setup admins add <@${bot.ws.member}|me>`, { user: bot.ws.member });
    expect(await replyText(bot, seq)).toContain('Only admins');
    expect((await bot.store.settings.get(bot.ws.teamId)).adminUserIds).toEqual([]);
    seq = lastSeq(bot);
    await bot.command('setup admins', { user: bot.ws.member });
    expect(await replyText(bot, seq)).toContain('Only admins');
  });

  it('an admin adds a member, who then may run admin commands; removal takes it back', async () => {
    let seq = lastSeq(bot);
    await bot.command(`setup admins add <@${bot.ws.member}|member>`, { user: bot.ws.admin });
    const added = await replyText(bot, seq);
    expect(added).toContain('Added 1 admin');
    expect(added).toContain(`<@${bot.ws.member}>`);
    expect((await bot.store.settings.get(bot.ws.teamId)).adminUserIds).toEqual([bot.ws.member]);

    seq = lastSeq(bot);
    await bot.command('audit 5', { command: '/drm', user: bot.ws.member });
    const audit = await replyText(bot, seq);
    expect(audit).toContain('admins.add');
    expect(audit).not.toContain('Only admins');

    seq = lastSeq(bot);
    await bot.command(`setup admins remove <@${bot.ws.member}|member>`, { user: bot.ws.admin });
    expect(await replyText(bot, seq)).toContain('Removed 1 admin');

    seq = lastSeq(bot);
    await bot.command('audit 5', { command: '/drm', user: bot.ws.member });
    expect(await replyText(bot, seq)).toContain('Only admins');
  });

  it('refuses a word that is not a mention, saying what to do', async () => {
    const seq = lastSeq(bot);
    await bot.command('setup admins add alex', { user: bot.ws.admin });
    const r = await replyText(bot, seq);
    expect(r).toContain('is not a user');
    expect(r).toContain('autocomplete');
  });

  it('mirrors audit entries to the audit channel once set, and stops when cleared', async () => {
    let seq = lastSeq(bot);
    await bot.command(`setup audit-channel <#${bot.ws.channel}|general>`, { user: bot.ws.admin });
    expect(await replyText(bot, seq)).toContain('mirrored to that channel');
    // The change itself is audited after the channel is set, so it is mirrored there.
    await bot.fake.waitFor(
      (c) => c.method === 'chat.postMessage' && c.args.channel === bot.ws.channel && c.seq > seq,
      8000,
    );
    seq = lastSeq(bot);
    await bot.command('setup audit-channel none', { user: bot.ws.admin });
    expect(await replyText(bot, seq)).toContain('Audit mirroring stopped');
    expect((await bot.store.settings.get(bot.ws.teamId)).auditChannelId).toBeUndefined();
  });

  it('a channel name Slack did not link is a correction, with no Slack call and nothing saved', async () => {
    const seq = lastSeq(bot);
    await bot.command('setup audit-channel #media-audit', { user: bot.ws.admin });
    const r = await replyText(bot, seq);
    expect(r).toContain('type # and pick the channel');
    expect(bot.fake.calls().filter((c) => c.seq > seq && c.method === 'conversations.info')).toEqual([]);
    expect((await bot.store.settings.get(bot.ws.teamId)).auditChannelId).toBeUndefined();
  });
});
