// Pages and envelopes in their usual, clean shape are read without zod (a cheaper path the
// watcher takes at every poll). Whatever path a response takes, the client must give the same
// result: here every clean response is compared with the same response in a tolerated spelling
// (an id as a digit string, error_code as the number 0, an unpadded time zone...), which only zod accepts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JOB_STATUS_CODES, TASK_STATUS_CODES } from '../../src/api/codes.js';
import { decodeEnvelope } from '../../src/api/envelope.js';
import { ProtocolError } from '../../src/api/errors.js';
import type { HttpClient, HttpRequest, HttpResponse } from '../../src/api/http.js';
import type { WatermarkingClient } from '../../src/api/types.js';
import { createWatermarkingClient } from '../../src/api/watermarking.js';
import type { WmTokenManager } from '../../src/api/wm-token.js';

const res = (body: unknown): HttpResponse => ({
  status: 200,
  headers: {},
  text: JSON.stringify(body),
  attempts: 1,
});

/** A client whose every call answers `body` (no network: the HTTP layer is a stub). */
function clientAnswering(body: () => unknown): WatermarkingClient {
  const http = { request: async (_req: HttpRequest) => res(body()) } as unknown as HttpClient;
  const tokens = {
    withToken: <T>(_c: unknown, _s: string, fn: (authorization: string) => Promise<T>) => fn('Bearer t'),
  } as unknown as WmTokenManager;
  return createWatermarkingClient(
    { accountId: 'acc', accessKey: 'AKtest00000000000000000001', baseUrl: 'http://127.0.0.1:1' },
    { http, tokens },
  );
}

const time = fc.oneof(
  fc.constant('2026-11-27T09:15:00'),
  fc.constant('2026-02-29T10:00:00'), // not a date: epochMs null on both paths
  fc.constant(''),
  fc.constant('2026-11-27 09:15:00.123'),
);
const jobItem = fc.record({
  job_id: fc.integer({ min: 1, max: 2 ** 40 }),
  content_id: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
  job_status: fc.constantFrom(...JOB_STATUS_CODES),
  reg_time: time,
  update_time: time,
});
const taskItem = fc.record({
  dwm_id: fc.integer({ min: 1, max: 2 ** 40 }),
  recipient: fc.stringMatching(/^[a-z]{1,8}$/),
  description: fc.oneof(fc.string({ maxLength: 6 }), fc.constant(null)),
  task_status: fc.constantFrom(...TASK_STATUS_CODES),
  cli_error_code: fc.constantFrom('', '0', '0000', 'E12'),
  reg_time: time,
  update_time: time,
});
const envelopeExtras = fc.record(
  {
    time_zone: fc.constantFrom('+00:00', '+09:00', '-05:30'),
    total_count: fc.integer({ min: 0, max: 5000 }),
    error_message: fc.constantFrom('', 'OK'),
  },
  { requiredKeys: [] },
);

/** The same envelope in spellings only the zod path accepts (same meaning). */
function tolerated(env: Record<string, unknown>, idKey: string): Record<string, unknown> {
  const data = (env.data as Array<Record<string, unknown>>).map((item) => ({
    ...item,
    [idKey]: String(item[idKey]),
  }));
  const out: Record<string, unknown> = { ...env, error_code: 0, data };
  if (typeof env.time_zone === 'string') out.time_zone = env.time_zone.replace('+', '');
  if (typeof env.total_count === 'number') out.total_count = String(env.total_count);
  return out;
}

describe('clean pages read without zod give what zod gives', () => {
  it('job pages (searchJobs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(jobItem, { minLength: 1, maxLength: 6 }),
        envelopeExtras,
        async (items, extras) => {
          const clean = { error_code: '0000', ...extras, data: items };
          const fast = await clientAnswering(() => clean).searchJobs('AB12', { pageUnit: 1000 });
          const slow = await clientAnswering(() => tolerated(clean, 'job_id')).searchJobs('AB12', {
            pageUnit: 1000,
          });
          expect(fast).toEqual(slow);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('task lists (getJobTasks)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(taskItem, { minLength: 1, maxLength: 6 }),
        envelopeExtras,
        async (items, extras) => {
          const clean = { error_code: '0000', ...extras, data: items };
          const fast = await clientAnswering(() => clean).getJobTasks('AB12', 7);
          const slow = await clientAnswering(() => tolerated(clean, 'dwm_id')).getJobTasks('AB12', 7);
          expect(fast).toEqual(slow);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('unknown fields are dropped on both paths; an empty or null list is no jobs', async () => {
    const item = {
      job_id: 5,
      content_id: 'c',
      job_status: 'DM000',
      reg_time: '2026-11-27T09:15:00',
      update_time: '',
      extra: { nested: true },
    };
    const page = await clientAnswering(() => ({ error_code: '0000', data: [item] })).searchJobs('AB12');
    expect(Object.keys(page.items[0] ?? {})).toEqual([
      'jobId',
      'contentId',
      'status',
      'regTime',
      'updateTime',
    ]);
    for (const data of [[], null, undefined]) {
      const empty = await clientAnswering(() => ({ error_code: '0000', data })).searchJobs('AB12');
      expect(empty.items).toEqual([]);
    }
  });

  it('a page with one bad item is still refused with the field named (zod decides)', async () => {
    const good = { job_id: 1, content_id: 'a', job_status: 'DM000', reg_time: '', update_time: '' };
    const client = clientAnswering(() => ({
      error_code: '0000',
      data: [good, { ...good, job_id: 1.5 }],
    }));
    const err = await client.searchJobs('AB12').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).message).toContain('data[1].job_id');
  });

  it('an unknown status code takes the tolerant path and is kept', async () => {
    const item = { job_id: 1, content_id: 'a', job_status: 'DM777', reg_time: '', update_time: '' };
    const page = await clientAnswering(() => ({ error_code: '0000', data: [item] })).searchJobs('AB12');
    expect(page.items[0]?.status).toBe('DM777');
  });
});

describe('clean envelopes read without zod give what zod gives', () => {
  it('counts, time zone and message', () => {
    fc.assert(
      fc.property(
        envelopeExtras,
        fc.option(fc.integer({ min: 0, max: 99 }), { nil: undefined }),
        (extras, count) => {
          const clean = {
            error_code: '0000',
            ...extras,
            ...(count === undefined ? {} : { count }),
            data: [],
          };
          const slowBody: Record<string, unknown> = { ...clean, error_code: 0 };
          if (count !== undefined) slowBody.count = String(count);
          const { raw: _a, ...fast } = decodeEnvelope('e', res(clean));
          const { raw: _b, ...slow } = decodeEnvelope('e', res(slowBody));
          expect(fast).toEqual(slow);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('null counts and a null time zone read as absent', () => {
    const env = decodeEnvelope(
      'e',
      res({ error_code: '0000', total_count: null, count: null, time_zone: null }),
    );
    expect(env.totalCount).toBeUndefined();
    expect(env.count).toBeUndefined();
    expect(env.timeZone).toBeUndefined();
  });
});
