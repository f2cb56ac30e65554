/**
 * Job card buttons carry the card's workspace and a click from another
 * workspace is refused; channel messages never mention the watch's creator (no notification on
 * every card).
 */
import { describe, expect, it } from 'vitest';
import { registry } from '../../../../src/slack/features/index.js';
import { detailsButton, exportButton } from '../../../../src/slack/features/watch/job-buttons.js';
import {
  jobRefValue,
  parseJobRef,
  renderDigest,
  renderJobCard,
  renderThreadUpdate,
  WATCH_ACTIONS,
} from '../../../../src/slack/features/watch/render-card.js';
import { registerInteractions } from '../../../../src/slack/kit/interactions/listeners.js';
import type { JobSummary, Subscription } from '../../../../src/watch/types.js';
import { captureApp, fakeClient, memoryDeps } from '../../../support/slack-app.js';

const sub: Subscription = {
  id: 'sub_0123456789abcdef',
  workspace: 'T1',
  channelId: 'C0123ABC',
  siteId: 'DEMO',
  statuses: [],
  mode: 'all',
  createdBy: 'U0CREATOR',
  createdAt: '2026-11-22T09:00:00Z',
};
const job: JobSummary = {
  workspace: 'T1',
  siteId: 'DEMO',
  jobId: 7,
  contentId: 'c1',
  status: 'DM600',
  regTimeMs: 0,
  updateTimeMs: 0,
  tasks: { total: 1, ready: 0, progressing: 0, completed: 0, failed: 1, failures: [] },
};

describe('job card values', () => {
  it('carry w, s and j; old values without w are still read', () => {
    expect(parseJobRef(jobRefValue('T1', 'DEMO', 7))).toEqual({ w: 'T1', s: 'DEMO', j: 7 });
    expect(parseJobRef('{"s":"DEMO","j":7}')).toEqual({ s: 'DEMO', j: 7 });
    expect(parseJobRef('{"w":"<!here>","s":"DEMO","j":7}')).toBeUndefined();
  });

  it('channel messages name the watch (channel and what is watched), with no bare ids and no mention', () => {
    const msgs = [
      renderJobCard(job, sub),
      renderThreadUpdate({ kind: 'final', summary: job, broadcast: true } as never, sub),
      renderDigest({ siteId: 'DEMO', jobs: [job], completed: 0, failed: 1 } as never, sub),
    ];
    for (const m of msgs) {
      const text = JSON.stringify(m);
      expect(text).not.toContain('<@');
      expect(text).not.toContain('U0CREATOR');
      expect(text).not.toContain(sub.id);
      expect(text).toContain(`Watch of <#${sub.channelId}>: site`);
    }
  });
});

describe('job card buttons', () => {
  async function click(value: string) {
    const calls: string[] = [];
    const deps = await memoryDeps({
      wm: {
        getJob: async () => {
          calls.push('getJob');
          throw new Error('stop here');
        },
        getJobTasks: async () => {
          calls.push('getJobTasks');
          throw new Error('stop here');
        },
      },
    });
    const cap = captureApp();
    registerInteractions(cap.app, deps, [detailsButton, exportButton], registry);
    const replies: string[] = [];
    const log: string[] = [];
    await cap.action(WATCH_ACTIONS.details)({
      ack: async () => undefined,
      body: {
        type: 'block_actions',
        team: { id: 'T1' },
        user: { id: 'U1' },
        channel: { id: 'C1' },
        response_url: 'https://hooks.slack.com/actions/x',
        actions: [{ action_id: WATCH_ACTIONS.details, value }],
      },
      context: { teamId: 'T1' },
      client: fakeClient(log),
      respond: async (m: unknown) => {
        replies.push(JSON.stringify(m));
      },
    });
    await deps.store.close?.();
    return { calls, replies };
  }

  it("refuses a click from another workspace's card without calling the service", async () => {
    const r = await click(jobRefValue('T2', 'DEMO', 7));
    expect(r.calls).toEqual([]);
    expect(r.replies.join('\n')).toContain('belongs to another workspace');
  });

  it("acts on the same workspace's card", async () => {
    const r = await click(jobRefValue('T1', 'DEMO', 7));
    expect(r.calls.length).toBeGreaterThan(0);
  });
});
