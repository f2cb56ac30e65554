/**
 * Job and task failure codes are shown in plain words with what to do, on every surface that shows
 * one (job card, Details, channel card, thread update, plain-text notifications, CSV); unknown
 * codes read "unknown (CODE)" with a generic next step; JOB_FAILURE_CODES adds and replaces
 * entries through the same loader as SERVICE_ERROR_CODES.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_FAILURE_CODES, DEMO_JOB_FAILURE_CODES } from '../../../../dev/demo/failure-codes.js';
import {
  DEFAULT_FAILURE_CODES,
  explainFailureCode,
  loadErrorCodes,
  loadFailureCodes,
  setFailureCodes,
  UNKNOWN_FAILURE_NEXT,
} from '../../../../src/api/error-codes.js';
import type { Job, JobTask } from '../../../../src/api/types.js';
import { loadConfig } from '../../../../src/config.js';
import { summariseJob, taskCsv } from '../../../../src/ops/jobs.js';
import { jobCardMessage } from '../../../../src/slack/features/jobs/render.js';
import { renderJobCard, renderThreadUpdate } from '../../../../src/slack/features/watch/render-card.js';
import { jobDetailsMessage } from '../../../../src/slack/features/watch/render-details.js';
import { plainRenderer } from '../../../../src/watch/render.js';
import type { JobSummary, Subscription } from '../../../../src/watch/types.js';

const AT = Date.UTC(2026, 0, 2, 3, 4, 5);
const T = { raw: '2026-01-02T03:04:05', epochMs: AT };
const job: Job = { jobId: 77, contentId: 'MOVIE', status: 'DM600', regTime: T, updateTime: T };
const task = (dwmId: number, cliErrorCode: string, status: JobTask['status'] = 'TK005'): JobTask => ({
  dwmId,
  recipient: `rcp-${dwmId}`,
  description: '',
  status,
  cliErrorCode,
  failed: true,
  regTime: T,
  updateTime: T,
});
const sub: Subscription = {
  id: 'sub_0123456789abcdef',
  workspace: 'T1',
  channelId: 'C0123ABC',
  siteId: 'AB12',
  statuses: [],
  mode: 'all',
  createdBy: 'U0CREATOR',
  createdAt: new Date(AT).toISOString(),
};
const watchSummary = (codes: string[]): JobSummary => ({
  workspace: 'T1',
  siteId: 'AB12',
  jobId: 77,
  contentId: 'MOVIE',
  status: 'DM600',
  regTimeMs: AT,
  updateTimeMs: AT,
  tasks: {
    total: codes.length,
    ready: 0,
    progressing: 0,
    completed: 0,
    failed: codes.length,
    failures: codes.map((c, i) => ({ dwmId: i + 1, recipient: `r${i}`, status: 'TK005', cliErrorCode: c })),
  },
});

const all = (x: unknown) => JSON.stringify(x);
const E417 = DEMO_FAILURE_CODES['E-417']!;

// The surfaces are shown with words for their codes as a deployment gives them (the demo's).
beforeEach(() => setFailureCodes(loadFailureCodes(DEMO_JOB_FAILURE_CODES)));
afterEach(() => setFailureCodes(loadFailureCodes('')));

describe('failure code table', () => {
  it('ships no meaning the specs do not give: a real code 3 is unknown, not a made-up cause', () => {
    const shipped = loadFailureCodes('');
    expect(Object.keys(DEFAULT_FAILURE_CODES)).toEqual(['TK005']);
    for (const c of ['3', 'E-417', 'E-503']) {
      expect(explainFailureCode(c, shipped), c).toMatchObject({ known: false, meaning: `unknown (${c})` });
    }
    // The spec's task status FAIL without a code is said as what it is.
    expect(explainFailureCode('TK005', shipped).known).toBe(true);
  });

  it("explains the codes JOB_FAILURE_CODES gives (the demo's), and unknown codes generically", () => {
    for (const c of ['3', 'E-417', 'E-503', 'TK005']) {
      expect(explainFailureCode(c).known, c).toBe(true);
    }
    expect(explainFailureCode(' e-417 ')).toMatchObject({
      code: 'e-417',
      known: true,
      meaning: E417.meaning,
    });
    expect(explainFailureCode('Z-9')).toEqual({
      code: 'Z-9',
      known: false,
      meaning: 'unknown (Z-9)',
      next: UNKNOWN_FAILURE_NEXT,
    });
    // A prototype name is not a code the table knows.
    expect(explainFailureCode('constructor').known).toBe(false);
  });

  it('JOB_FAILURE_CODES adds and replaces entries; a bad value names the setting', () => {
    const t = loadFailureCodes(
      '{"X-1":{"meaning":"disk full","next":"free space"},"E-417":{"meaning":"m","next":"n"}}',
    );
    expect(explainFailureCode('x-1', t)).toMatchObject({
      known: true,
      meaning: 'disk full',
      next: 'free space',
    });
    expect(explainFailureCode('E-417', t)).toMatchObject({ meaning: 'm', next: 'n' });
    expect(explainFailureCode('TK005', t).known).toBe(true);
    expect(() => loadFailureCodes('{nope')).toThrow(/JOB_FAILURE_CODES is not valid JSON/);
    expect(() => loadFailureCodes('{"X":"just text"}')).toThrow(/JOB_FAILURE_CODES must be/);
    // The shared loader keeps the Service API table's messages.
    expect(() => loadErrorCodes('{nope')).toThrow(/SERVICE_ERROR_CODES is not valid JSON/);
  });

  it('is a validated setting', () => {
    const base = {
      SLACK_SIGNING_SECRET: 'sign-secret-xyz',
      SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
    };
    expect(() => loadConfig({ ...base, JOB_FAILURE_CODES: '[1]' })).toThrow(/JOB_FAILURE_CODES/);
    const ok = '{"X-1":{"meaning":"a","next":"b"}}';
    expect(loadConfig({ ...base, JOB_FAILURE_CODES: ok }).jobFailureCodes).toBe(ok);
  });
});

describe('failure codes on every surface', () => {
  const summary = summariseJob(job, [task(1, 'E-417'), task(2, 'Q-77'), task(3, '0', 'TK002')], {
    limit: 10,
  });

  it('job card: meaning next to the code, what to do, unknown (CODE)', () => {
    const m = all(jobCardMessage({ summary, workspace: 'T1', siteId: 'AB12', timeZone: 'UTC' }));
    expect(m).toContain(`${E417.meaning} (\`E-417\`)`);
    expect(m).toContain('What to do');
    expect(m).toContain(E417.next);
    expect(m).toContain('unknown (`Q-77`)');
    expect(m).toContain(UNKNOWN_FAILURE_NEXT.slice(0, 40));
  });

  it('job Details', () => {
    const m = all(jobDetailsMessage('AB12', summary));
    expect(m).toContain(`${E417.meaning} (\`E-417\`)`);
    expect(m).toContain('unknown (`Q-77`)');
    expect(m).toContain(E417.next);
  });

  it('channel card, thread update and plain-text notifications', () => {
    const s = watchSummary(['E-503', 'Q-77']);
    const card = all(renderJobCard(s, sub));
    expect(card).toContain(DEMO_FAILURE_CODES['E-503']!.meaning);
    expect(card).toContain('unknown (`Q-77`)');
    expect(card).toContain(DEMO_FAILURE_CODES['E-503']!.next);
    const failure = s.tasks!.failures[0]!;
    const upd = renderThreadUpdate({ kind: 'task-failed', summary: s, failure }, sub);
    expect(upd.text).toContain(DEMO_FAILURE_CODES['E-503']!.meaning);
    // What to do is on the card, once: the thread reply says only what changed.
    expect(all(upd)).not.toContain(DEMO_FAILURE_CODES['E-503']!.next);
    const plain = plainRenderer.renderThreadUpdate({ kind: 'task-failed', summary: s, failure }, sub);
    expect(plain.text).toContain(DEMO_FAILURE_CODES['E-503']!.meaning);
    const fin = plainRenderer.renderThreadUpdate({ kind: 'final', summary: s, broadcast: false }, sub);
    expect(fin.text).toContain('unknown (`Q-77`)');
  });

  it('a configured code is used by the renderers', () => {
    setFailureCodes(
      loadFailureCodes(
        '{"Q-77":{"meaning":"the watermark server ran out of disk","next":"Free disk space."}}',
      ),
    );
    const m = all(jobCardMessage({ summary, workspace: 'T1', siteId: 'AB12', timeZone: 'UTC' }));
    expect(m).toContain('the watermark server ran out of disk (`Q-77`)');
    expect(m).toContain('Free disk space.');
    expect(m).not.toContain('unknown (`Q-77`)');
  });

  it('CSV export has the meaning and the next step of failed tasks', () => {
    const csv = taskCsv([task(1, 'E-417'), task(3, '0', 'TK002')]);
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toContain('failure_meaning,failure_next_step');
    expect(lines[1]).toContain(E417.meaning);
    expect(lines[2]?.endsWith(',,')).toBe(true);
  });
});
