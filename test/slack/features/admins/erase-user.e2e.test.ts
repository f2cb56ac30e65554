/**
 * `/dwm setup erase-user @person`: an admin erases one person's data in the workspace (their
 * watches and the notices waiting to be sent to them by DM), audited; a member is refused; what
 * other people created stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NoticeOutbox, newNotice } from '../../../../src/notices/outbox.js';
import { eraseUserData } from '../../../../src/ops/erase-user.js';
import { FEATURES } from '../../../../src/slack/features/index.js';
import { createWatchRuntime, type WatchRuntime } from '../../../../src/slack/watch-runtime.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';

let bot: TestBot;
let runtime: WatchRuntime;
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env' });
  runtime = createWatchRuntime(bot.deps, bot.handle.app, {
    features: FEATURES,
    holderId: 'erase',
    watcher: { jitter: 0 },
  });
});
afterAll(async () => {
  await runtime?.stop();
  await bot?.close();
});

async function reply(text: string, user: string): Promise<string> {
  const seq = bot.fake.lastSeq();
  await bot.command(text, { user });
  const r = await bot.fake.waitFor((c) => c.method === 'response_url' && c.seq > seq, 8000);
  return JSON.stringify(r.args);
}

describe('erase one person’s data', () => {
  it('an admin erases a member’s watches and pending DMs, audited; the admin’s own watch stays', async () => {
    const ws = bot.ws.teamId;
    const site = bot.emulator!.demo.defaultSiteId;
    expect(await reply(`watch site:${site} status:error`, bot.ws.member)).toContain('is now watching');
    expect(await reply(`watch site:${site} mode:failures`, bot.ws.admin)).toContain('is now watching');
    const outbox = new NoticeOutbox(bot.store);
    const dm = (user: string, key: string) =>
      newNotice({ key, workspace: ws, kind: 'request-outcome', lane: `dm:${user}`, payload: {} }, Date.now());
    await outbox.add([dm(bot.ws.member, 'n-member'), dm(bot.ws.admin, 'n-admin')]);

    // A member may not erase anyone.
    expect(await reply(`setup erase-user <@${bot.ws.admin}>`, bot.ws.member)).toMatch(/admin/i);
    expect(await runtime.watcher.subscriptions.list(ws)).toHaveLength(2);

    const done = await reply(`setup erase-user <@${bot.ws.member}>`, bot.ws.admin);
    expect(done).toContain('erased 1 job watch(es)');
    expect(done).toContain('1 pending direct message(s)');
    const left = await runtime.watcher.subscriptions.list(ws);
    expect(left.map((s) => s.createdBy)).toEqual([bot.ws.admin]);
    expect((await outbox.pending(ws)).map((e) => e.key)).toEqual(['n-admin']);

    const audit = await bot.store.audit.list(ws);
    expect(audit.find((e) => e.action === 'user.erase')).toMatchObject({
      userId: bot.ws.admin,
      result: 'ok',
      detail: `erased the data of user ${bot.ws.member}`,
    });
    expect(audit.some((e) => e.userId === bot.ws.member && e.result === 'refused')).toBe(true);
  });

  it('refuses what is not a user id', async () => {
    await expect(
      eraseUserData({ store: bot.store, now: Date.now }, bot.ws.teamId, 'C0CHANNEL'),
    ).rejects.toThrow(/not a user/);
  });
});
