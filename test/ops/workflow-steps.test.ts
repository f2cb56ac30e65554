/**
 * The steps' plain operations: input parsing (job id, timeout), registration outputs counted from
 * the report like the modal's report, long name lists cut with "and N more", and every output a
 * step produces declared in the manifest definition.
 */
import { describe, expect, it } from 'vitest';
import type { Job, JobTask, WatermarkingClient } from '../../src/api/types.js';
import { parseRecipientLines, planRegistration } from '../../src/ops/watermarking/registration/plan.js';
import { newReport, type RegistrationReport } from '../../src/ops/watermarking/registration/run.js';
import {
  interruptedStepError,
  jobStatus,
  MAX_LISTED_NAMES,
  parseTimeoutHours,
  registrationOutputs,
  StepInputError,
} from '../../src/ops/workflow-steps.js';
import { STEP_MANIFEST } from '../../src/slack/features/workflow-steps/manifest.js';
import { parseJobId } from '../../src/slack/features/workflow-steps/step-words.js';

const t = { epochMs: 0, text: '2026-11-25 08:00:00' } as unknown as Job['regTime'];

function task(i: number, o: Partial<JobTask> = {}): JobTask {
  return {
    dwmId: i,
    recipient: `r-${i}`,
    description: '',
    status: 'TK002',
    cliErrorCode: '0',
    failed: false,
    regTime: t,
    updateTime: t,
    ...o,
  };
}

function fakeWm(job: Job, tasks: JobTask[]): WatermarkingClient {
  return {
    getJob: async () => job,
    getJobTasks: async () => ({ items: tasks, total: tasks.length }),
  } as unknown as WatermarkingClient;
}

describe('workflow step operations', () => {
  it('job ids: digits only, with a way to find one', () => {
    expect(parseJobId(' 4812 ')).toBe(4812);
    expect(parseJobId(4812)).toBe(4812);
    for (const bad of ['', 'abc', '12a', '-3', '0', '1.5']) {
      expect(() => parseJobId(bad)).toThrow(StepInputError);
    }
  });

  it('timeouts in hours: default 24, one minute to 720 hours', () => {
    expect(parseTimeoutHours(undefined)).toBe(24);
    expect(parseTimeoutHours('')).toBe(24);
    expect(parseTimeoutHours('0.5')).toBe(0.5);
    expect(parseTimeoutHours(720)).toBe(720);
    for (const bad of ['0', '-1', '721', 'soon'])
      expect(() => parseTimeoutHours(bad)).toThrow(StepInputError);
  });

  it('job status: failures counted and listed (cut after MAX_LISTED_NAMES), outputs declared in the manifest', async () => {
    const tasks = Array.from({ length: MAX_LISTED_NAMES + 5 }, (_, i) =>
      task(i + 1, { status: 'TK005', failed: true }),
    );
    tasks.push(task(9999));
    const job = { jobId: 7, contentId: 'C-1', status: 'DM600', regTime: t, updateTime: t } as Job;
    const r = await jobStatus(fakeWm(job, tasks), 'DEMO', 7);
    expect(r.finished).toBe(true);
    expect(r.outputs.status).toBe('ERROR');
    expect(r.outputs.complete_count).toBe(1);
    expect(r.outputs.failed_count).toBe(MAX_LISTED_NAMES + 5);
    const lines = r.outputs.failed_recipients.split('\n');
    expect(lines).toHaveLength(MAX_LISTED_NAMES + 1);
    expect(lines.at(-1)).toBe('…and 5 more (see the report)');
    expect(Object.keys(r.outputs).sort()).toEqual(
      Object.keys(STEP_MANIFEST.job_status!.output_parameters.properties).sort(),
    );
  });

  it('a running job is not finished', async () => {
    const job = { jobId: 8, contentId: 'C-2', status: 'DM001', regTime: t, updateTime: t } as Job;
    const r = await jobStatus(fakeWm(job, [task(1, { status: 'TK001' })]), 'DEMO', 8);
    expect(r.finished).toBe(false);
    expect(r.outputs.status).toBe('PREPROCESSING');
  });

  it('a run stopped before the end fails the step with the reason, the counts and what to do', async () => {
    const plan = await planRegistration(
      parseRecipientLines('s-one\ns-two\ns-three\n'),
      async () => new Map(),
    );
    const report = newReport(plan, 'DEMO', 'rep-2', new Date(0).toISOString());
    report.status = 'interrupted';
    report.interruptedReason = 'The service refused the credentials (HTTP 401); fix the setup and resume.';
    report.registered.push({ line: 1, name: 's-one', dwmId: 11 } as RegistrationReport['registered'][number]);
    expect(interruptedStepError(report, true)).toBe(
      "Couldn't register all the recipients: the registration on site DEMO stopped before the end: The service refused the credentials (HTTP 401); fix the setup and resume. 1 registered, 2 not sent yet, 0 failed. Once the cause is fixed, press Resume on the report the bot sent the requester by direct message, or run the workflow again (names registered already are skipped, never sent twice).",
    );
    expect(interruptedStepError(report, false)).toContain(
      'Once the cause is fixed, run the workflow again (',
    );
    // Were it given as outputs, the names not sent would be the failed ones, counted and listed alike.
    expect(registrationOutputs(report)).toMatchObject({ failed_count: 2, failed_names: 's-two\ns-three' });
  });

  it('registration outputs: skipped = already registered + repeated + invalid, as the report counts them', async () => {
    const parsed = parseRecipientLines('a-one\nb-two\nb-two\nalready-there\n');
    const plan = await planRegistration(parsed, async (names) => {
      const m = new Map();
      for (const n of names) if (n === 'already-there') m.set(n, { dwmId: 1, name: n });
      return m;
    });
    const report = newReport(plan, 'DEMO', 'rep-1', new Date(0).toISOString());
    const out = registrationOutputs(report);
    expect(out.skipped_count).toBe(2);
    expect(out.registered_count).toBe(0);
    // Not sent yet: the names still to send count as not registered, and are listed as such.
    expect(out.failed_count).toBe(2);
    expect(out.failed_names).toBe('a-one\nb-two');
    expect([...Object.keys(out), 'report_link'].sort()).toEqual(
      Object.keys(STEP_MANIFEST.register_recipients!.output_parameters.properties).sort(),
    );
  });
});
