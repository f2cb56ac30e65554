/**
 * The README's sample card: the job card and the thread reply the demo's bot posts when job
 * `feature-2026-final` fails in #releases, rebuilt from the same inputs with the card renderer
 * alone (no demo run), at a fixed time. `npm run picture` (scripts/render-picture.ts) draws these
 * messages into docs/img/job-card.png and writes them next to it (docs/img/job-card.blocks.json);
 * test/readme-picture.test.ts fails when the renderer's output differs from that file (the picture
 * is stale), and test/demo/demo.test.ts fails when the demo's real card differs from this sample
 * apart from dates (the inputs here are stale).
 */

import { failureCodes, loadFailureCodes, setFailureCodes } from '../../src/api/error-codes.js';
import { blockRenderer } from '../../src/slack/features/watch/render-card.js';
import { subscriptionId } from '../../src/watch/subscriptions.js';
import type { ChannelMessage, JobSummary, Subscription } from '../../src/watch/types.js';
import { DEMO_JOB_FAILURE_CODES } from './failure-codes.js';

/** The time shown on the sample card (registered and updated). */
export const SAMPLE_TIME_MS = Date.UTC(2026, 10, 25, 7, 20);

export interface SampleCard {
  card: ChannelMessage;
  reply: ChannelMessage;
}

/** The failed job as the demo's step "A job completes and another fails" leaves it. */
export function sampleCardInputs(): { job: JobSummary; sub: Subscription } {
  // The demo workspace's ids (dev/demo/stack.ts demoWorkspace), written out so the check of the
  // picture loads the renderer only, not the demo's stack.
  const ws = { teamId: 'T0DEMO001', channel: 'C0RELEASES', member: 'U0MEMBER1' };
  const filters = { statuses: ['DM500', 'DM600'] as JobSummary['status'][], mode: 'all' as const };
  const sub: Subscription = {
    id: subscriptionId(ws.channel, 'DEMO', filters),
    workspace: ws.teamId,
    channelId: ws.channel,
    siteId: 'DEMO',
    createdBy: ws.member,
    createdAt: new Date(SAMPLE_TIME_MS).toISOString(),
    ...filters,
  };
  const job: JobSummary = {
    workspace: ws.teamId,
    siteId: 'DEMO',
    jobId: 1086,
    contentId: 'feature-2026-final',
    status: 'DM600',
    regTimeMs: SAMPLE_TIME_MS,
    updateTimeMs: SAMPLE_TIME_MS,
    tasks: {
      total: 2,
      ready: 0,
      progressing: 0,
      completed: 1,
      failed: 1,
      failures: [{ dwmId: 10062, recipient: 'Crunchyroll.JP', status: 'TK005', cliErrorCode: '3' }],
    },
  };
  return { job, sub };
}

/** The card and its thread reply, as the bot renders them (with the demo's JOB_FAILURE_CODES). */
export function sampleCard(): SampleCard {
  const { job, sub } = sampleCardInputs();
  const before = failureCodes();
  setFailureCodes(loadFailureCodes(DEMO_JOB_FAILURE_CODES));
  try {
    return {
      card: blockRenderer.renderJobCard(job, sub),
      reply: blockRenderer.renderThreadUpdate({ kind: 'final', summary: job, broadcast: false }, sub),
    };
  } finally {
    setFailureCodes(before);
  }
}

/** Slack date tokens replaced by one placeholder: what differs between two runs of the demo. */
export function withoutDates<T>(x: T): T {
  if (x === undefined) return x;
  return JSON.parse(JSON.stringify(x).replace(/<!date\^[^>]*>/g, '<!date>')) as T;
}

/** The messages drawn in the picture, stored next to it (compared by test/readme-picture.test.ts). */
export const BLOCKS_FILE = 'docs/img/job-card.blocks.json';

export function blocksFileText(sample: SampleCard): string {
  return `${JSON.stringify(sample, null, 2)}\n`;
}
