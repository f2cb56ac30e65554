import { afterEach, describe, expect, it } from 'vitest';
import { createApi } from '../../src/api/index.js';
import { serviceCallErrors, serviceCallSeconds } from '../../src/metrics.js';
import { fakeSleep, json, ok, startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function value(metric: typeof serviceCallErrors, labels: Record<string, string>): Promise<number> {
  const m = await metric.get();
  return (
    m.values.find((v) =>
      Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
    )?.value ?? 0
  );
}

describe('service call metrics', () => {
  it('records latency per attempt and one error per failed call, by kind', async () => {
    server = await startServer((r, res) =>
      r.url.includes('/token/') ? ok(res, { token: 'Bearer t' }) : json(res, {}, 503),
    );
    const api = createApi({ sleep: fakeSleep().sleep, retries: { max: 2 } });
    const wm = api.watermarking({ accountId: 'a', accessKey: 'k', baseUrl: server.url });
    const errorsBefore = await value(serviceCallErrors, { endpoint: 'wm.getJob', kind: 'transport' });
    const hist = async () =>
      (await serviceCallSeconds.get()).values.find(
        (v) => v.labels.endpoint === 'wm.getJob' && v.metricName?.endsWith('_count'),
      )?.value ?? 0;
    const countBefore = await hist();
    await expect(wm.getJob('AB12', 1)).rejects.toThrow(/HTTP 503/);
    expect(await value(serviceCallErrors, { endpoint: 'wm.getJob', kind: 'transport' })).toBe(
      errorsBefore + 1,
    );
    expect(await hist()).toBe(countBefore + 3);
    await api.close();
  });
});
