/**
 * Slack guests end to end (the real app, fake Slack answering users.info with `is_restricted` /
 * `is_ultra_restricted`, the emulator): with the default GUEST_ACCESS a guest is refused a
 * command, a Workflow Builder step run for them, and sees a Home tab without data or buttons; a
 * guest whose id is in ADMIN_USER_IDS is an admin. Every refusal is in the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeCall } from '../../dev/fakeslack/index.js';
import { startTestBot, type TestBot } from '../harness/index.js';

const GUEST = 'U0GUEST0A';
const SINGLE = 'U0SINGLEA';
const GUEST_ADMIN = 'U0GADMINA';

async function reply(bot: TestBot, after: number): Promise<string> {
  const c: FakeCall = await bot.fake.waitFor((x) => x.method === 'response_url' && x.seq > after, 8000);
  return JSON.stringify(c.args);
}

describe('Slack guests (GUEST_ACCESS=none, the default)', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({
      credentials: 'env',
      env: ({ fake }) => {
        // Added before the app starts: users.info knows them from the first request.
        fake.addUser('T0TEST0A', { id: GUEST, name: 'partner', isRestricted: true });
        fake.addUser('T0TEST0A', { id: SINGLE, name: 'distributor', isUltraRestricted: true });
        fake.addUser('T0TEST0A', { id: GUEST_ADMIN, name: 'trusted-partner', isRestricted: true });
        return { ADMIN_USER_IDS: GUEST_ADMIN };
      },
    });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('a guest is refused a command and help (audited); a member is not', async () => {
    let seq = bot.fake.lastSeq();
    await bot.command('recipients', { user: SINGLE });
    const refused = await reply(bot, seq);
    expect(refused).toContain("Guest accounts can't use this bot in this workspace");
    expect(refused).toContain(`<@${GUEST_ADMIN}>`);
    seq = bot.fake.lastSeq();
    await bot.command('help', { user: GUEST });
    const help = await reply(bot, seq);
    expect(help).toContain("Guest accounts can't use this bot");
    expect(help).not.toContain('recipients');
    seq = bot.fake.lastSeq();
    await bot.command('help', { user: bot.ws.member });
    expect(await reply(bot, seq)).toContain('recipients');
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 20 });
    expect(audit.find((a) => a.action === 'command.recipients')).toMatchObject({
      userId: SINGLE,
      result: 'refused',
    });
  });

  it('a guest listed in ADMIN_USER_IDS is an admin', async () => {
    const seq = bot.fake.lastSeq();
    await bot.command('audit 5', { command: '/drm', user: GUEST_ADMIN });
    const r = await reply(bot, seq);
    expect(r).not.toContain("Guest accounts can't");
    expect(r).not.toContain('Only admins');
  });

  it('a workflow step run for a guest fails with what / why / next, audited as refused, nothing registered', async () => {
    const before = bot.emulator!.requestCounts();
    const r = await bot.functionExecuted({
      callbackId: 'register_recipients',
      inputs: { site: 'DEMO', recipients: 'guest-wf-01', requested_by: GUEST },
    });
    expect(r.status).toBe(200);
    const done = await bot.fake.waitFor(
      (c) =>
        (c.method === 'functions.completeSuccess' || c.method === 'functions.completeError') &&
        c.args.function_execution_id === r.executionId,
      15_000,
    );
    expect(done.method).toBe('functions.completeError');
    expect(String(done.args.error)).toContain("Guest accounts can't use this bot");
    expect(String(done.args.error)).not.toContain('<@');
    const after = bot.emulator!.requestCounts();
    const wm = Object.keys(after).filter((k) => k.includes('/wm/api/') && after[k] !== before[k]);
    expect(wm).toEqual([]);
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 20 });
    expect(audit.find((a) => a.action === 'workflow.register' && a.userId === GUEST)).toMatchObject({
      result: 'refused',
    });
  });

  it("a guest's Home tab says they can't use the bot, with no buttons", async () => {
    const seq = bot.fake.lastSeq();
    await bot.event({ type: 'app_home_opened', user: GUEST, channel: 'D0HOME', tab: 'home' });
    const call = await bot.fake.waitFor(
      (c) =>
        c.method === 'views.publish' &&
        c.seq > seq &&
        c.args.user_id === GUEST &&
        !JSON.stringify(c.args.view).includes('Loading'),
      8000,
    );
    const view = JSON.stringify(call.args.view);
    expect(view).toContain("Guest accounts can't use this bot");
    expect(view).not.toContain('"actions"');
    expect(view).not.toContain('DEMO');
  });
});

describe('Slack guests with GUEST_ACCESS=member', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({
      credentials: 'env',
      env: ({ fake }) => {
        fake.addUser('T0TEST0A', { id: GUEST, name: 'partner', isRestricted: true });
        return { GUEST_ACCESS: 'member' };
      },
    });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('a guest runs member commands and is refused admin ones', async () => {
    let seq = bot.fake.lastSeq();
    await bot.command('help', { user: GUEST });
    expect(await reply(bot, seq)).toContain('recipients');
    seq = bot.fake.lastSeq();
    await bot.command('audit 5', { command: '/drm', user: GUEST });
    expect(await reply(bot, seq)).toContain('Only admins');
  });
});
