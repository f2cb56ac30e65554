/**
 * Slack guests end to end (the real app, fake Slack answering users.info with `is_restricted` /
 * `is_ultra_restricted`, the emulator): with the default GUEST_ACCESS a guest is refused a
 * command, a Workflow Builder step run for them, and sees a Home tab without data or buttons; a
 * guest whose id is in ADMIN_USER_IDS is an admin. People of another organisation clicking in a
 * shared (Slack Connect) channel are refused like guests, and their organisation's admins are
 * never admins here. Every refusal is in the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBot, type TestBot } from '../../../../harness/index.js';
import { type Block, button, drm, replyText } from '../../../../support/slack.js';

const GUEST = 'U0GUEST0A';
const SINGLE = 'U0SINGLEA';
const GUEST_ADMIN = 'U0GADMINA';
/** People of another organisation in a shared (Slack Connect) channel: their home team. */
const OTHER_ORG_TEAM = 'T0OTHER0A';
const EXT = 'U0EXTMEMA';
/** An admin and owner of THEIR organisation. */
const EXT_ADMIN = 'U0EXTADMA';

/** The external users, as users.info answers for them with this workspace's bot. */
function addExternals(fake: TestBot['fake']): void {
  fake.addUser('T0TEST0A', { id: EXT, name: 'partner-dev', homeTeamId: OTHER_ORG_TEAM });
  fake.addUser('T0TEST0A', {
    id: EXT_ADMIN,
    name: 'partner-owner',
    homeTeamId: OTHER_ORG_TEAM,
    isAdmin: true,
    isOwner: true,
  });
}

type Btn = { action_id: string; value?: string };

/**
 * A click by someone of another organisation (Slack's `team` is this workspace, `user.team_id`
 * theirs); the answer: a reply, or (the role check late) the "Checking…" modal turned refusal.
 */
async function externalClick(bot: TestBot, b: Btn, user: string, messageTs?: string): Promise<string> {
  const seq = bot.fake.lastSeq();
  await bot.action({
    actionId: b.action_id,
    ...(b.value !== undefined ? { value: b.value } : {}),
    user,
    userTeamId: OTHER_ORG_TEAM,
    ...(messageTs ? { messageTs } : {}),
  });
  const c = await bot.fake.waitFor(
    (x) => (x.method === 'response_url' || x.method === 'views.update') && x.seq > seq,
    8000,
  );
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
        addExternals(fake);
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
    const refused = await replyText(bot, seq);
    expect(refused).toContain("Guest accounts can't use this bot in this workspace");
    expect(refused).toContain(`<@${GUEST_ADMIN}>`);
    seq = bot.fake.lastSeq();
    await bot.command('help', { user: GUEST });
    const help = await replyText(bot, seq);
    expect(help).toContain("Guest accounts can't use this bot");
    expect(help).not.toContain('recipients');
    seq = bot.fake.lastSeq();
    await bot.command('help', { user: bot.ws.member });
    expect(await replyText(bot, seq)).toContain('recipients');
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 20 });
    expect(audit.find((a) => a.action === 'command.recipients')).toMatchObject({
      userId: SINGLE,
      result: 'refused',
    });
  });

  it('a guest listed in ADMIN_USER_IDS is an admin', async () => {
    const seq = bot.fake.lastSeq();
    await bot.command('audit 5', { command: '/drm', user: GUEST_ADMIN });
    const r = await replyText(bot, seq);
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

  /** The step's completion (completeSuccess / completeError) of an execution. */
  function stepCompletion(executionId: string) {
    return bot.fake.waitFor(
      (c) =>
        (c.method === 'functions.completeSuccess' || c.method === 'functions.completeError') &&
        c.args.function_execution_id === executionId,
      15_000,
    );
  }
  /** Upstream calls (either API, token calls aside) made since `before`. */
  function upstreamSince(before: Record<string, number>): string[] {
    const after = bot.emulator!.requestCounts();
    return Object.keys(after).filter((k) => !k.includes('/token') && after[k] !== (before[k] ?? 0));
  }
  const interactivity = (id: string) => ({
    interactivity_pointer: '1.2.abc',
    interactor: { id, secret: 'x' },
  });

  it('a step with Requested by empty, started by a guest (the interactivity input), is refused like a step named for them: nothing upstream, audited under the guest', async () => {
    const before = bot.emulator!.requestCounts();
    const r = await bot.functionExecuted({
      callbackId: 'register_recipients',
      inputs: {
        site: 'DEMO',
        recipients: 'guest-wf-click-01',
        requested_by: '',
        interactivity: interactivity(GUEST),
      },
    });
    const done = await stepCompletion(r.executionId);
    expect(done.method).toBe('functions.completeError');
    expect(String(done.args.error)).toContain("Guest accounts can't use this bot");
    expect(upstreamSince(before)).toEqual([]);
    // No report DM to the guest either.
    expect(bot.fake.calls('chat.postMessage').filter((c) => c.args.channel === GUEST)).toEqual([]);
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 20 });
    expect(
      audit.find((a) => a.action === 'workflow.register' && a.detail.includes(r.workflowExecutionId)),
    ).toMatchObject({ userId: GUEST, result: 'refused' });
  });

  it('a trial step whose Requested by names a member but which a guest started is refused: every person the event names is checked', async () => {
    const before = bot.emulator!.requestCounts();
    const r = await bot.functionExecuted({
      callbackId: 'request_trial_extension',
      inputs: {
        site: 'DEMO',
        service: 'DRM',
        requested_by: bot.ws.member,
        interactivity: interactivity(SINGLE),
      },
    });
    const done = await stepCompletion(r.executionId);
    expect(done.method).toBe('functions.completeError');
    expect(String(done.args.error)).toContain("Guest accounts can't use this bot");
    expect(upstreamSince(before)).toEqual([]);
  });

  it('a step that changes something, with no person at all (an unattended workflow), fails saying where unattended steps may run; a step that reads runs', async () => {
    const before = bot.emulator!.requestCounts();
    const r = await bot.functionExecuted({
      callbackId: 'register_recipients',
      inputs: { site: 'DEMO', recipients: 'nobody-wf-01', requested_by: '' },
    });
    const done = await stepCompletion(r.executionId);
    expect(done.method).toBe('functions.completeError');
    expect(String(done.args.error)).toContain('the bot cannot tell who runs this step');
    expect(String(done.args.error)).toContain('WORKFLOW_UNATTENDED=all');
    expect(upstreamSince(before)).toEqual([]);
    const trial = await bot.functionExecuted({
      callbackId: 'request_trial_extension',
      inputs: { site: 'DEMO', service: 'DRM' },
    });
    expect((await stepCompletion(trial.executionId)).method).toBe('functions.completeError');
    expect(upstreamSince(before)).toEqual([]);
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 20 });
    expect(
      audit.find((a) => a.action === 'workflow.register' && a.detail.includes(r.workflowExecutionId)),
    ).toMatchObject({ result: 'refused' });
    // Reading a job's status needs no person.
    const jobId = bot.emulator!.createJob('DEMO', 'WF-UNATTENDED-1', [{ recipient: 'wf-u-1' }]);
    const read = await bot.functionExecuted({
      callbackId: 'job_status',
      inputs: { job_id: String(jobId), site: 'DEMO' },
    });
    const ok = await stepCompletion(read.executionId);
    expect(ok.method, String(ok.args.error)).toBe('functions.completeSuccess');
  });

  it('someone of another organisation clicking a member button on a card in the shared channel is refused, naming their organisation (audited)', async () => {
    // A member shares the plan card in the channel; its trial button is for members.
    const shared = (await drm(bot, 'plan share', bot.ws.member)).call;
    expect(shared.args.response_type).toBe('in_channel');
    const card = bot.fake.messages(bot.ws.channel).find((m) => m.text === shared.args.text);
    expect(card).toBeTruthy();
    const trial = button(shared.args.blocks as Block[], (b) => b.action_id === 'svc_plan_request_trial');
    expect(trial).toBeTruthy();
    const answer = await externalClick(bot, trial, EXT, card!.ts);
    expect(answer).toContain("Accounts of other organisations can't use this bot in this workspace");
    expect(answer).toContain('belongs to another organisation');
    expect(answer).toContain(`<@${GUEST_ADMIN}>`);
    // No request form was opened for them.
    expect(bot.fake.lastView(EXT, 'modal')?.callbackId).not.toBe('svc_plan_request');
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 20 });
    const refused = audit.find((a) => a.userId === EXT);
    expect(refused).toMatchObject({ action: 'plan.request', result: 'refused' });
    expect(refused?.detail).toContain('another organisation');
  });

  it("another organisation's admin clicking an admin button is refused as an outsider, not served as an admin", async () => {
    const mine = (await drm(bot, 'plan fwm', bot.ws.admin)).call;
    const suspend = button(mine.args.blocks as Block[], (b) => b.action_id === 'svc_plan_request_suspend');
    expect(suspend).toBeTruthy();
    const answer = await externalClick(bot, suspend, EXT_ADMIN);
    expect(answer).toContain("Accounts of other organisations can't use this bot");
    expect(bot.fake.lastView(EXT_ADMIN, 'modal')?.callbackId).not.toBe('svc_plan_request');
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 20 });
    expect(audit.find((a) => a.userId === EXT_ADMIN)).toMatchObject({
      action: 'plan.suspend',
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
        addExternals(fake);
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
    expect(await replyText(bot, seq)).toContain('recipients');
    seq = bot.fake.lastSeq();
    await bot.command('audit 5', { command: '/drm', user: GUEST });
    expect(await replyText(bot, seq)).toContain('Only admins');
  });

  it("another organisation's admin acts as a member: refused an admin button, served a member one", async () => {
    const mine = (await drm(bot, 'plan fwm', bot.ws.admin)).call;
    const suspend = button(mine.args.blocks as Block[], (b) => b.action_id === 'svc_plan_request_suspend');
    const refused = await externalClick(bot, suspend, EXT_ADMIN);
    expect(refused).toContain('Only admins can request a service suspension');
    expect(bot.fake.lastView(EXT_ADMIN, 'modal')?.callbackId).not.toBe('svc_plan_request');
    const trial = button(mine.args.blocks as Block[], (b) => b.action_id === 'svc_plan_request_trial');
    const seq = bot.fake.lastSeq();
    await bot.action({
      actionId: trial.action_id,
      value: trial.value!,
      user: EXT_ADMIN,
      userTeamId: OTHER_ORG_TEAM,
    });
    await bot.fake.waitFor((c) => c.method === 'views.open' && c.seq > seq, 8000);
    await expect
      .poll(() => bot.fake.lastView(EXT_ADMIN, 'modal')?.callbackId, { timeout: 8000 })
      .toBe('svc_plan_request');
  });
});
