/**
 * Watermarking renderers are pure: snapshots of each, hostile strings stay escaped, and every
 * output stays within Block Kit limits (checked with the fake Slack's own validator).
 */
import { describe, expect, it } from 'vitest';
import { validateMessageBlocks, validateView } from '../../../../dev/fakeslack/blocks.js';
import type { Job, JobTask, Recipient } from '../../../../src/api/types.js';
import { summariseJob } from '../../../../src/ops/jobs.js';
import { parseRecipientLines, planRegistration } from '../../../../src/ops/watermarking/registration/plan.js';
import { newReport, summariseReport } from '../../../../src/ops/watermarking/registration/run.js';
import { jobCardMessage, jobListMessage } from '../../../../src/slack/features/jobs/render.js';
import {
  recipientCardMessage,
  recipientEditView,
  recipientListMessage,
  recipientNotFoundMessage,
} from '../../../../src/slack/features/recipients/render.js';
import {
  registerFormView,
  registerPreviewView,
  registerProgressMessage,
  registerReportMessage,
} from '../../../../src/slack/features/register/render.js';

const HOSTILE = '<!channel> *bold* `tick` <@U123> &amp; <https://evil.example|click>';
const HUGE = 'A'.repeat(10_000);
const T = (ms: number) => ({ raw: '2026-01-02 03:04:05', epochMs: ms });
const AT = Date.UTC(2026, 0, 2, 3, 4, 5);

const job = (i: number, contentId = `MOVIE-${i}`): Job => ({
  jobId: 1000 + i,
  contentId,
  status: (['DM000', 'DM001', 'DM500', 'DM600'] as const)[i % 4] ?? 'DM000',
  regTime: T(AT),
  updateTime: T(AT + 60_000),
});
const task = (i: number, over: Partial<JobTask> = {}): JobTask => ({
  dwmId: i,
  recipient: `rcp-${i}`,
  description: '',
  status: 'TK002',
  cliErrorCode: '0',
  failed: false,
  regTime: T(AT),
  updateTime: T(AT),
  ...over,
});
const rcp = (i: number, name = `rcp-${i}`, description = 'd'): Recipient => ({
  dwmId: i,
  name,
  description,
  regTime: T(AT),
  updateTime: T(AT),
});

/** Every string Slack reads as mrkdwn (plain_text is never parsed for mentions or links). */
function mrkdwnOf(x: unknown): string {
  const out: string[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.type === 'plain_text') return;
      if (o.type === 'mrkdwn' && typeof o.text === 'string') out.push(o.text);
      for (const [k, val] of Object.entries(o)) if (k !== 'value') visit(val);
    }
  };
  visit(x);
  if (x && typeof x === 'object' && typeof (x as { text?: unknown }).text === 'string') {
    out.push((x as { text: string }).text);
  }
  return out.join('\n');
}

function noRawHostile(s: string) {
  expect(s).not.toContain('<!channel>');
  expect(s).not.toContain('<@U123>');
  expect(s).not.toContain('<https://evil');
}

describe('jobs renderers', () => {
  it('list: snapshot, paging values, limits', () => {
    const m = jobListMessage({
      siteId: 'DEMO',
      workspace: 'T1',
      jobs: Array.from({ length: 10 }, (_, i) => job(i)),
      totalCount: 95,
      pageIndex: 2,
      pageUnit: 10,
      filters: { statuses: ['DM600'], from: '2026-01-01' },
      timeZone: 'Asia/Seoul',
      meta: { siteId: 'DEMO', userId: 'U1', atMs: AT, refId: 'ref1', timeZone: 'UTC' },
    });
    expect(m).toMatchSnapshot();
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
    const s = JSON.stringify(m);
    expect(s).toContain('95 total');
    expect(s).toContain('wm_jobs_page_prev');
    expect(s).toContain('wm_jobs_page_next');
  });

  it("list of the reader's days: the service's count is named as that of the UTC days asked for, not as theirs", () => {
    const m = jobListMessage({
      siteId: 'DEMO',
      workspace: 'T1',
      jobs: [job(1)],
      totalCount: 14,
      pageIndex: 1,
      pageUnit: 10,
      filters: { from: '2026-01-02', to: '2026-01-02' },
      utcDays: { from: '2026-01-01', to: '2026-01-02' },
      timeZone: 'Asia/Seoul',
    });
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
    const s = JSON.stringify(m.blocks);
    expect(s).not.toContain('14 total');
    expect(s).not.toContain('Showing');
    expect(s).toContain('asked for 2026-01-01 to 2026-01-02 UTC (14 jobs)');
    expect(s).toContain('Page 1 of 2');
  });

  it('card: failures first with codes, "and N more", hostile and huge strings escaped and cut', () => {
    const tasks = [
      ...Array.from({ length: 5000 }, (_, i) => task(i + 10)),
      task(3, { status: 'TK005', cliErrorCode: 'E-417', recipient: HOSTILE }),
      task(4, { status: 'TK002', cliErrorCode: '7', recipient: HUGE }),
    ];
    const summary = summariseJob(job(3, HOSTILE), tasks, { limit: 30 });
    const m = jobCardMessage({ summary, workspace: 'T1', siteId: 'DEMO', timeZone: 'UTC' });
    expect(validateMessageBlocks(m.blocks)).toEqual([]);
    const s = JSON.stringify(m.blocks);
    noRawHostile(mrkdwnOf(m));
    expect(s).toContain('&lt;!channel&gt;');
    expect(s.indexOf('E-417')).toBeLessThan(s.indexOf('rcp-10'));
    expect(s).toContain('unknown (`7`)');
    expect(s).toContain('and 4,972 more tasks not shown');
    expect(m.blocks!.length).toBeLessThanOrEqual(50);
  });

  it('card snapshot', () => {
    const summary = summariseJob(job(1), [task(1), task(2, { status: 'TK005', cliErrorCode: 'E-503' })]);
    expect(jobCardMessage({ summary, workspace: 'T1', siteId: 'DEMO', timeZone: 'UTC' })).toMatchSnapshot();
  });
});

describe('recipients renderers', () => {
  it('list and card snapshots; hostile names escaped', () => {
    const list = recipientListMessage({
      siteId: 'DEMO',
      workspace: 'T1',
      items: [rcp(1), rcp(2, HOSTILE, HOSTILE), rcp(3, HUGE, HUGE)],
      totalCount: 3,
      pageIndex: 1,
      pageUnit: 10,
      filters: { keywords: [HOSTILE] },
      timeZone: 'UTC',
    });
    expect(validateMessageBlocks(list.blocks)).toEqual([]);
    noRawHostile(mrkdwnOf(list));
    const card = recipientCardMessage({
      recipient: rcp(2, 'Netflix-EMEA', HOSTILE),
      workspace: 'T1',
      siteId: 'DEMO',
      timeZone: 'UTC',
      typedName: 'netflix-emea',
    });
    expect(validateMessageBlocks(card.blocks)).toEqual([]);
    noRawHostile(mrkdwnOf(card));
    expect(card).toMatchSnapshot();
    expect(
      recipientNotFoundMessage('No recipient named "x" on site DEMO.', [rcp(9, 'xy')]),
    ).toMatchSnapshot();
  });

  it('edit view is valid and prefilled', () => {
    const v = recipientEditView(rcp(5, 'Sky-UK', 'UK'), 'DEMO', '{"w":"T1"}');
    expect(validateView(v)).toEqual([]);
    expect(v).toMatchSnapshot();
  });
});

describe('registration renderers', () => {
  it('form view is valid, keeps the text', () => {
    const v = registerFormView({
      text: 'a\nb',
      siteIds: ['DEMO', 'AB12'],
      siteId: 'DEMO',
      keptFile: { name: HOSTILE, lines: 5 },
      problem: HOSTILE,
      privateMetadata: '{}',
    });
    expect(validateView(v)).toEqual([]);
    noRawHostile(mrkdwnOf(v));
    expect(v).toMatchSnapshot();
  });

  it('preview of 10,000 lines with thousands invalid fits a view; "and N more"', async () => {
    const lines = Array.from({ length: 10_000 }, (_, i) =>
      i % 3 === 0 ? `bad name ${i} ${HOSTILE}` : i % 3 === 1 ? `ok-${i}` : `OK-${i - 1}`,
    );
    const plan = await planRegistration(parseRecipientLines(lines.join('\n')), async () => new Map());
    const v = registerPreviewView({ plan, siteId: 'DEMO', source: 'file x.csv', privateMetadata: '{}' });
    expect(validateView(v)).toEqual([]);
    expect(v.blocks.length).toBeLessThanOrEqual(100);
    const s = JSON.stringify(v.blocks);
    noRawHostile(mrkdwnOf(v));
    expect(s).toContain('Line 1:');
    expect(s).toMatch(/and 3,\d{3} more invalid lines/);
    expect(v.submit?.text).toBe(`Register ${plan.counts.toRegister}`);
  });

  it('preview with nothing to register has no submit', async () => {
    const plan = await planRegistration(parseRecipientLines('bad name'), async () => new Map());
    const v = registerPreviewView({ plan, siteId: 'DEMO', source: 'typed', privateMetadata: '{}' });
    expect(v.submit).toBeUndefined();
    expect(v).toMatchSnapshot();
  });

  it('progress and report messages', async () => {
    const plan = await planRegistration(
      parseRecipientLines(Array.from({ length: 400 }, (_, i) => `n-${i}`).join('\n')),
      async () => new Map(),
    );
    const report = newReport(plan, 'DEMO', 'rep-1', new Date(AT).toISOString());
    const progress = registerProgressMessage(summariseReport(report));
    expect(validateMessageBlocks(progress.blocks)).toEqual([]);
    expect(progress).toMatchSnapshot();
    report.status = 'completed';
    report.batches[0]!.state = 'done';
    report.batches[1]!.state = 'failed';
    report.batches[1]!.error = { kind: 'service', code: 'E1001', message: HOSTILE };
    report.registered = plan.batches[0]!.map((e, i) => ({
      line: e.line,
      name: e.name,
      dwmId: i + 1,
      batch: 0,
      reconciled: false,
    }));
    report.failed = plan.batches[1]!.map((e) => ({
      line: e.line,
      name: e.name,
      batch: 1,
      kind: 'service',
      code: 'E1001',
      message: HOSTILE,
    }));
    const s = summariseReport(report);
    const msg = registerReportMessage({ summary: s, report, csvAttached: s.needsCsv });
    expect(validateMessageBlocks(msg.blocks)).toEqual([]);
    const text = JSON.stringify(msg.blocks);
    noRawHostile(mrkdwnOf(msg));
    expect(text).toMatch(/150 names refused: .*(`E1001`)/);
    expect(msg).toMatchSnapshot();
  });
});
