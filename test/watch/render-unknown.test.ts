import { describe, expect, it } from 'vitest';
import { plainRenderer } from '../../src/watch/render.js';
import type { JobSummary, Subscription, ThreadUpdate } from '../../src/watch/types.js';

describe('plain watch renderer', () => {
  it('a job status the specs do not list reads "unknown (CODE)", never "undefined"', () => {
    const summary = { jobId: 7, siteId: 'DEMO', contentId: 'c', status: 'DM9YY' } as unknown as JobSummary;
    const sub = {} as Subscription;
    const update = { kind: 'status', previous: 'DM9XX', summary } as unknown as ThreadUpdate;
    const text =
      plainRenderer.renderThreadUpdate(update, sub).text + plainRenderer.renderJobCard(summary, sub).text;
    expect(text).toContain('unknown (DM9YY)');
    expect(text).toContain('unknown (DM9XX)');
    expect(text).not.toContain('undefined');
  });
});
