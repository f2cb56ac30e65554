/**
 * What a process that died in the middle of a registration leaves in the store: the report still
 * "running" with nothing sent, its run record (optionally with the DM progress message it had
 * posted) and the pending mark, as a restarted process finds them. Started 10 minutes ago, so the
 * run counts as stale.
 */
import { WebClient } from '@slack/web-api';
import { parseRecipientLines, planRegistration } from '../../src/ops/watermarking/registration/plan.js';
import {
  markPending,
  type RunRecord,
  reportRepo,
  saveRun,
} from '../../src/ops/watermarking/registration/records.js';
import { newReport, type RegistrationReport } from '../../src/ops/watermarking/registration/run.js';
import { addWait } from '../../src/watch/job-waits.js';
import type { TestBot } from '../harness/index.js';

export interface InterruptedRun {
  report: RegistrationReport;
  /** The progress message posted in the user's DM (with `progressDm`). */
  progress?: { channel: string; ts: string };
}

export async function storeInterruptedRun(
  bot: TestBot,
  o: {
    reportId: string;
    names: string[];
    /** The run record's userId (who started it, as an older version may have written it). */
    userId: string;
    /** Post the "Registering…" message in that user's DM first and record it with the run. */
    progressDm?: boolean;
    /** Fields of the run record written as given (e.g. `dmUserId`). */
    record?: Partial<RunRecord>;
    /** The workflow step that waits for the run (stored first, due in an hour). */
    step?: { executionId: string; userId?: string };
  },
): Promise<InterruptedRun> {
  const ws = bot.ws.teamId;
  if (o.step) {
    await addWait(bot.store, {
      executionId: o.step.executionId,
      workspace: ws,
      siteId: 'DEMO',
      kind: 'registration',
      target: o.reportId,
      deadline: Date.now() + 3_600_000,
      ...(o.step.userId !== undefined ? { userId: o.step.userId } : {}),
    });
  }
  const plan = await planRegistration(parseRecipientLines(o.names.join('\n')), async () => new Map());
  const report = newReport(plan, 'DEMO', o.reportId, new Date(Date.now() - 10 * 60_000).toISOString());
  let progress: InterruptedRun['progress'];
  if (o.progressDm) {
    const client = new WebClient(bot.ws.botToken, {
      slackApiUrl: bot.fake.apiUrl,
      retryConfig: { retries: 0 },
    });
    const msg = await client.chat.postMessage({ channel: o.userId, text: 'Registering…' });
    progress = { channel: msg.channel!, ts: msg.ts! };
  }
  await reportRepo(bot.deps).put(ws, o.reportId, report);
  await saveRun(bot.deps, ws, {
    reportId: o.reportId,
    siteId: 'DEMO',
    userId: o.userId,
    ...(progress ? { channel: progress.channel, ts: progress.ts } : {}),
    startedAt: report.startedAt,
    ...o.record,
  });
  await markPending(bot.deps, ws, o.reportId);
  return { report, ...(progress ? { progress } : {}) };
}
