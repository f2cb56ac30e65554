/**
 * Demo step: one Workflow Builder run, as Slack would drive it. A form gave a recipient list and a
 * job id; the bot's steps run from signed `function_executed` events: "Register watermark
 * recipients" completes when the list is done, "Wait for a watermarking job to finish" completes
 * when the job ends (a durable wait served by the job watcher), and the workflow's own "Send a
 * message" step (Slack's, simulated here with a plain chat.postMessage) posts the outputs to the channel.
 */
import { WebClient } from '@slack/web-api';
import { listWaits } from '../../src/watch/job-waits.js';
import type { FakeCall } from '../fakeslack/index.js';
import type { DemoStack } from './stack.js';
import { type DemoStep, DemoStepError } from './step.js';

type Obj = Record<string, unknown>;

async function runStep(s: DemoStack, callbackId: string, inputs: Obj): Promise<FakeCall> {
  const r = await s.functionExecuted({ callbackId, inputs });
  if (r.status !== 200) throw new DemoStepError(`function_executed for ${callbackId} got HTTP ${r.status}`);
  return waitDone(s, r.executionId);
}

function waitDone(s: DemoStack, executionId: string): Promise<FakeCall> {
  return s.fake
    .waitFor(
      (c) =>
        (c.method === 'functions.completeSuccess' || c.method === 'functions.completeError') &&
        c.args.function_execution_id === executionId,
      20_000,
    )
    .then((c) => {
      if (c.method !== 'functions.completeSuccess')
        throw new DemoStepError(`step failed: ${String(c.args.error)}`);
      return c;
    });
}

export const WORKFLOW_STEP: DemoStep = {
  title: 'A Workflow Builder run',
  about:
    'Form → "Register watermark recipients" → "Wait for a watermarking job to finish" → post the result (custom steps, completed with functions.completeSuccess).',
  async run(s) {
    const reg = await runStep(s, 'register_recipients', {
      recipients: 'Arte-FR, festival screeners\nViaplay-NO\nViaplay-NO',
      requested_by: s.ws.member,
    });
    const r = reg.args.outputs as Obj;
    const jobId = s.emulator.createJob('DEMO', 'FESTIVAL-CUT-07', [
      { recipient: 'Arte-FR' },
      { recipient: 'Viaplay-NO' },
    ]);
    const ex = s.fake.startFunctionExecution(s.ws.teamId);
    const pending = s.functionExecuted({
      callbackId: 'wait_for_job',
      inputs: { job_id: String(jobId), site: 'DEMO', timeout_hours: 4, requested_by: s.ws.member },
      execution: ex,
    });
    if ((await pending).status !== 200) throw new DemoStepError('wait_for_job event refused');
    // Stored as a durable wait (the job is still running): its site is now watched.
    const until = Date.now() + 10_000;
    while (!(await listWaits(s.store)).some((w) => w.executionId === ex.executionId)) {
      if (Date.now() > until) throw new DemoStepError('the wait step did not store its wait');
      await new Promise((res) => setTimeout(res, 10));
    }
    await s.watch.watcher.pollOnce(s.ws.teamId, 'DEMO');
    s.emulator.finishJob('DEMO', jobId);
    // The watcher's next poll of the site (every 2 s while the job is in flight; the demo drives
    // it by hand) sees the job finish and completes the step.
    await s.watch.watcher.pollOnce(s.ws.teamId, 'DEMO');
    const done = await waitDone(s, ex.executionId);
    const j = done.args.outputs as Obj;
    // Workflow Builder's own "Send a message" steps, with the outputs as variables: the result in
    // the channel; the report link (it opens the requester's DM with the bot) only to the requester.
    const slack = new WebClient(s.ws.botToken, { slackApiUrl: s.config.slack.apiUrl! });
    await slack.chat.postMessage({
      channel: s.ws.channel,
      text: `Workflow "Festival screeners": registered ${String(r.registered_count)}, skipped ${String(r.skipped_count)}, failed ${String(r.failed_count)}. Job ${String(j.job_id)} is ${String(j.status)}: ${String(j.complete_count)} complete, ${String(j.failed_count)} failed.`,
    });
    await slack.chat.postMessage({
      channel: s.ws.member,
      text: `Your registration report: ${String(r.report_link)}`,
    });
    if (j.status !== 'COMPLETED')
      throw new DemoStepError(`expected the job COMPLETED, got ${String(j.status)}`);
  },
};
