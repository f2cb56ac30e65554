/** Snapshot and limit tests of the watch renderers (pure functions of data). */
import { describe, expect, it } from 'vitest';
import { validateMessageBlocks, validateView } from '../../../../dev/fakeslack/index.js';
import type { JobSummary as OpsJobSummary } from '../../../../src/ops/jobs.js';
import { summariseJob } from '../../../../src/ops/jobs.js';
import {
  blockRenderer,
  parseJobRef,
  renderDigest,
  renderJobCard,
  renderOutageNotice,
  renderThreadUpdate,
} from '../../../../src/slack/features/watch/render-card.js';
import { jobDetailsMessage } from '../../../../src/slack/features/watch/render-details.js';
import {
  adminAlertNotice,
  inviteMessage,
  pausedNotice,
  subscribedMessage,
  unwatchedMessage,
  watchesMessage,
  watchIssuesMessage,
  watchModal,
} from '../../../../src/slack/features/watch/render-subscriptions.js';
import { parseWatchArgs } from '../../../../src/watch/subscriptions.js';
import type { JobSummary, Subscription, TaskFailure } from '../../../../src/watch/types.js';

const T = Date.UTC(2026, 10, 22, 9, 0, 0);
const HOSTILE = '<!channel> *bold* <@U123> &amp; `tick` <https://evil.example|click>';
const LONG = 'x'.repeat(10_000);
const ADMIN = { audience: 'admin', userId: 'U0ADMIN' } as const;

const sub: Subscription = {
  id: 'sub_0123456789abcdef',
  workspace: 'T1',
  channelId: 'C0123ABC',
  siteId: 'AB12',
  statuses: [],
  mode: 'all',
  createdBy: 'U0CREATOR',
  createdAt: new Date(T).toISOString(),
};

function summary(over: Partial<JobSummary> = {}): JobSummary {
  return {
    workspace: 'T1',
    siteId: 'AB12',
    jobId: 4812,
    contentId: 'movie-trailer-01',
    status: 'DM001',
    regTimeMs: T,
    updateTimeMs: T + 60_000,
    tasks: { total: 3, ready: 1, progressing: 1, completed: 1, failed: 0, failures: [] },
    ...over,
  };
}

function failures(n: number, recipient = (i: number) => `user-${i}`): TaskFailure[] {
  return Array.from({ length: n }, (_, i) => ({
    dwmId: 1000 + i,
    recipient: recipient(i),
    status: 'TK005',
    cliErrorCode: 'E-417',
  }));
}

/** Everything Slack would refuse, plus text-level checks. */
function assertValid(m: { text: string; blocks?: unknown[] }) {
  expect(validateMessageBlocks(m.blocks ?? [])).toEqual([]);
  expect(m.text.length).toBeLessThanOrEqual(40_000);
  const all = JSON.stringify(m);
  expect(all).not.toContain('<!channel>');
  expect(all).not.toContain('<@U123>');
  expect(all).not.toContain('<https://evil');
}

describe('job card', () => {
  it('in progress', () => {
    const m = renderJobCard(summary(), sub);
    assertValid(m);
    expect(m).toMatchSnapshot();
  });

  it('a task list the service capped (total_count above the tasks listed) says "N of M tasks shown"', () => {
    const capped = renderJobCard(
      summary({
        tasks: {
          total: 3,
          ready: 1,
          progressing: 1,
          completed: 1,
          failed: 0,
          failures: [],
          reportedTotal: 40,
        },
      }),
      sub,
    );
    assertValid(capped);
    expect(JSON.stringify(capped.blocks)).toContain('3 of 40 tasks shown');
    expect(JSON.stringify(renderJobCard(summary(), sub).blocks)).not.toContain('tasks shown');
  });

  it('outage notices: delayed with the reason, resumed with the catch-up', () => {
    const delayed = renderOutageNotice(
      {
        kind: 'delayed',
        siteId: 'AB12',
        sinceMs: T,
        reason: 'the watermarking service answers with a server error (HTTP 503)',
      },
      sub,
    );
    assertValid(delayed);
    expect(JSON.stringify(delayed.blocks)).toContain(
      'are delayed: the watermarking service answers with a server error (HTTP 503)',
    );
    const resumed = renderOutageNotice(
      {
        kind: 'resumed',
        siteId: 'AB12',
        sinceMs: T,
        reason: 'x',
        endedMs: T + 3600_000,
        caughtUp: { changes: 2, finished: 1 },
      },
      sub,
    );
    assertValid(resumed);
    expect(JSON.stringify(resumed.blocks)).toContain('Caught up: 2 job changes (1 finished)');
  });

  it('a job the service sent without a content id says so in its title and fallback', () => {
    const m = renderJobCard(summary({ contentId: '' }), sub);
    expect(JSON.stringify(m.blocks)).toContain('(no content id)');
    expect(m.text).toContain('(no content id)');
  });
  it('failed, with failed recipients and their codes', () => {
    const m = renderJobCard(
      summary({
        status: 'DM600',
        tasks: { total: 4, ready: 0, progressing: 0, completed: 2, failed: 2, failures: failures(2) },
      }),
      sub,
    );
    assertValid(m);
    const text = JSON.stringify(m.blocks);
    expect(text).toContain('failed: 2 of 4 recipients');
    expect(text).toContain('user-1');
    expect(text).toContain('E-417');
    expect(text).toContain('watch-job-details');
    expect(text).toContain('watch-job-export');
    expect(m).toMatchSnapshot();
  });

  it('5,000 failed recipients: what fits, "and N more", Export CSV, within limits', () => {
    const m = renderJobCard(
      summary({
        status: 'DM600',
        tasks: { total: 5000, ready: 0, progressing: 0, completed: 0, failed: 5000, failures: failures(20) },
      }),
      sub,
    );
    assertValid(m);
    const text = JSON.stringify(m.blocks);
    expect(text).toContain('failed: 5000 of 5000 recipients');
    expect(text).toContain('…and 4980 more');
    expect(text).toContain('Export CSV');
  });

  it('hostile and 10,000-character strings stay escaped and within limits', () => {
    const j = summary({
      contentId: HOSTILE + LONG,
      status: 'DM600',
      tasks: {
        total: 20,
        ready: 0,
        progressing: 0,
        completed: 0,
        failed: 20,
        failures: failures(20, () => HOSTILE + LONG).map((f) => ({ ...f, cliErrorCode: HOSTILE })),
      },
    });
    for (const m of [
      renderJobCard(j, sub),
      renderThreadUpdate({ kind: 'final', summary: j, broadcast: true }, sub),
      renderThreadUpdate({ kind: 'task-failed', summary: j, failure: j.tasks!.failures[0]! }, sub),
      renderDigest(
        { siteId: 'AB12', jobs: Array.from({ length: 60 }, () => j), completed: 0, failed: 60 },
        sub,
      ),
    ]) {
      assertValid(m);
      expect(JSON.stringify(m)).toContain('&lt;!channel&gt;');
    }
  });
});

describe('thread updates and digest', () => {
  it('status change, progress, task failure, final (broadcast and not)', () => {
    const j = summary();
    const out = [
      renderThreadUpdate({ kind: 'status', summary: j, previous: 'DM000' }, sub),
      renderThreadUpdate({ kind: 'progress', summary: j }, sub),
      renderThreadUpdate({ kind: 'task-failed', summary: j, failure: failures(1)[0]! }, sub),
      renderThreadUpdate({ kind: 'final', summary: summary({ status: 'DM500' }), broadcast: true }, sub),
      renderThreadUpdate({ kind: 'final', summary: summary({ status: 'DM500' }), broadcast: false }, sub),
    ];
    for (const m of out) assertValid(m);
    expect(JSON.stringify(out[3]?.blocks)).toContain('watch-job-details');
    expect(JSON.stringify(out[4]?.blocks)).not.toContain('watch-job-details');
    expect(out).toMatchSnapshot();
  });

  it('digest lists failures first and counts the rest', () => {
    const jobs = Array.from({ length: 40 }, (_, i) =>
      summary({ jobId: 100 + i, contentId: `ep-${i}`, status: i % 10 === 9 ? 'DM600' : 'DM500' }),
    );
    const m = renderDigest({ siteId: 'AB12', jobs, completed: 36, failed: 4 }, sub);
    assertValid(m);
    const lines = JSON.stringify(m.blocks);
    expect(lines.indexOf('ep-9')).toBeLessThan(lines.indexOf('ep-0'));
    expect(lines).toContain('…and 30 more');
    expect(m.text).toBe('40 jobs finished on site AB12: 36 completed, 4 failed.');
    expect(m).toMatchSnapshot();
  });

  it('the renderer handed to the watcher gives text plus blocks', () => {
    const m = blockRenderer.renderJobCard(summary(), sub);
    expect(m.text).toContain('Job 4812');
    expect(m.blocks?.length).toBeGreaterThan(0);
  });
});

describe('button values', () => {
  it('job reference round-trips and refuses anything else', () => {
    expect(parseJobRef('{"s":"AB12","j":5}')).toEqual({ s: 'AB12', j: 5 });
    expect(parseJobRef('{"s":"AB12","j":-1}')).toBeUndefined();
    expect(parseJobRef('{"s":"../x","j":5}')).toBeUndefined();
    expect(parseJobRef('nope')).toBeUndefined();
    expect(parseJobRef(undefined)).toBeUndefined();
  });
});

describe('subscription messages', () => {
  const many: Subscription[] = Array.from({ length: 45 }, (_, i) => ({
    ...sub,
    id: `sub_${String(i).padStart(16, '0')}`,
    content: i === 0 ? `${LONG}*` : undefined,
    createdAt: new Date(T + i * 1000).toISOString(),
    ...(i === 7 ? { paused: { reason: HOSTILE, code: 'is_archived', at: new Date(T).toISOString() } } : {}),
  })) as Subscription[];

  it('watches: paused first, creator, buttons with a confirm on Unsubscribe, paging, total', () => {
    const m = watchesMessage(many, 'C0123ABC', 0, ADMIN);
    assertValid(m);
    const text = JSON.stringify(m.blocks);
    expect(text).toContain('45 job subscriptions');
    expect(text).toContain('Showing 1–20 of 45');
    expect(text.indexOf('sub_0000000000000007')).toBeLessThan(text.indexOf('sub_0000000000000000'));
    expect(text).toContain('"confirm"');
    expect(text).toContain('watch-resume');
    expect(text).toContain('watch-watches-page-next');
    const last = watchesMessage(many, 'C0123ABC', 2, ADMIN);
    assertValid(last);
    expect(JSON.stringify(last.blocks)).toContain('Showing 41–45 of 45');
    expect(watchesMessage([], 'C0123ABC', 0, ADMIN)).toMatchSnapshot();
    expect(watchesMessage(many.slice(6, 9), 'C0123ABC', 0, ADMIN)).toMatchSnapshot();
  });

  it('subscribed, unwatched, invite, paused notice, admin alert', () => {
    const out = [
      subscribedMessage(
        { ...sub, statuses: ['DM500', 'DM600'], content: 'trailer-*', mode: 'failures' },
        'created',
        'U0CREATOR',
      ),
      unwatchedMessage([sub], [{ ...sub, createdBy: 'U0OTHER' }], '<@U0ADMIN>', 'C0123ABC'),
      inviteMessage('C0123ABC', 'not_member'),
      inviteMessage('C0123ABC', 'archived'),
      pausedNotice(sub, 'is_archived', HOSTILE),
      adminAlertNotice('auth', HOSTILE),
    ];
    for (const m of out) assertValid(m);
    expect(JSON.stringify(out[2])).toContain('/invite @drm-chatops');
    expect(out).toMatchSnapshot();
  });

  it('the form is a valid modal with a short title', () => {
    const v = watchModal({
      workspace: 'T1',
      channelId: 'C0123ABC',
      siteIds: ['AB12', 'CD34'],
      defaultSiteId: 'CD34',
    });
    expect(validateView(v)).toEqual([]);
    expect(v.title.text.length).toBeLessThanOrEqual(24);
    expect(v).toMatchSnapshot();
  });
});

describe('details', () => {
  it('summarises a job with 5,000 tasks within limits', () => {
    const job = {
      jobId: 9,
      contentId: HOSTILE,
      status: 'DM600' as const,
      regTime: { raw: '2026-11-22 09:00:00', epochMs: T },
      updateTime: { raw: '2026-11-22 09:05:00', epochMs: T + 300_000 },
    };
    const tasks = Array.from({ length: 5000 }, (_, i) => ({
      dwmId: i + 1,
      recipient: i % 2 ? `r-${i}` : HOSTILE,
      description: '',
      status: (i % 3 === 0 ? 'TK005' : 'TK002') as 'TK005' | 'TK002',
      cliErrorCode: i % 3 === 0 ? 'E-1' : '0',
      failed: i % 3 === 0,
      regTime: job.regTime,
      updateTime: job.updateTime,
    }));
    const s: OpsJobSummary = summariseJob(job, tasks, { limit: 20 });
    const m = jobDetailsMessage('AB12', s);
    assertValid(m);
    expect(JSON.stringify(m.blocks)).toContain('of 5000: use *Export CSV*');
  });
});

describe('watch usage errors', () => {
  it('name the site option as help does (site:<site id>), escaped, and escape what the user typed', () => {
    const parsed = parseWatchArgs(['bogus:<!channel>', 'mode:<@U1>']);
    expect(parsed.issues.map((i) => i.message).join(' ')).toContain('use site:<site id>,');
    const m = watchIssuesMessage(parsed.issues);
    const j = JSON.stringify(m);
    expect(j).toContain('[site:&lt;site id&gt;]');
    expect(j).not.toContain('<site id>');
    expect(j).not.toContain('<!channel>');
    expect(j).not.toContain('<@U1>');
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
  });
});
