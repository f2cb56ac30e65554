/**
 * The kit's shared pieces of lists and forms: Previous / Next (same labels on every list),
 * the "Showing" line, the one file name of a job's task export, inline form errors.
 */
import { describe, expect, it } from 'vitest';
import {
  countedPaging,
  pagingButtons,
  showingLine,
  svcPaging,
} from '../../../../src/slack/kit/blocks/paging.js';
import { fieldErrors, issueErrors } from '../../../../src/slack/kit/interactions/form-errors.js';
import { jobTasksFilename } from '../../../../src/slack/shared/jobs/export.js';

describe('paging buttons', () => {
  it('Previous then Next, with their action ids and values', () => {
    const { buttons, unpageable } = pagingButtons({
      prev: 1,
      next: 3,
      action: 'x_page',
      value: (p) => `v${p}`,
    });
    expect(unpageable).toBe(false);
    expect(buttons.map((b) => [b.text.text, b.action_id, b.value])).toEqual([
      ['Previous', 'x_page_prev', 'v1'],
      ['Next', 'x_page_next', 'v3'],
    ]);
  });

  it('no Previous on the first page, no Next on the last; the separator is kept', () => {
    expect(
      pagingButtons({ next: 1, action: 'w', separator: '-', value: String }).buttons.map((b) => b.action_id),
    ).toEqual(['w-next']);
    expect(pagingButtons({ prev: 0, action: 'w', value: String }).buttons.map((b) => b.text.text)).toEqual([
      'Previous',
    ]);
    expect(pagingButtons({ action: 'w', value: String }).buttons).toEqual([]);
  });

  it('a page whose value cannot be built leaves its button out and says so', () => {
    const r = pagingButtons({ prev: 1, next: 3, action: 'x', value: (p) => (p === 3 ? undefined : 'ok') });
    expect(r.buttons.map((b) => b.text.text)).toEqual(['Previous']);
    expect(r.unpageable).toBe(true);
  });

  it('a Service API page: Previous from page 2, Next while there is more', () => {
    expect(svcPaging({ page: 1, hasMore: true }, 'a', String)).toMatchObject({ prev: undefined, next: 2 });
    expect(svcPaging({ page: 4, hasMore: false }, 'a', String)).toMatchObject({ prev: 3, next: undefined });
  });

  it('a list with a total: Previous from page 2, Next before the last page', () => {
    expect(countedPaging(1, 3, 'a', String)).toMatchObject({ prev: undefined, next: 2 });
    expect(countedPaging(3, 3, 'a', String)).toMatchObject({ prev: 2, next: undefined });
  });

  it('the Showing line counts from the page', () => {
    expect(showingLine(2, 20, 20, 1234, 62)).toBe('Showing 21–40 of 1,234 · page 2 of 62');
  });
});

describe('job task export', () => {
  it('has one file name: job-<site>-<job>-tasks.csv', () => {
    expect(jobTasksFilename('DEMO', 4812)).toBe('job-DEMO-4812-tasks.csv');
  });
});

describe('inline form errors', () => {
  it('issues go to their field block (fallback otherwise); a block shows its first issue', () => {
    const issues = [
      { field: 'site', message: 'bad site' },
      { field: 'site', message: 'second' },
      { field: 'unknown', message: 'elsewhere' },
    ];
    expect(issueErrors(issues, { site: 'b_site' }, 'b_main')).toEqual({
      b_site: 'bad site',
      b_main: 'elsewhere',
    });
  });

  it('an issue that names a step shows its command, not the words for logs', () => {
    const issues = [
      {
        field: 'member',
        message: 'Member number 9 is not valid: use the number shown by the members command.',
        sentence: {
          before: 'Member number 9 is not valid: use the number shown by ',
          step: { do: 'members' as const },
          after: '.',
        },
      },
    ];
    expect(issueErrors(issues, { member: 'b_member' }, 'b_main')).toEqual({
      b_member: 'Member number 9 is not valid: use the number shown by /drm members.',
    });
  });

  it('field errors go to their blocks; empty ones are left out', () => {
    expect(fieldErrors({ a: 'x', b: undefined }, { a: 'block_a', b: 'block_b' })).toEqual({ block_a: 'x' });
  });
});

describe('site options', () => {
  it('/dwm and /drm read site: with the one site-id pattern: a bad id is a correction, not a lookup', async () => {
    const { parseArgs, tokenize } = await import('../../../../src/slack/kit/commands/parse.js');
    const { wmSiteOption } = await import('../../../../src/slack/shared/wm/values.js');
    const { siteOption } = await import('../../../../src/slack/shared/svc/support.js');
    for (const site of [wmSiteOption, siteOption]) {
      expect(parseArgs(tokenize('site:DEMO'), { site }).values.site).toBe('DEMO');
      expect(() => parseArgs(tokenize('site:DEMO-PROD'), { site })).toThrow(/4 letters or digits/);
    }
  });
});
