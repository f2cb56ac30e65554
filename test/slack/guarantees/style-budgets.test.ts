/**
 * The style guide's budgets (/work/shared/notes/slack-style.md), counted on the real blocks as
 * Slack lays them out (test/support/lines.ts: fields in two columns, long lines wrapped), so a
 * later change cannot grow an everyday message back unnoticed. Also: every message's top-level
 * text (what notifications and screen readers read) is a sentence that stands alone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_JOB_FAILURE_CODES } from '../../../dev/demo/failure-codes.js';
import { loadFailureCodes, setFailureCodes } from '../../../src/api/error-codes.js';
import { ServiceError, TransportError } from '../../../src/api/errors.js';
import type {
  AlertSubscription,
  DigestSchedule,
  LicenseAlert,
  RequestOutcomeNotice,
  WindowStats,
} from '../../../src/notices/types.js';
import { toMemberView } from '../../../src/ops/service/members.js';
import { allowedActions, type PlanState, toRequestView } from '../../../src/ops/service/plan.js';
import type { SetupStatus } from '../../../src/ops/setup.js';
import {
  alertsListMessage,
  licenseAlertMessage,
  mutedMessage,
  stoppedMessage,
  subscribedMessage,
} from '../../../src/slack/features/alerts/render.js';
import {
  digestMessage,
  digestNowMessage,
  stoppedMessage as digestStoppedMessage,
  scheduledMessage,
  scheduleMessage,
} from '../../../src/slack/features/digest/render.js';
import {
  dataTableMessage,
  exportDoneMessage,
  exportProgressMessage,
  exportStartedMessage,
  packagingMessage,
} from '../../../src/slack/features/drm-data/render.js';
import { registry } from '../../../src/slack/features/index.js';
import { memberAddedMessage, membersMessage } from '../../../src/slack/features/members/render.js';
import { planCard } from '../../../src/slack/features/plan/render.js';
import { recipientListMessage } from '../../../src/slack/features/recipients/render.js';
import { setupStatusMessage } from '../../../src/slack/features/setup/render.js';
import {
  siteRequestedMessage,
  siteRequestsMessage,
  sitesMessage,
} from '../../../src/slack/features/sites/render.js';
import {
  renderDigest,
  renderJobCard,
  renderThreadUpdate,
} from '../../../src/slack/features/watch/render-card.js';
import type { Message } from '../../../src/slack/kit/blocks/blocks.js';
import { groupHelp, unknownCommand } from '../../../src/slack/kit/commands/help.js';
import { tokenize } from '../../../src/slack/kit/commands/parse.js';
import { renderError } from '../../../src/slack/kit/context/errors.js';
import {
  registerProgressMessage,
  registerReportMessage,
} from '../../../src/slack/shared/registration/report.js';
import { requestOutcomeCard, requestOutcomeDm } from '../../../src/slack/shared/requests/outcome.js';
import type { JobSummary, Subscription, TaskFailure } from '../../../src/watch/types.js';
import { sampleDigest } from '../../support/digest-fixture.js';
import { fakeContext } from '../../support/fake-context.js';
import { blockLines, countLines, shown, textLines, visibleText } from '../../support/lines.js';

const T = Date.UTC(2026, 10, 22, 9, 0, 0);
const sub: Subscription = {
  id: 'sub_0123456789abcdef',
  workspace: 'T1',
  channelId: 'C0RELEASES',
  siteId: 'EMU1',
  statuses: [],
  mode: 'all',
  createdBy: 'U0CREATOR',
  createdAt: new Date(T).toISOString(),
};
const failure = (i: number, cliErrorCode = '3'): TaskFailure => ({
  dwmId: 1001 + i,
  recipient: `recipient-${i}`,
  status: 'TK005',
  cliErrorCode,
});
function job(over: Partial<JobSummary> = {}): JobSummary {
  return {
    workspace: 'T1',
    siteId: 'EMU1',
    jobId: 1086,
    contentId: 'feature-final',
    status: 'DM600',
    regTimeMs: T,
    updateTimeMs: T + 60_000,
    tasks: { total: 2, ready: 0, progressing: 0, completed: 1, failed: 1, failures: [failure(0)] },
    ...over,
  };
}
const completed = job({
  status: 'DM500',
  tasks: { total: 2, ready: 0, progressing: 0, completed: 2, failed: 0, failures: [] },
});

/** Fails with the message as a reader sees it, so the diff says what grew. */
function withinBudget(m: Message, budget: number) {
  const n = countLines(m);
  expect(n, `${n} lines (budget ${budget}):\n${shown(m)}`).toBeLessThanOrEqual(budget);
}

/** A top-level text that stands alone: a sentence (capital or code first, full stop), no markup. */
function standsAlone(m: Message) {
  expect(m.text, m.text).toMatch(/^[A-Z0-9/]/);
  expect(m.text, m.text).toMatch(/[.?!]$/);
  expect(m.text).not.toMatch(/:[a-z_]+:/);
  expect(m.text).not.toContain('*');
}

describe('the line counter', () => {
  it('lays fields out in two columns and wraps long lines', () => {
    const fields = {
      type: 'section',
      fields: ['*A*\n1', '*B*\n2', '*C*\n3'].map((text) => ({ type: 'mrkdwn', text })),
    } as never;
    expect(blockLines(fields)).toBe(4); // two rows of two lines
    expect(textLines('x'.repeat(200), 90)).toBe(3);
    expect(textLines('a\n\nb', 90)).toBe(3);
    expect(visibleText('*Job* `1` <!date^1^{date}|Nov 22> <https://x|label> :red_circle:')).toBe(
      'Job 1 Nov 22 label ◼',
    );
    expect(countLines({ text: 'x', blocks: [{ type: 'actions', elements: [{}, {}] } as never] })).toBe(1);
  });
});

describe('job notifications', () => {
  // Code 3 has words here as an operator's JOB_FAILURE_CODES gives them (the bot ships none).
  beforeEach(() => setFailureCodes(loadFailureCodes(DEMO_JOB_FAILURE_CODES)));
  afterEach(() => setFailureCodes(loadFailureCodes('')));

  it('a failed job whose code has no words: still at most 8 lines, the status once', () => {
    setFailureCodes(loadFailureCodes(''));
    const m = renderJobCard(job(), sub);
    withinBudget(m, 8);
    const seen = shown(m);
    expect(seen.match(/\bfailed\b|ERROR/g)?.length).toBe(1);
    expect(seen).toContain('unknown (3)');
  });

  it('a failed job with one failed recipient: at most 8 lines, the status once, no zero counters, the code once', () => {
    const m = renderJobCard(job(), sub);
    withinBudget(m, 8);
    const seen = shown(m);
    expect(seen.split('\n')[0]).toContain('Job 1086 · feature-final failed: 1 of 2 recipients');
    expect(seen.match(/\bfailed\b|ERROR/g)?.length).toBe(1);
    expect(seen).not.toMatch(/: 0\b|\b0 (in progress|ready|failed)/);
    expect(seen.match(/\(3\)/g)?.length).toBe(1);
    expect(seen).toContain('[Details] [Export CSV]');
    expect(m.text).toBe('Job 1086 (feature-final) failed: 1 of 2 recipients.');
  });

  it('failures sharing a code name the code once', () => {
    const many = job({
      tasks: {
        total: 9,
        ready: 0,
        progressing: 0,
        completed: 4,
        failed: 5,
        failures: [0, 1, 2, 3, 4].map((i) => failure(i)),
      },
    });
    const m = renderJobCard(many, sub);
    withinBudget(m, 8);
    expect(shown(m).match(/\(3\)/g)?.length).toBe(1);
    expect(shown(m)).toContain('recipient-0, recipient-1, recipient-2 and 2 more');
  });

  it('a completed job is one line plus its buttons', () => {
    const m = renderJobCard(completed, sub);
    withinBudget(m, 2);
    expect(m.blocks?.at(-1)?.type).toBe('actions');
    standsAlone(m);
  });

  it('a job in progress shows only the counters that are not zero', () => {
    const m = renderJobCard(
      job({
        status: 'DM001',
        tasks: { total: 3, ready: 2, progressing: 0, completed: 1, failed: 0, failures: [] },
      }),
      sub,
    );
    withinBudget(m, 4);
    expect(shown(m)).toContain('is preprocessing: 1 of 3 recipients done');
    expect(shown(m)).not.toContain('0 in progress');
    standsAlone(m);
  });

  it('a thread reply carries only what changed, never a copy of the card', () => {
    const j = job();
    const card = shown(renderJobCard(j, sub));
    const replies = [
      renderThreadUpdate({ kind: 'status', summary: j, previous: 'DM001' }, sub),
      renderThreadUpdate({ kind: 'task-failed', summary: j, failure: failure(0) }, sub),
      renderThreadUpdate({ kind: 'final', summary: j, broadcast: false }, sub),
      renderThreadUpdate({ kind: 'progress', summary: j }, sub),
    ];
    expect(shown(replies[0]!)).toBe('◼ PREPROCESSING → ◼ ERROR');
    for (const r of replies) {
      withinBudget(r, 2);
      standsAlone(r);
      // The card's what-to-do line is on the card only.
      expect(shown(r)).not.toContain('Check that the content file');
    }
    expect(card).toContain('Check that the content file');
  });

  it('a burst digest lists at most 10 jobs, failures first, then "and N more"', () => {
    const jobs = [
      completed,
      ...Array.from({ length: 14 }, (_, i) => ({ ...completed, jobId: 2000 + i })),
      job(),
    ];
    const m = renderDigest({ siteId: 'EMU1', jobs, completed: 15, failed: 1 }, sub);
    withinBudget(m, 13);
    const lines = shown(m).split('\n');
    expect(lines[1]).toContain('Job 1086 · feature-final failed');
    expect(shown(m)).toContain('…and 6 more');
    standsAlone(m);
  });
});

describe('corrections and help', () => {
  it('a typo answers in at most 3 lines, with a button that runs the suggestion', () => {
    const r = registry.resolve('/dwm', tokenize('jbos status:error'));
    if (r.kind !== 'unknown') throw new Error(r.kind);
    const m = unknownCommand(registry, '/dwm', r.path, r.word, r.suggestions, {
      workspace: 'T1',
      rest: r.rest,
    });
    withinBudget(m, 3);
    expect(shown(m)).toContain('No jbos command. Did you mean /dwm jobs?');
    const section = m.blocks?.[0] as { accessory?: { text: { text: string }; value: string } };
    expect(section.accessory?.text.text).toBe('Run /dwm jobs status:error');
    standsAlone(m);
  });

  for (const command of ['/dwm', '/drm'] as const) {
    it(`a member's ${command} help fits one screen and lists no admin-only command`, async () => {
      const ctx = fakeContext({ command, role: 'member' });
      await registry.dispatch(ctx, 'help');
      const m = ctx.replies[0]!.msg;
      withinBudget(m, 30);
      const seen = shown(m);
      for (const e of registry.entries(command).filter((x) => x.role === 'admin'))
        expect(seen.split('\n')).not.toContain(
          expect.stringMatching(new RegExp(`^${command} ${e.path.join(' ')} `)),
        );
      expect(seen).toMatch(/Admins have \d+ more commands/);
      // One line per command: no option syntax in the list.
      expect(seen).not.toMatch(/<[a-z ]+>\]?$/m);
      standsAlone(m);
    });

    it(`an admin's ${command} help shows the admin-only commands in their own section`, () => {
      const m = groupHelp(registry, command, [], 'admin');
      expect(shown(m)).toContain('Admins only');
      expect(shown(m)).toContain(`${command} setup audit-channel`);
    });
  }
});

describe('lookups, outages and reports', () => {
  const opts = { refId: 'ref-1', command: '/dwm' };

  it('a lookup that found nothing: at most 3 lines, in words', () => {
    const m = renderError(
      '/dwm recipient failed',
      new ServiceError('wm.getRecipient', 'E2004', 'not found'),
      opts,
    );
    withinBudget(m, 3);
    standsAlone(m);
  });

  it('a read that cannot reach the service: at most 3 lines, a sentence', () => {
    const m = renderError('/dwm jobs failed', new TransportError('wm.searchJobs', '503', 503, 4), opts);
    withinBudget(m, 3);
    standsAlone(m);
  });

  const counts = {
    registered: 4,
    alreadyRegistered: 1,
    registeredMeanwhile: 0,
    duplicatesInInput: 0,
    invalid: 2,
    failed: 0,
    outstanding: 0,
    batchesTotal: 1,
    batchesDone: 1,
    batchesFailed: 0,
  };
  const summary = {
    id: '0b7f4c1e-5d1a-4f3e-9a61-3c2d1e0f9a8b',
    siteId: 'DEMO',
    status: 'completed' as const,
    counts,
    failedBatches: [],
    rows: 7,
    needsCsv: false,
  };

  it('a registration report is one sentence, counters only when not zero, no internals', () => {
    const m = registerReportMessage({ summary, report: { registered: [], failed: [] }, csvAttached: false });
    expect(m.text).toBe('Registered 4 recipients on DEMO. Skipped 3: 1 already registered, 2 invalid lines.');
    withinBudget(m, 2);
    expect(JSON.stringify(m)).not.toMatch(/0b7f4c1e|[Bb]atch|restart/);
  });

  it('registration progress says how many, without batch numbers, ids or restart talk', () => {
    const m = registerProgressMessage({
      ...summary,
      status: 'running' as never,
      counts: { ...counts, registered: 1, outstanding: 3 },
    });
    expect(m.text).toBe('Registering recipients on DEMO: 1 of 4 registered so far.');
    withinBudget(m, 3);
    expect(JSON.stringify(m)).not.toMatch(/0b7f4c1e|[Bb]atch|restart/);
  });
});

describe('notifications and replies a channel reads every day: the text stands alone', () => {
  const alertSub: AlertSubscription = {
    id: 'alrt_0123456789abcdef',
    workspace: 'T1',
    channelId: 'C0123ABC',
    siteId: 'AB12',
    ratioPct: 20,
    minRequests: 20,
    windowMinutes: 15,
    createdBy: 'U0CREATOR',
    createdAt: new Date(T - 86_400_000).toISOString(),
  };
  const stats: WindowStats = {
    siteId: 'AB12',
    fromMs: T - 15 * 60_000,
    toMs: T,
    total: 40,
    failed: 13,
    ratio: 13 / 40,
    topErrors: [{ key: '1003', count: 9 }],
    topContent: [{ key: 'movie-trailer-01', count: 10 }],
    topDevices: [{ key: 'Pixel 8', count: 13 }],
    truncated: false,
  };
  const spike = (over: Partial<Extract<LicenseAlert, { kind: 'spike' }>> = {}): LicenseAlert => ({
    kind: 'spike',
    subscription: alertSub,
    startedAt: T - 60_000,
    stats,
    peakRatio: 0.4,
    state: 'ongoing',
    ...over,
  });

  it('license alerts: each form within its budget, its text a sentence', () => {
    const forms: Array<[Message, number]> = [
      [licenseAlertMessage(spike(), 'UTC'), 9],
      [licenseAlertMessage(spike({ mutedUntil: T + 3_600_000, mutedBy: 'U0CREATOR' }), 'UTC'), 10],
      [licenseAlertMessage(spike({ state: 'recovered', recoveredAt: T }), 'UTC'), 8],
      [licenseAlertMessage(spike({ state: 'stopped', stoppedBy: 'U0STOP', stoppedAt: T }), 'UTC'), 12],
      [
        licenseAlertMessage(
          {
            kind: 'recovery',
            subscription: alertSub,
            startedAt: T - 60_000,
            recoveredAt: T,
            stats,
            peakRatio: 0.4,
          },
          'UTC',
        ),
        5,
      ],
    ];
    for (const [m, budget] of forms) {
      withinBudget(m, budget);
      standsAlone(m);
    }
    // The ongoing alert's buttons: the window's failures, mute, stop.
    expect(shown(forms[0]![0])).toContain('[Show failed licenses] [Mute 1 h] [Stop these alerts]');
  });

  it('the alerts commands and buttons answer in sentences', () => {
    const created = { status: 'created' as const, subscription: alertSub };
    const item = { subscription: alertSub, state: { spikeOpen: true, spikeStartedAt: T, mutedUntil: T } };
    const msgs = [
      subscribedMessage(created, 'U0CREATOR'),
      alertsListMessage('C0123ABC', [], 'UTC'),
      alertsListMessage('C0123ABC', [item], 'UTC'),
      stoppedMessage('C0123ABC', { removed: [alertSub], refused: [] }, '<@U0ADMIN>'),
      stoppedMessage('C0123ABC', { removed: [], refused: [alertSub] }, '<@U0ADMIN>'),
      stoppedMessage('C0123ABC', { removed: [], refused: [] }, '<@U0ADMIN>'),
      mutedMessage('C0123ABC', 'AB12', { status: 'muted', subscription: alertSub, until: T }, '', 'UTC'),
      mutedMessage('C0123ABC', 'AB12', { status: 'refused', subscription: alertSub }, '<@U0ADMIN>', 'UTC'),
      mutedMessage('C0123ABC', 'AB12', { status: 'gone' }, '', 'UTC'),
    ];
    for (const m of msgs) {
      withinBudget(m, 8);
      standsAlone(m);
    }
  });

  it('the daily digest and its commands answer in sentences', () => {
    const schedule: DigestSchedule = {
      id: 'C0123ABC',
      workspace: 'T1',
      channelId: 'C0123ABC',
      time: '09:00',
      zone: 'Asia/Seoul',
      createdBy: 'U0CREATOR',
      createdAt: new Date(T).toISOString(),
    };
    const view = { schedule, next: { at: T + 86_400_000, day: '2026-11-23' } };
    const msgs = [
      digestMessage(sampleDigest()),
      scheduledMessage({ ...view, status: 'created' }, 'U0CREATOR'),
      scheduleMessage('C0123ABC', view),
      scheduleMessage('C0123ABC', undefined),
      digestStoppedMessage('C0123ABC', schedule),
      digestStoppedMessage('C0123ABC', undefined),
      digestNowMessage('C0123ABC'),
    ];
    withinBudget(msgs[0]!, 18);
    for (const m of msgs) standsAlone(m);
  });

  it('request outcomes: the DM and the card say the outcome in words, in a sentence', () => {
    const base: RequestOutcomeNotice = {
      kind: 'plan',
      requestId: 'RG1',
      siteId: 'AB12',
      serviceCode: 'PD001',
      serviceLabel: 'DRM',
      requestType: 'SM001',
      requestLabel: 'Trial extension',
      outcome: 'approved',
      status: 'ST003',
      statusLabel: 'Approved',
      requestedBy: 'U0ASKER',
      requestedAt: T - 3_600_000,
      decidedAt: T,
    };
    const notices: RequestOutcomeNotice[] = [
      base,
      { ...base, outcome: 'cancelled', status: 'ST004', statusLabel: 'Cancelled', cancelledBy: 'U0OTHER' },
      { ...base, outcome: 'superseded', supersededBy: 'RG2' },
      { ...base, kind: 'site', siteName: 'Second site', requestLabel: 'Additional site' },
    ];
    for (const n of notices) {
      for (const m of [requestOutcomeDm(n, 'UTC'), requestOutcomeCard(n, 'UTC')]) {
        withinBudget(m, 5);
        standsAlone(m);
        expect(shown(m)).not.toContain('ST003');
      }
    }
  });
});

/** The top-level texts of `msgs` that do not stand alone (the check of standsAlone, all at once). */
function notAlone(msgs: Message[]): string[] {
  return msgs
    .map((m) => m.text)
    .filter((t) => !/^[A-Z0-9/]/.test(t) || !/[.?!]$/.test(t) || /:[a-z_]+:/.test(t) || t.includes('*'));
}

describe('lists and cards: the text stands alone', () => {
  const meta = { workspace: 'T1', userId: 'U1', atMs: T, refId: 'r', timeZone: 'UTC' };
  const empty = { items: [], page: 1, pageSize: 20, hasMore: false };

  it('sites and plan cards', () => {
    const latest = toRequestView({
      siteId: 'DEMO',
      requestId: 'RG1',
      type: 'SM001',
      message: 'x',
      status: 'ST001',
      registeredBy: 'demo-service',
      regTime: { raw: '', epochMs: T },
      updateTime: { raw: '', epochMs: T },
    });
    const plan: PlanState = {
      siteId: 'DEMO',
      serviceCode: 'PD001',
      serviceLabel: 'DRM',
      latest,
      actions: allowedActions(latest, { productStatus: 'SE000' }),
    };
    const msgs = [
      sitesMessage(
        [
          {
            siteId: 'DEMO',
            name: 'Demo',
            products: [
              {
                serviceCode: 'PD001',
                label: 'DRM',
                status: 'SE000',
                statusLabel: 'In service',
                inService: true,
              } as never,
            ],
          },
        ],
        meta,
      ),
      siteRequestedMessage({ seq: 7, name: 'Second site' }, meta),
      siteRequestsMessage(empty, {}, meta),
      planCard(plan, { ...meta, audience: 'admin' }),
      planCard(plan, { ...meta, audience: 'member' }),
    ];
    expect(notAlone(msgs)).toEqual([]);
  });

  it('members, recipients, DRM data lists and the setup status', () => {
    const members = {
      ...empty,
      items: [
        toMemberView({
          groupName: 'Ops',
          groupSeq: 4242,
          memberSeq: 7,
          email: 'a@example.com',
          status: 'MT001',
          regDate: '2026-01-01',
        }),
      ],
    };
    const status: SetupStatus = {
      configured: true,
      source: 'store',
      readOnly: false,
      siteIds: ['AB12'],
      defaultSiteId: 'AB12',
      verifiedAt: '2026-01-02T03:04:05.000Z',
      savedBy: 'U1',
    } as never;
    const table = { ...meta, siteId: 'AB12' };
    const msgs = [
      membersMessage(members, meta),
      membersMessage(empty, meta),
      memberAddedMessage({ email: 'a@example.com', memberSeq: 7 } as never, meta),
      recipientListMessage({
        siteId: 'AB12',
        workspace: 'T1',
        items: [],
        totalCount: 0,
        pageIndex: 1,
        pageUnit: 10,
        filters: {},
        timeZone: 'UTC',
      }),
      ...(['licenses', 'users', 'devices', 'cids'] as const).map((k) =>
        dataTableMessage(k, empty, {}, table),
      ),
      packagingMessage([], null, table),
      exportStartedMessage('licenses', 'AB12'),
      exportProgressMessage('AB12', undefined),
      exportProgressMessage('AB12', { kind: 'licenses', pages: 2, rows: 400 }),
      exportDoneMessage(
        'AB12',
        { kind: 'licenses', rowCount: 400, pages: 2, truncated: false, filename: 'licenses.csv' } as never,
        {},
      ),
      setupStatusMessage(status, 'UTC', true),
      setupStatusMessage({ configured: false, readOnly: false, siteIds: [] }, 'UTC', true),
    ];
    expect(notAlone(msgs)).toEqual([]);
  });
});
