/**
 * Workflow Builder steps end to end: signed `function_executed` events (as Slack sends them)
 * through the real app, with the seeded emulator and the fake Slack; the steps answer with
 * functions.completeSuccess / functions.completeError, asserted with their outputs. Waits are
 * served by the job watcher (the watch runtime, driven by `pollOnce`): includes a restart while a
 * wait step is pending (stop the app and its watcher, start a new app and two watch runtimes on
 * the same SQLite store, finish the job: exactly one completeSuccess, and no upstream call beyond
 * the watcher's own polls).
 */

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeCall } from '../../../../dev/fakeslack/index.js';
import { RUNS_NAMESPACE } from '../../../../src/ops/watermarking/registration/records.js';
import { createSlackApp } from '../../../../src/slack/app.js';
import type { AppDeps } from '../../../../src/slack/deps.js';
import { auditLineText } from '../../../../src/slack/features/audit/render.js';
import { FEATURES } from '../../../../src/slack/features/index.js';
import { resumePendingRegistrations } from '../../../../src/slack/features/register/index.js';
import { auditLine } from '../../../../src/slack/kit/context/context.js';
import { createWatchRuntime } from '../../../../src/slack/watch-runtime.js';
import { createStore } from '../../../../src/store/index.js';
import type { AuditEntry } from '../../../../src/store/types.js';
import { FakeClock } from '../../../../src/watch/clock.js';
import { listWaits } from '../../../../src/watch/job-waits.js';
import { startTestBot, type TestBot } from '../../../harness/index.js';
import { storeInterruptedRun } from '../../../support/interrupted-run.js';
import { lastSeq } from '../../../support/slack.js';

type Obj = Record<string, unknown>;

/** A watch runtime driven by hand (`pollOnce`), as the process's job watcher. */
function watchRuntime(deps: AppDeps, app: TestBot['handle']['app'], holderId: string, clock?: FakeClock) {
  return createWatchRuntime(deps, app, {
    features: FEATURES,
    holderId,
    watcher: { jitter: 0 },
    ...(clock ? { clock } : {}),
  });
}

/** Upstream calls to the watermarking API by endpoint template, since `before` (token calls aside). */
function wmCallsSince(bot: TestBot, before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(bot.emulator!.requestCounts())) {
    const n = v - (before[k] ?? 0);
    if (n > 0 && k.includes('/wm/api/') && !k.includes('/token')) out[k] = n;
  }
  return out;
}

async function stored(bot: TestBot, executionId: string): Promise<void> {
  while (!(await listWaits(bot.store)).some((w) => w.executionId === executionId)) {
    await new Promise((res) => setImmediate(res));
  }
}

function completion(bot: TestBot, executionId: string, timeoutMs = 15_000): Promise<FakeCall> {
  return bot.fake.waitFor(
    (c) =>
      (c.method === 'functions.completeSuccess' || c.method === 'functions.completeError') &&
      c.args.function_execution_id === executionId,
    timeoutMs,
  );
}

function completions(bot: TestBot, executionId: string): FakeCall[] {
  return bot.fake
    .calls()
    .filter(
      (c) =>
        (c.method === 'functions.completeSuccess' || c.method === 'functions.completeError') &&
        c.args.function_execution_id === executionId,
    );
}

/**
 * A step's audit entry as the audit channel (`auditLine`) and `/drm audit` (`auditLineText`) show
 * it: the user once as a mention (the entry's user), named in the detail as plain text, and no
 * escaped mention markup (`&lt;@U…&gt;`, which Slack would show literally).
 */
function expectRendersUser(e: AuditEntry, user: string): void {
  for (const line of [auditLine(e), auditLineText(e, 'UTC')]) {
    expect(line).not.toContain('&lt;@');
    expect(line.split(`<@${user}>`)).toHaveLength(2);
    expect(line).toContain(`for user ${user}`);
  }
}

/** The completion calls of an execution: the kind of token each was made with, and its answer. */
function completionTokens(bot: TestBot, executionId: string): string[] {
  return bot.fake
    .calls()
    .filter((c) => c.method.startsWith('functions.complete') && c.args.function_execution_id === executionId)
    .map((c) => `${c.tokenKind}:${c.ok ? 'ok' : c.error}`);
}

describe('Workflow Builder steps (function_executed through the real app)', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env', store: 'sqlite' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('register recipients: same planning as the modal (duplicates, already registered), completes with counts and the report link', async () => {
    const names = ['wf-alice-01', 'wf-bob-02', 'wf-bob-02', 'wf-carol-03'];
    const first = await bot.functionExecuted({
      callbackId: 'register_recipients',
      inputs: { site: 'DEMO', recipients: names.join('\n'), requested_by: bot.ws.member },
    });
    expect(first.status).toBe(200);
    const done = await completion(bot, first.executionId);
    expect(done.method).toBe('functions.completeSuccess');
    const out = done.args.outputs as Obj;
    expect(out.registered_count).toBe(3);
    expect(out.skipped_count).toBe(1);
    expect(out.failed_count).toBe(0);
    expect(out.failed_names).toBe('');
    expect(String(out.report_link)).toMatch(/^https:\/\/.+\/archives\/D/);

    // The same list again: everything is already registered (found on the site), nothing sent.
    const again = await bot.functionExecuted({
      callbackId: 'register_recipients',
      inputs: { recipients: names.join('\n'), requested_by: bot.ws.member },
    });
    const done2 = await completion(bot, again.executionId);
    expect(done2.method).toBe('functions.completeSuccess');
    expect((done2.args.outputs as Obj).registered_count).toBe(0);
    expect((done2.args.outputs as Obj).skipped_count).toBe(4);
    // Completed with the workspace's bot token (the step may finish after its event's token is gone).
    expect(done2.teamId).toBe(bot.ws.teamId);

    // The audit entry is written right after the completion: wait for it.
    let line: { userId: string; detail: string } | undefined;
    while (!line) {
      const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 50 });
      line = audit.find(
        (e) => e.action === 'workflow.register' && e.detail.includes(again.workflowExecutionId),
      );
      if (!line) await new Promise((res) => setImmediate(res));
    }
    expect(line?.userId).toBe(bot.ws.member);
    expect(line?.detail).toContain(`for user ${bot.ws.member}`);
    expectRendersUser(line as AuditEntry, bot.ws.member);
  });

  it("register recipients, more than a screenful: the modal's run (progress in place, the CSV report in the DM, audited), then completeSuccess", async () => {
    const member = bot.ws.member;
    // 170 names: two batches, and more rows than the report shows inline (REPORT_INLINE_ROWS).
    const names = Array.from({ length: 170 }, (_, i) => `wf-many-${String(i).padStart(3, '0')}`);
    const seq = lastSeq(bot);
    const r = await bot.functionExecuted({
      callbackId: 'register_recipients',
      inputs: { site: 'DEMO', recipients: names.join('\n'), requested_by: member },
    });
    const done = await completion(bot, r.executionId);
    expect(done.method, String(done.args.error)).toBe('functions.completeSuccess');
    const out = done.args.outputs as Obj;
    expect(out).toMatchObject({ registered_count: 170, skipped_count: 0, failed_count: 0, failed_names: '' });

    // The progress message in the requester's DM, then updated in place: progress, final report.
    const posted = bot.fake
      .calls('chat.postMessage')
      .find(
        (c) =>
          c.seq > seq &&
          c.args.channel === member &&
          String(c.args.text).startsWith('Registering recipients on DEMO: 0 of 170 registered so far'),
      );
    expect(posted).toBeDefined();
    const { channel, ts } = posted!.response as { channel: string; ts: string };
    expect(String(out.report_link)).toContain(`/archives/${channel}/p${ts.replace('.', '')}`);
    const updates = bot.fake
      .calls('chat.update')
      .filter((c) => c.seq > seq && c.args.channel === channel && c.args.ts === ts);
    const texts = updates.map((c) => String(c.args.text));
    expect(
      texts.some((t) => /^Registering recipients on DEMO: (80|160|170) of 170 registered so far\.$/.test(t)),
      texts.join(' | '),
    ).toBe(true);
    expect(texts.at(-1)).toMatch(/^Registered 170 recipients on DEMO\./);
    // The report says the CSV follows, and it does: every input line in the requester's DM.
    expect(JSON.stringify(updates.at(-1)!.args.blocks)).toMatch(/CSV/);
    const file = bot.fake
      .calls('files.completeUploadExternal')
      .find((c) => c.ok && c.seq > seq && c.args.channel_id === channel);
    expect(file).toBeDefined();
    const fid = String((file!.args.files as Array<{ id: string }>)[0]!.id);
    const csv = bot.fake.file(fid)!.data.toString('utf8');
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(171);
    expect(csv).toContain('wf-many-169');

    // Audited like the modal's run: the requester and the counts.
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 50 });
    const reg = audit.find((e) => e.action === 'recipient.register' && e.detail.includes('170 registered'));
    expect(reg).toMatchObject({ userId: member, result: 'ok', siteId: 'DEMO' });
    expect(reg?.detail).toContain('0 skipped, 0 failed');
  });

  it('register recipients stopped before the end: the step fails (the workflow does not go on), the requester can resume', async () => {
    const member = bot.ws.member;
    const emu = bot.emulator!;
    const names = Array.from({ length: 30 }, (_, i) => `wf-stop-${i}`);
    const seq = lastSeq(bot);
    // The service refuses the credentials for registrations (the look-ups of the planning pass).
    emu.faults.add({ match: /^POST \/wm\/api\/recipient/, status: 401 });
    try {
      const r = await bot.functionExecuted({
        callbackId: 'register_recipients',
        inputs: { site: 'DEMO', recipients: names.join('\n'), requested_by: member },
      });
      const c = await completion(bot, r.executionId);
      expect(c.method).toBe('functions.completeError');
      expect(String(c.args.error)).toBe(
        "Couldn't register all the recipients: the registration on site DEMO stopped before the end: The service refused the credentials (HTTP 401); fix the setup and resume. 0 registered, 30 not sent yet, 0 failed. Once the cause is fixed, press Resume on the report the bot sent the requester by direct message, or run the workflow again (names registered already are skipped, never sent twice).",
      );
      expect(completions(bot, r.executionId)).toHaveLength(1);
      // The requester's DM report is the modal's: stopped, with Resume.
      const report = bot.fake
        .calls('chat.update')
        .filter((u) => u.seq > seq && u.seq < c.seq)
        .map((u) => JSON.stringify(u.args.blocks))
        .at(-1);
      expect(report).toContain('wm_register_resume');
    } finally {
      emu.faults.clear();
    }
  });

  it('register recipients: a redelivered event (same execution) starts nothing more', async () => {
    const ex = bot.fake.startFunctionExecution(bot.ws.teamId);
    const inputs = {
      site: 'DEMO',
      recipients: 'wf-redeliver-01\nwf-redeliver-02',
      requested_by: bot.ws.member,
    };
    await bot.functionExecuted({ callbackId: 'register_recipients', inputs, execution: ex });
    const done = await completion(bot, ex.executionId);
    expect((done.args.outputs as Obj).registered_count).toBe(2);
    const progressBefore = bot.fake.calls('chat.postMessage').length;
    const again = await bot.functionExecuted({ callbackId: 'register_recipients', inputs, execution: ex });
    expect(again.status).toBe(200);
    // The second delivery is acked, recognised and dropped: nothing posted, nothing completed.
    const ignored = () =>
      bot.logs
        .entries()
        .some(
          (e) =>
            e.executionId === ex.executionId &&
            String(e.msg).startsWith('workflow step event delivered again'),
        );
    while (!ignored()) {
      await new Promise((res) => setImmediate(res));
    }
    expect(completions(bot, ex.executionId)).toHaveLength(1);
    expect(bot.fake.calls('chat.postMessage').length).toBe(progressBefore);
  });

  it('register recipients interrupted by a restart: the run resumes at start and the step completes then', async () => {
    const ws = bot.ws.teamId;
    const user = bot.ws.member;
    const ex = bot.fake.startFunctionExecution(ws);
    // What the dead process left: the wait, the run record with its DM progress message, the
    // report still "running" with nothing sent, and the pending mark.
    const reportId = 'wf-restart-report';
    const { progress } = await storeInterruptedRun(bot, {
      reportId,
      names: Array.from({ length: 160 }, (_, i) => `wf-restart-${i}`),
      userId: user,
      progressDm: true,
      step: { executionId: ex.executionId, userId: user },
    });
    const msg = progress!;

    const watch = watchRuntime(bot.deps, bot.handle.app, 'restart-reg');
    try {
      await watch.watcher.pollOnce(ws, 'DEMO');
      expect(completions(bot, ex.executionId)).toEqual([]);
      // The new process resumes the run (main.ts does this at start); the watcher's next poll of
      // the site completes the step.
      expect((await resumePendingRegistrations(bot.deps)).resumed).toEqual([reportId]);
      await watch.watcher.pollOnce(ws, 'DEMO');
      const c = await completion(bot, ex.executionId);
      expect(c.method).toBe('functions.completeSuccess');
      expect(c.args.outputs).toMatchObject({ registered_count: 160, skipped_count: 0, failed_count: 0 });
      expect(String((c.args.outputs as Obj).report_link)).toContain(
        `/archives/${msg.channel}/p${msg.ts!.replace('.', '')}`,
      );
      await watch.watcher.pollOnce(ws, 'DEMO');
      expect(completions(bot, ex.executionId)).toHaveLength(1);
    } finally {
      await watch.stop();
    }
  });

  it('register recipients: an empty list fails with what / why / next', async () => {
    const r = await bot.functionExecuted({
      callbackId: 'register_recipients',
      inputs: { recipients: '   \n', requested_by: bot.ws.member },
    });
    const c = await completion(bot, r.executionId);
    expect(c.method).toBe('functions.completeError');
    expect(String(c.args.error)).toMatch(
      /Couldn't register the recipients\. The recipients input is empty\. Fill/,
    );
  });

  it('job status: status, content id, complete / failed counts and failed recipients', async () => {
    const emu = bot.emulator!;
    const jobId = emu.createJob(
      'DEMO',
      'WF-STATUS-001',
      ['wf-s-1', 'wf-s-2', 'wf-s-3'].map((recipient) => ({ recipient })),
    );
    const tasks = await bot.deps.api
      .watermarking({ ...emu.demo.watermarking, baseUrl: emu.wmBaseUrl })
      .getJobTasks('DEMO', jobId);
    const failing = tasks.items.find((t) => t.recipient === 'wf-s-2')!;
    emu.finishJob('DEMO', jobId, { failDwmIds: [failing.dwmId], cliErrorCode: 'E-417' });

    const r = await bot.functionExecuted({
      callbackId: 'job_status',
      inputs: { job_id: String(jobId), site: 'DEMO', requested_by: bot.ws.admin },
    });
    const c = await completion(bot, r.executionId);
    expect(c.method).toBe('functions.completeSuccess');
    expect(c.args.outputs).toEqual({
      job_id: String(jobId),
      status: expect.stringMatching(/^(COMPLETED|ERROR)$/),
      content_id: 'WF-STATUS-001',
      complete_count: 2,
      failed_count: 1,
      failed_recipients: 'wf-s-2',
      tasks_shown: '',
    });
  });

  it.each([
    [
      'a list as Recipients',
      'register_recipients',
      { recipients: ['a', 'b'], requested_by: 'U0USER0A' },
      'the input "Recipients" (recipients) is a list, but the step takes text',
    ],
    [
      'a number as Recipients',
      'register_recipients',
      { recipients: 12345, requested_by: 'U0USER0A' },
      'the input "Recipients" (recipients) is a number, but the step takes text',
    ],
    [
      'an object as Requested by',
      'register_recipients',
      { recipients: 'a', requested_by: { id: 'U0USER0A' } },
      'the input "Requested by" (requested_by) is an object, but the step takes a person',
    ],
    [
      'a number as Job id',
      'job_status',
      { job_id: 4812 },
      'the input "Job id" (job_id) is a number, but the step takes text',
    ],
    [
      'text as Timeout',
      'wait_for_job',
      { job_id: '1', timeout_hours: '12' },
      'the input "Timeout (hours)" (timeout_hours) is text, but the step takes a number',
    ],
    [
      'a list as Service',
      'request_trial_extension',
      { service: ['DRM'], requested_by: 'U0USER0A' },
      'the input "Service" (service) is a list, but the step takes text',
    ],
  ])(
    'an input of the wrong type (%s) is refused naming the input, never coerced; nothing upstream',
    async (_n, callbackId, inputs, says) => {
      const before = bot.emulator!.requestCounts();
      const r = await bot.functionExecuted({ callbackId, inputs });
      const c = await completion(bot, r.executionId);
      expect(c.method).toBe('functions.completeError');
      expect(String(c.args.error)).toContain(says);
      const after = bot.emulator!.requestCounts();
      expect(
        Object.keys(after).filter((k) => !k.includes('/token') && after[k] !== (before[k] ?? 0)),
      ).toEqual([]);
    },
  );

  it("a step is completed with the workspace's bot token (it outlives the event's token)", async () => {
    const jobId = bot.emulator!.createJob('DEMO', 'WF-TOKEN-000', [{ recipient: 'wf-tok-0' }]);
    const r = await bot.functionExecuted({
      callbackId: 'job_status',
      inputs: { job_id: String(jobId), site: 'DEMO' },
    });
    await completion(bot, r.executionId);
    expect(completionTokens(bot, r.executionId)).toEqual(['bot:ok']);
  });

  /** A function_executed envelope as Slack sends it, with inputs of `inputBytes` (the id after them). */
  function bigStepBody(
    ex: { executionId: string; token: string },
    inputBytes: number,
    workflowExecutionId: string,
  ) {
    const now = Math.floor(Date.now() / 1000);
    return JSON.stringify({
      token: 'deprecated-verification-token',
      team_id: bot.ws.teamId,
      api_app_id: 'A0FAKEAPP',
      event: {
        type: 'function_executed',
        function: { id: 'FnBIG0001', callback_id: 'register_recipients', title: 'Register', type: 'app' },
        // A key-like text inside a value (escaped quotes) must not be taken for the execution id.
        inputs: {
          recipients: `"function_execution_id":"FxFAKE000001"\n${'wf-big-name\n'.repeat(Math.ceil(inputBytes / 12))}`,
          requested_by: bot.ws.member,
        },
        function_execution_id: ex.executionId,
        workflow_execution_id: workflowExecutionId,
        event_ts: `${now}.000100`,
        bot_access_token: ex.token,
      },
      type: 'event_callback',
      event_id: 'EvBIG00001',
      event_time: now,
      authorizations: [
        {
          enterprise_id: null,
          team_id: bot.ws.teamId,
          user_id: bot.ws.botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
    });
  }

  it('a step event over the body limit (4 MB of inputs) is answered 413 and the step fails with the reason, not left waiting; nothing upstream', async () => {
    const ex = bot.fake.startFunctionExecution(bot.ws.teamId);
    const before = bot.emulator!.requestCounts();
    const body = bigStepBody(ex, 5 * 1024 * 1024, 'WxBIGSIGNED1');
    const r = await bot.send('/slack/events', body, 'application/json');
    expect(r.status).toBe(413);
    const c = await completion(bot, ex.executionId);
    expect(c.method).toBe('functions.completeError');
    expect(String(c.args.error)).toContain('over the 4.0 MB the bot accepts');
    expect(String(c.args.error)).toContain('Make the inputs smaller');
    // Completed with the workspace's bot token.
    expect(c.teamId).toBe(bot.ws.teamId);
    expect(bot.fake.functionExecution('FxFAKE000001')).toBeUndefined();
    const after = bot.emulator!.requestCounts();
    expect(Object.keys(after).filter((k) => !k.includes('/token') && after[k] !== (before[k] ?? 0))).toEqual(
      [],
    );
    await vi.waitFor(
      () => expect(bot.logs.text()).toMatch(/WxBIGSIGNED1.*the step was failed with the reason/),
      {
        timeout: 10_000,
        interval: 20,
      },
    );
  });

  it('an unsigned step event over the body limit completes nothing; the ids that could be read are logged as unverified', async () => {
    const ex = bot.fake.startFunctionExecution(bot.ws.teamId);
    const body = bigStepBody(ex, 5 * 1024 * 1024, 'WxBIGFORGED1');
    const r = await bot.send('/slack/events', body, 'application/json', 'bad');
    expect(r.status).toBe(413);
    await vi.waitFor(() => expect(bot.logs.text()).toContain('WxBIGFORGED1'), {
      timeout: 10_000,
      interval: 20,
    });
    expect(bot.logs.text()).toMatch(/unverified workflow step event over the body limit/);
    expect(completions(bot, ex.executionId)).toEqual([]);
    expect(bot.fake.functionExecution(ex.executionId)).toBe('running');
  });

  it('job status: a job id that is not a number fails with the way to find one', async () => {
    const r = await bot.functionExecuted({ callbackId: 'job_status', inputs: { job_id: 'abc' } });
    const c = await completion(bot, r.executionId);
    expect(c.method).toBe('functions.completeError');
    expect(String(c.args.error)).toContain('"abc" is not a job id');
    expect(String(c.args.error)).toContain('/dwm jobs');
  });

  it('an unsigned function_executed event is refused and nothing completes', async () => {
    const r = await bot.functionExecuted({
      callbackId: 'job_status',
      inputs: { job_id: '1' },
      signature: 'bad',
    });
    expect(r.status).toBe(401);
    // A signed event sent afterwards completes; the refused one never did.
    const ok = await bot.functionExecuted({ callbackId: 'job_status', inputs: { job_id: 'x' } });
    await completion(bot, ok.executionId);
    expect(completions(bot, r.executionId)).toEqual([]);
    expect(bot.fake.functionExecution(r.executionId)).toBe('running');
  });

  it('no function token (xwfp-…) and no other secret appears in the logs', () => {
    expect(bot.logs.text()).not.toMatch(/xwfp-/);
    expect(bot.logs.leaked(bot.secrets())).toEqual([]);
  });

  it('wait for a job: served by the watcher, pending across a restart, then exactly one completeSuccess from the new process', async () => {
    const emu = bot.emulator!;
    const ws = bot.ws.teamId;
    const jobId = emu.createJob('DEMO', 'WF-WAIT-001', [{ recipient: 'wf-w-1' }, { recipient: 'wf-w-2' }]);
    const runtimeA = watchRuntime(bot.deps, bot.handle.app, 'process-a');
    const r = await bot.functionExecuted({
      callbackId: 'wait_for_job',
      inputs: { job_id: String(jobId), site: 'DEMO', timeout_hours: 2, requested_by: bot.ws.member },
    });
    expect(r.status).toBe(200);
    // Stored as a durable wait; nothing completed while the job runs.
    await stored(bot, r.executionId);
    const before = emu.requestCounts();
    await runtimeA.watcher.pollOnce(ws, 'DEMO');
    await runtimeA.watcher.pollOnce(ws, 'DEMO');
    expect(completions(bot, r.executionId)).toEqual([]);
    // The watcher's own list queries only: the wait looks nothing up by itself (no second poller).
    expect(Object.keys(wmCallsSince(bot, before))).toEqual(['GET /wm/api/job/:siteId']);

    // Stop the app and its watcher (the process ends).
    await runtimeA.stop();
    await bot.handle.stop();

    // A new process on the same store: new store connection, new app, and two replicas.
    const storeB = await createStore({
      url: bot.config.storeUrl,
      encryptionKey: bot.config.encryptionKey,
      previousEncryptionKeys: bot.config.previousEncryptionKeys,
      namespace: bot.storeNamespace,
    });
    const depsB: AppDeps = { ...bot.deps, store: storeB };
    const handleB = createSlackApp(depsB, { retryConfig: { retries: 0 } });
    await handleB.start();
    const runtimeB = watchRuntime(depsB, handleB.app, 'process-b');
    const runtimeC = watchRuntime(depsB, handleB.app, 'process-c'); // a second replica
    try {
      await runtimeB.watcher.pollOnce(ws, 'DEMO');
      expect(completions(bot, r.executionId)).toEqual([]);

      emu.finishJob('DEMO', jobId);
      const atFinish = emu.requestCounts();
      await Promise.all([runtimeB.watcher.pollOnce(ws, 'DEMO'), runtimeC.watcher.pollOnce(ws, 'DEMO')]);
      const c = await completion(bot, r.executionId);
      expect(c.method).toBe('functions.completeSuccess');
      expect(c.args.outputs).toEqual({
        job_id: String(jobId),
        status: 'COMPLETED',
        content_id: 'WF-WAIT-001',
        complete_count: 2,
        failed_count: 0,
        failed_recipients: '',
        tasks_shown: '',
      });
      // One poll (the other replica was refused the site's lease): its two list queries and the
      // finished job's tasks.
      expect(wmCallsSince(bot, atFinish)).toEqual({
        'GET /wm/api/job/:siteId': 2,
        'GET /wm/api/job/:siteId/:jobId/recipient': 1,
      });
      // More polls on both replicas send nothing more.
      await runtimeC.watcher.pollOnce(ws, 'DEMO');
      await Promise.all([runtimeB.watcher.pollOnce(ws, 'DEMO'), runtimeC.watcher.pollOnce(ws, 'DEMO')]);
      expect(completions(bot, r.executionId)).toHaveLength(1);
      expect(bot.fake.functionExecution(r.executionId)).toBe('completed');
      expect((await listWaits(storeB)).some((w) => w.executionId === r.executionId)).toBe(false);
    } finally {
      await runtimeB.stop();
      await runtimeC.stop();
      await handleB.stop();
      await storeB.close();
    }
  });
});

describe('Workflow Builder steps: timeout, trial extension, workspace not set up', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('wait for a job fails with a clear message when the timeout passes', async () => {
    const jobId = bot.emulator!.createJob('DEMO', 'WF-SLOW-001', [{ recipient: 'wf-slow-1' }]);
    const clock = new FakeClock(Date.now());
    const runtime = watchRuntime(bot.deps, bot.handle.app, 'timeouts', clock);
    try {
      const r = await bot.functionExecuted({
        callbackId: 'wait_for_job',
        inputs: { job_id: String(jobId), site: 'DEMO', timeout_hours: 1, requested_by: bot.ws.member },
      });
      await stored(bot, r.executionId);
      await runtime.watcher.pollOnce(bot.ws.teamId, 'DEMO');
      expect(completions(bot, r.executionId)).toEqual([]);
      clock.advance(2 * 3_600_000);
      await runtime.watcher.pollOnce(bot.ws.teamId, 'DEMO');
      const c = await completion(bot, r.executionId);
      expect(c.method).toBe('functions.completeError');
      expect(String(c.args.error)).toBe(
        `Job ${jobId} on site DEMO did not finish within 1 hour, so the wait step stopped. The job itself keeps running: check it with /dwm job ${jobId} site:DEMO, and give the step a longer timeout if jobs take longer.`,
      );
      await runtime.watcher.pollOnce(bot.ws.teamId, 'DEMO');
      expect(completions(bot, r.executionId)).toHaveLength(1);
    } finally {
      await runtime.stop();
    }
  });

  it('wait for a job with the watcher running on its timer: the step wakes it, its poll completes the step', async () => {
    const emu = bot.emulator!;
    const jobId = emu.createJob('DEMO', 'WF-TIMER-001', [{ recipient: 'wf-t-1' }]);
    // The process's watcher on its own timer (no pollOnce), as main.ts starts it.
    const runtime = createWatchRuntime(bot.deps, bot.handle.app, {
      features: FEATURES,
      holderId: 'timer',
      watcher: { jitter: 0, activeIntervalMs: 500 },
    });
    runtime.start();
    try {
      const r = await bot.functionExecuted({
        callbackId: 'wait_for_job',
        inputs: { job_id: String(jobId), site: 'DEMO', timeout_hours: 1 },
      });
      await stored(bot, r.executionId);
      // The step woke this process's watcher: the site is polled without waiting an interval.
      const polled = async () =>
        (await runtime.watcher.status()).sites.find((x) => x.siteId === 'DEMO')?.lastPollAt !== undefined;
      while (!(await polled())) await new Promise((res) => setTimeout(res, 20));
      expect(completions(bot, r.executionId)).toEqual([]);
      emu.finishJob('DEMO', jobId);
      const c = await completion(bot, r.executionId);
      expect(c.method).toBe('functions.completeSuccess');
      expect(c.args.outputs).toMatchObject({ job_id: String(jobId), status: 'COMPLETED' });
    } finally {
      await runtime.stop();
    }
  });

  it('wait for a job that is finished already completes at once with its status', async () => {
    const emu = bot.emulator!;
    const jobId = emu.createJob('DEMO', 'WF-DONE-001', [{ recipient: 'wf-d-1' }]);
    emu.finishJob('DEMO', jobId);
    const r = await bot.functionExecuted({
      callbackId: 'wait_for_job',
      inputs: { job_id: String(jobId), site: 'DEMO', timeout_hours: 1 },
    });
    const c = await completion(bot, r.executionId);
    expect(c.method).toBe('functions.completeSuccess');
    expect(c.args.outputs).toMatchObject({ job_id: String(jobId), content_id: 'WF-DONE-001' });
    expect((await listWaits(bot.store)).some((w) => w.executionId === r.executionId)).toBe(false);
  });

  it('wait for a job that does not exist fails at once', async () => {
    const r = await bot.functionExecuted({
      callbackId: 'wait_for_job',
      inputs: { job_id: '999999', site: 'DEMO', timeout_hours: 1 },
    });
    const c = await completion(bot, r.executionId);
    expect(c.method).toBe('functions.completeError');
    expect(String(c.args.error)).toMatch(/^Couldn't wait for the job\./);
  });

  it('register recipients: a run that ends on an unexpected error tells the requester and fails the step once', async () => {
    const member = bot.ws.member;
    const store = bot.deps.store;
    const docs = store.docs;
    // The run record cannot be stored: the run stops before its first batch.
    store.docs = ((ns: string, schema?: never) => {
      const repo = docs.call(store, ns, schema);
      if (ns !== RUNS_NAMESPACE) return repo;
      return {
        ...repo,
        put: async () => {
          throw new Error('store write refused for the test');
        },
      };
    }) as typeof store.docs;
    try {
      const seq = lastSeq(bot);
      const r = await bot.functionExecuted({
        callbackId: 'register_recipients',
        inputs: { site: 'DEMO', recipients: 'wf-err-1\nwf-err-2', requested_by: member },
      });
      const c = await completion(bot, r.executionId);
      expect(c.method).toBe('functions.completeError');
      expect(String(c.args.error)).toMatch(
        /^Couldn't register all the recipients: the registration on site DEMO stopped because of an unexpected error \(reference [0-9a-f]{8}\)\. Batches already sent are kept .* Check the recipients with \/dwm recipients site:DEMO before running the workflow again/,
      );
      // The requester is told in their DM, as after the modal's confirm.
      const dm = bot.fake
        .calls('chat.postMessage')
        .find(
          (m) => m.seq > seq && m.args.channel === member && String(m.args.text).includes('unexpected error'),
        );
      expect(String(dm?.args.text)).toContain(
        'The registration on site DEMO stopped because of an unexpected error',
      );
      expect(bot.fake.functionExecution(r.executionId)).toBe('failed');
      // Completed through the stored wait: it is marked done right after Slack answered, so the
      // watcher finds nothing left to send.
      const listed = async () => (await listWaits(bot.store)).some((w) => w.executionId === r.executionId);
      while (await listed()) await new Promise((res) => setImmediate(res));
      expect(completions(bot, r.executionId)).toHaveLength(1);
    } finally {
      store.docs = docs;
    }
  });

  it('request a trial extension: request id and status, audited for the requester', async () => {
    const r = await bot.functionExecuted({
      callbackId: 'request_trial_extension',
      inputs: {
        site: 'DEMO',
        service: 'FWM',
        message: 'Pilot runs one more week',
        requested_by: bot.ws.member,
      },
    });
    const c = await completion(bot, r.executionId);
    if (c.method === 'functions.completeError') throw new Error(String(c.args.error));
    const out = c.args.outputs as Obj;
    expect(String(out.request_id)).toMatch(/\S/);
    expect(String(out.status)).toMatch(/\S/);
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 20 });
    const entry = audit.find((e) => e.action === 'workflow.plan-trial');
    expect(entry?.userId).toBe(bot.ws.member);
    expect(entry?.detail).toContain(`for user ${bot.ws.member}`);
    expectRendersUser(entry!, bot.ws.member);
  });

  it("Slack refusing the bot token's type: the completion is made once more with the event's token (at once, and for a wait the watcher completes)", async () => {
    bot.fake.refuseCompletionTokens('bot');
    const runtime = watchRuntime(bot.deps, bot.handle.app, 'token-type');
    try {
      const jobId = bot.emulator!.createJob('DEMO', 'WF-TOKEN-001', [{ recipient: 'wf-tok-1' }]);
      const now = await bot.functionExecuted({
        callbackId: 'job_status',
        inputs: { job_id: String(jobId), site: 'DEMO' },
      });
      await vi.waitFor(
        () =>
          expect(completionTokens(bot, now.executionId)).toEqual([
            'bot:not_allowed_token_type',
            'function:ok',
          ]),
        {
          timeout: 10_000,
          interval: 20,
        },
      );
      const waiting = await bot.functionExecuted({
        callbackId: 'wait_for_job',
        inputs: { job_id: String(jobId), site: 'DEMO', timeout_hours: 1 },
      });
      await stored(bot, waiting.executionId);
      bot.emulator!.finishJob('DEMO', jobId);
      await runtime.watcher.pollOnce(bot.ws.teamId, 'DEMO');
      await vi.waitFor(
        () =>
          expect(completionTokens(bot, waiting.executionId)).toEqual([
            'bot:not_allowed_token_type',
            'function:ok',
          ]),
        { timeout: 10_000, interval: 20 },
      );
      expect(bot.fake.functionExecution(waiting.executionId)).toBe('completed');
      expect(bot.logs.text()).not.toMatch(/xwfp-/);
    } finally {
      bot.fake.refuseCompletionTokens();
      await runtime.stop();
    }
  });
});

describe('Workflow Builder steps in a workspace that is not set up', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'none' });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('fails with a message that says to run /dwm setup', async () => {
    const r = await bot.functionExecuted({ callbackId: 'job_status', inputs: { job_id: '1' } });
    const c = await completion(bot, r.executionId);
    expect(c.method).toBe('functions.completeError');
    expect(String(c.args.error)).toBe(
      "Couldn't read the job status: the bot is not set up in this workspace. A workspace admin runs /dwm setup once, then the workflow can be run again.",
    );
  });
});

describe('Workflow Builder steps at the workspace cap of waiting steps (WAITS_MAX_PER_WORKSPACE)', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startTestBot({ credentials: 'env', env: { WAITS_MAX_PER_WORKSPACE: '1' } });
  });
  afterAll(async () => {
    await bot?.close();
  });

  it('a wait beyond the cap fails at once with what to do, audited as refused; the waiting one stays', async () => {
    const emu = bot.emulator!;
    const first = emu.createJob('DEMO', 'WF-CAP-001', [{ recipient: 'wf-cap-1' }]);
    const second = emu.createJob('DEMO', 'WF-CAP-002', [{ recipient: 'wf-cap-2' }]);
    const a = await bot.functionExecuted({
      callbackId: 'wait_for_job',
      inputs: { job_id: String(first), site: 'DEMO', timeout_hours: 1 },
    });
    await stored(bot, a.executionId);
    const b = await bot.functionExecuted({
      callbackId: 'wait_for_job',
      inputs: { job_id: String(second), site: 'DEMO', timeout_hours: 1 },
    });
    const c = await completion(bot, b.executionId);
    expect(c.method).toBe('functions.completeError');
    expect(String(c.args.error)).toBe(
      "Couldn't wait for the job. This workspace already has 1 workflow steps waiting for a job or a registration, the most it may have at once. Let some finish or reach their timeout, then run the workflow again, or ask the bot's operator to raise WAITS_MAX_PER_WORKSPACE.",
    );
    expect((await listWaits(bot.store)).map((w) => w.executionId)).toEqual([a.executionId]);
    const audit = await bot.store.audit.list(bot.ws.teamId, { limit: 20 });
    expect(audit.find((e) => e.action === 'workflow.wait-job')?.result).toBe('refused');
  });
});
