/**
 * "Check the service" in /dwm setup: admins run the read-only service check from the setup view
 * (the report in a view pushed over it); members are refused; only GET calls reach the service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { blocksText, buttons, lastSeq, nextCall, waitForView } from '../../../support/slack.js';

describe('/dwm setup: Check the service', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('an admin gets the report of every open point; only GET calls were made', async () => {
    const admin = bot.ws.admin;
    const seq = lastSeq(bot);
    await bot.command('setup', { user: admin });
    await nextCall(bot, 'views.open', seq);
    const setup = await waitForView(bot, admin, (v) => v.callbackId === 'drm_setup');
    const check = buttons(setup.blocks).find((b) => b.action_id === 'wm_setup_check');
    expect(check).toBeDefined();
    bot.emulator!.setBehaviours({ siteRequestStatusWords: { requested: 'WAIT' } });
    bot.emulator!.resetRequestCounts();
    await bot.action({ actionId: check!.action_id, value: check!.value!, user: admin, view: setup });
    const report = await waitForView(
      bot,
      admin,
      (v) => v.callbackId === 'drm_setup_check' && blocksText(v.blocks).includes('Add to the deployment'),
    );
    const text = blocksText(report.blocks);
    expect(text).toContain('Service API login');
    // blocksText is the blocks' JSON: the line's quotes come back escaped once.
    expect(text).toContain('SERVICE_SITE_REQUEST_STATUSES={\\"WAIT\\":\\"pending|approved|cancelled\\"}');
    expect(Object.keys(bot.emulator!.requestCounts()).every((k) => k.startsWith('GET '))).toBe(true);
    bot.emulator!.setBehaviours({});
  });

  it('a member clicking it is refused and nothing is read', async () => {
    const admin = bot.ws.admin;
    const seq = lastSeq(bot);
    await bot.command('setup', { user: admin });
    await nextCall(bot, 'views.open', seq);
    const setup = await waitForView(bot, admin, (v) => v.callbackId === 'drm_setup');
    const check = buttons(setup.blocks).find((b) => b.action_id === 'wm_setup_check')!;
    bot.emulator!.resetRequestCounts();
    await bot.action({ actionId: check.action_id, value: check.value!, user: bot.ws.member, view: setup });
    await new Promise((r) => setTimeout(r, 300));
    expect(bot.emulator!.requestCounts()).toEqual({});
  });
});
