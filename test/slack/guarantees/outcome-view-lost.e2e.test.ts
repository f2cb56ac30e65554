/**
 * A form's work is done but Slack does not take the view that says so (views.update failing: a
 * Slack error, or the user closed the form): the outcome reaches the user as a message, and a
 * change that was made is never reported as "Nothing was saved". Signed app, emulator, fake Slack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../harness/index.js';
import { button, drm, lastSeq, textOf, textValue } from '../../support/slack.js';

let bot: TestBot;
beforeAll(async () => {
  bot = await startTestBot({ credentials: 'env' });
});
afterAll(async () => {
  await bot?.close();
});

describe('the outcome view cannot be shown', () => {
  it('DRM settings saved, views.update failing: a message says saved; nothing says "Nothing was saved"', async () => {
    const admin = bot.ws.admin;
    const r = await drm(bot, 'settings', admin);
    const edit = button(r.blocks, (b) => b.action_id === 'svc_settings_edit');
    const seq = lastSeq(bot);
    await bot.action({ actionId: edit.action_id, value: edit.value!, user: admin });
    await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq, 5000);
    bot.fake.fail('views.update', { status: 500, times: 10 });
    const seq2 = lastSeq(bot);
    try {
      const ok = await bot.viewSubmission({
        user: admin,
        values: {
          svc_set_license_url: textValue('https://outage.example/license'),
          svc_set_package_url: textValue(''),
          svc_set_token_duration: textValue('3600'),
        },
      });
      expect(ok.status).toBe(200);
      const told = await bot.fake.waitFor(
        (c) => c.seq > seq2 && c.ok && c.method === 'chat.postMessage' && textOf(c).includes('Saved the'),
        8000,
      );
      expect(told.args.channel).toBe(admin);
    } finally {
      bot.fake.clearFailures();
    }
    await new Promise((res) => setTimeout(res, 300));
    const said = bot.fake
      .calls()
      .filter((c) => c.seq > seq2)
      .map(textOf)
      .join('\n');
    expect(said).not.toContain('Nothing was saved');
    expect((await drm(bot, 'settings', admin)).text).toContain('https://outage.example/license');
  });
});
