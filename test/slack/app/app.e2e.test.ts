/**
 * End to end through the real Bolt app (test harness): signed requests in, fake Slack and the
 * emulator behind. Covers help, did-you-mean, refusal of admin commands, the setup modal flow and
 * the ack-before-slow-work ordering.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../../src/slack/features/index.js';
import { commandList } from '../../../src/slack/kit/commands/registry.js';
import { type Feature, registerFeatures } from '../../../src/slack/kit/features.js';
import { startTestBot, type TestBot } from '../../harness/index.js';
import { lastSeq, nextResponse, setupFormValues, textOf } from '../../support/slack.js';

describe('with env credentials', () => {
  let bot: TestBot;
  beforeAll(async () => {
    // A test-only feature with a command that calls the emulator, to check the ack comes before
    // the slow call.
    const list = commandList();
    list.add({
      command: '/dwm',
      path: ['e2e-slow'],
      args: {},
      role: 'member',
      summary: 'test only',
      hidden: true,
      async handler(ctx) {
        const c = await ctx.clients();
        const page = await c.watermarking().searchJobs(c.site(), { pageUnit: 1 });
        await ctx.respond({ text: `jobs: ${page.totalCount}` });
      },
    });
    const e2e: Feature = { name: 'e2e', commands: list.done() };
    bot = await startTestBot({
      credentials: 'env',
      register: (app, deps) => void registerFeatures(app, deps, [...FEATURES, e2e]),
    });
  });
  afterAll(async () => {
    await bot?.close();
  });
  afterEach(() => {
    bot.emulator?.setLatency(0);
  });

  it('/dwm help lists the commands, ephemeral', async () => {
    const seq = lastSeq(bot);
    const r = await bot.command('help');
    expect(r.status).toBe(200);
    const resp = await nextResponse(bot, seq);
    expect(resp.args.response_type).toBe('ephemeral');
    expect(textOf(resp)).toContain('/dwm setup');
    expect(textOf(resp)).not.toContain('e2e-slow');
  });

  it('an unknown subcommand gets a suggestion', async () => {
    const seq = lastSeq(bot);
    await bot.command('setpu');
    const resp = await nextResponse(bot, seq);
    expect(String(resp.args.text)).toContain('Did you mean /dwm setup?');
  });

  it("a typo's button runs the suggestion as if typed, the rest of the words kept, with the command's role check", async () => {
    const seq = lastSeq(bot);
    await bot.command('setpu status', { user: bot.ws.member });
    const resp = await nextResponse(bot, seq);
    const blocks = resp.args.blocks as Array<{
      accessory?: { action_id: string; value: string; text: { text: string } };
    }>;
    const run = blocks[0]?.accessory;
    expect(run?.text.text).toBe('Run /dwm setup status');
    const seq2 = lastSeq(bot);
    await bot.action({ actionId: run!.action_id, value: run!.value, user: bot.ws.member });
    const ran = await nextResponse(bot, seq2);
    // `/dwm setup status` answers (a member may run it), not another "did you mean".
    expect(textOf(ran)).not.toContain('Did you mean');
    expect(textOf(ran).toLowerCase()).toContain('service setup');
    // A suggestion of an admin command is refused to a member like the typed command.
    const seq3 = lastSeq(bot);
    await bot.command('setpu', { user: bot.ws.member });
    const resp3 = await nextResponse(bot, seq3);
    const admin = (resp3.args.blocks as typeof blocks)[0]?.accessory;
    const seq4 = lastSeq(bot);
    await bot.action({ actionId: admin!.action_id, value: admin!.value, user: bot.ws.member });
    expect(textOf(await nextResponse(bot, seq4))).toContain('Only admins can run /dwm setup');
  });

  it('an admin command is refused to a member, who is told whom to ask; audited', async () => {
    const seq = lastSeq(bot);
    await bot.command('audit', { command: '/drm', user: bot.ws.member });
    const resp = await nextResponse(bot, seq);
    expect(textOf(resp)).toContain('Only admins can run /drm audit');
    expect(textOf(resp)).toContain('a workspace admin');
    const entries = await bot.store.audit.list(bot.ws.teamId);
    expect(entries[0]).toMatchObject({ userId: bot.ws.member, result: 'refused', action: 'command.audit' });

    const seq2 = lastSeq(bot);
    await bot.command('audit 5', { command: '/drm', user: bot.ws.admin });
    const ok = await nextResponse(bot, seq2);
    expect(textOf(ok)).toContain('command.audit');
  });

  it('env credentials: setup shows them read-only and masked', async () => {
    await bot.command('setup', { user: bot.ws.admin });
    await bot.fake.waitFor((c) => c.method === 'views.open', 5000);
    const v = bot.fake.lastView(bot.ws.admin, 'modal');
    const text = JSON.stringify(v?.view);
    expect(text).toContain('from the environment');
    expect(text).not.toContain(bot.emulator!.demo.watermarking.accessKey);
    expect(v?.view.submit).toBeUndefined();
  });

  it('acks before the emulator answers (ordering, not timing)', async () => {
    bot.emulator!.setLatency(1500);
    bot.emulator!.resetRequestCounts();
    const seq = lastSeq(bot);
    const r = await bot.command('e2e-slow');
    expect(r.status).toBe(200);
    // The ack is back; the handler's reply (which needs the emulator) has not been sent yet.
    expect(bot.fake.calls().filter((c) => c.seq > seq && c.method === 'response_url')).toEqual([]);
    const resp = await nextResponse(bot, seq);
    expect(String(resp.args.text)).toMatch(/^jobs: \d+$/);
    expect(Object.values(bot.emulator!.requestCounts()).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
});

describe('setup modal flow (no credentials yet)', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'none' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  const values = (over: Record<string, string> = {}) =>
    setupFormValues(bot, { site_ids: 'DEMO, AB12', ...over });

  it('members cannot open it', async () => {
    const seq = lastSeq(bot);
    await bot.command('setup', { user: bot.ws.member });
    const resp = await nextResponse(bot, seq);
    expect(textOf(resp)).toContain('Only admins');
  });

  it('format errors inline, live failure shown, success saved encrypted, status masked', async () => {
    const admin = bot.ws.admin;
    const emu = bot.emulator!;
    const seq0 = lastSeq(bot);
    await bot.command('setup', { user: admin });
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq0, 5000);

    // 1. Format errors: inline, keyed by block id.
    const bad = await bot.viewSubmission({
      user: admin,
      values: values({ site_ids: 'TOOLONG', svc_account_seq: 'x' }),
    });
    expect(bad.json).toMatchObject({
      response_action: 'errors',
      errors: { site_ids: expect.stringContaining('4 letters'), svc_account_seq: expect.any(String) },
    });

    // 2. Live verification failure: wrong access key.
    const seq1 = lastSeq(bot);
    const wrong = await bot.viewSubmission({
      user: admin,
      values: values({ wm_access_key: 'wrong-access-key-0000' }),
    });
    expect(wrong.json).toMatchObject({ response_action: 'update' });
    expect(JSON.stringify(wrong.json)).toContain('Verifying');
    const upd = await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq1, 8000);
    const failedView = JSON.stringify(upd.args);
    expect(failedView).toContain('did not verify');
    expect(failedView).toContain('enter them again');
    expect(failedView).toContain(emu.demo.watermarking.accountId); // non-secret kept
    expect(failedView).not.toContain('wrong-access-key-0000');
    expect(failedView).not.toContain(emu.demo.service.secretKey);
    // The service's own explanation of the refusal is shown and logged (never the key typed).
    expect(failedView).toContain('HTTP 401');
    const logged = bot.logs.entries().filter((e) => e.msg === 'setup credentials did not verify');
    expect(JSON.stringify(logged)).toContain('HTTP 401');
    expect(await bot.store.credentials.get(bot.ws.teamId)).toBeUndefined();

    // 3. Success: saved (encrypted by the vault), success view with masked keys.
    const seq2 = lastSeq(bot);
    const good = await bot.viewSubmission({ user: admin, values: values() });
    expect(good.json).toMatchObject({ response_action: 'update' });
    const done = await bot.fake.waitFor((c) => c.method === 'views.update' && c.seq > seq2, 8000);
    const doneView = JSON.stringify(done.args);
    expect(doneView).toContain('Verified and saved');
    expect(doneView).toContain(emu.demo.watermarking.accessKey.slice(-4));
    expect(doneView).not.toContain(emu.demo.watermarking.accessKey);
    const saved = await bot.store.credentials.get(bot.ws.teamId);
    expect(saved?.credentials.siteIds).toEqual(['DEMO', 'AB12']);
    expect(saved?.savedBy).toBe(admin);
    const audit = await bot.store.audit.list(bot.ws.teamId);
    expect(audit.map((e) => `${e.action}:${e.result}`).slice(0, 2)).toEqual([
      'setup.save:ok',
      'setup.save:error',
    ]);

    // 4. Status: masked, ephemeral, no secret anywhere in Slack traffic or logs.
    const seq3 = lastSeq(bot);
    await bot.command('setup status', { user: admin });
    const st = await nextResponse(bot, seq3);
    expect(st.args.response_type).toBe('ephemeral');
    expect(textOf(st)).toContain('Last verified');
    expect(textOf(st)).toContain(emu.demo.service.secretKey.slice(-4));
    const traffic = JSON.stringify(bot.fake.calls());
    expect(traffic).not.toContain(emu.demo.watermarking.accessKey);
    expect(traffic).not.toContain(emu.demo.service.secretKey);
    expect(
      bot.logs.leaked([emu.demo.watermarking.accessKey, emu.demo.service.secretKey, 'wrong-access-key-0000']),
    ).toEqual([]);

    // 5. A member sees the status without masked keys, even with share.
    const seq4 = lastSeq(bot);
    await bot.command('setup status share', { user: bot.ws.member });
    const ms = await nextResponse(bot, seq4);
    expect(ms.args.response_type).toBe('ephemeral');
    expect(textOf(ms)).not.toContain(emu.demo.service.secretKey.slice(-4));
  });
});
