/**
 * Services that follow the specs but answer differently from the emulator: each case broke the
 * client before. Loopback test servers only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../src/api/index.js';
import { ok, startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
let api: ReturnType<typeof createApi> | undefined;
afterEach(async () => {
  await api?.close();
  await server?.close();
  api = undefined;
  server = undefined;
});

const wmCreds = (baseUrl: string) => ({ accountId: 'acct', accessKey: 'k3y-s3cret-value', baseUrl });
const job = (o: Record<string, unknown> = {}) => ({
  job_id: 1,
  content_id: 'c',
  job_status: 'DM500',
  reg_time: '2026-11-27T01:02:03',
  update_time: '2026-11-27T01:02:03',
  ...o,
});

describe('paging', () => {
  it('a list without total_count reports its total as unknown (not as the items of the page)', async () => {
    server = await startServer((r, res) => {
      if (r.url.includes('/api/token/')) return ok(res, { token: 'Bearer t' });
      return ok(
        res,
        Array.from({ length: 25 }, (_, i) => job({ job_id: i + 1 })),
      );
    });
    api = createApi({ retries: { max: 0 } });
    const page = await api.watermarking(wmCreds(server.url)).searchJobs('AB12', {});
    expect(page.items).toHaveLength(25);
    expect(page.totalUnknown).toBe(true);
    server.setHandler((r, res) => ok(res, [job()], { total_count: 1 }));
    const counted = await api.watermarking(wmCreds(server.url)).searchJobs('AB12', {});
    expect(counted.totalUnknown).toBeUndefined();
    expect(counted.totalCount).toBe(1);
  });
});
