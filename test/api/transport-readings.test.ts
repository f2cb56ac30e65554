/** How the API layer reads a transport failure for its callers (the Slack layer says it in words). */
import { describe, expect, it } from 'vitest';
import { apiOfEndpoint, isBusy, isUnavailable, TransportError } from '../../src/api/errors.js';

const failed = (status: number | undefined) => new TransportError('wm.jobs.list', 'failed', status, 1);

describe('transport failure readings', () => {
  it('no answer, 429 and 5xx mean unavailable (try later); a 4xx does not; 429 alone is busy', () => {
    expect([undefined, 429, 500, 503].map((s) => isUnavailable(failed(s)))).toEqual([true, true, true, true]);
    expect([400, 404, 413].map((s) => isUnavailable(failed(s)))).toEqual([false, false, false]);
    expect([429, 503, undefined].map((s) => isBusy(failed(s)))).toEqual([true, false, false]);
  });

  it('an endpoint name says which API it belongs to', () => {
    expect(apiOfEndpoint('wm.jobs.list')).toBe('wm');
    expect(apiOfEndpoint('svc.getSites')).toBe('svc');
    expect(apiOfEndpoint('doctor.wm')).toBeUndefined();
  });
});
