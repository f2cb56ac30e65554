import { afterEach, describe, expect, it } from 'vitest';
import { TransportError } from '../../src/api/errors.js';
import { parseRetryAfter } from '../../src/api/http/retry.js';
import { buildTarget } from '../../src/api/http/target.js';
import { HttpClient } from '../../src/api/http.js';
import { captureLogger, fakeSleep, json, ok, startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

function mk(opts: ConstructorParameters<typeof HttpClient>[0] = {}) {
  const fs = fakeSleep();
  client = new HttpClient({ sleep: fs.sleep, random: () => 0.5, ...opts });
  return { client, delays: fs.delays };
}

const get = (c: HttpClient, baseUrl: string, path = '/x') =>
  c.request({ endpoint: 'test.get', method: 'GET', baseUrl, path });

describe('buildTarget', () => {
  it('keeps a base path prefix and encodes repeated and signed params', () => {
    const t = buildTarget('http://127.0.0.1:4010/wm/', '/api/job/AB12', {
      job_status: ['DM000', 'DM001'],
      time_zone: '+09:00',
      skip: undefined,
    });
    expect(t.origin).toBe('http://127.0.0.1:4010');
    expect(t.path).toBe('/wm/api/job/AB12?job_status=DM000&job_status=DM001&time_zone=%2B09%3A00');
  });
  it('encodes a space as %20 (a "+" is read as a plus sign by a URI decoder) and a plus as %2B', () => {
    const t = buildTarget('http://127.0.0.1:4010/svc', '/api/v2/drm/license', {
      search_keyword: 'Galaxy S24 Ultra',
      cid: 'a+b',
    });
    expect(t.path).toBe('/svc/api/v2/drm/license?search_keyword=Galaxy%20S24%20Ultra&cid=a%2Bb');
  });
  it('refuses a non-http base URL', () => {
    expect(() => buildTarget('ftp://x/', '/a')).toThrow(/http/);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', 0)).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
  it('takes the first of repeated headers, refuses negative or odd values, and caps', () => {
    expect(parseRetryAfter(['2', '9'], 0)).toBe(2000);
    expect(parseRetryAfter(' 1.5 ', 0)).toBe(1500);
    expect(parseRetryAfter('-5', 0)).toBeUndefined();
    expect(parseRetryAfter('12345', 0)).toBe(12_345_000);
    expect(parseRetryAfter('', 0)).toBeUndefined();
    expect(parseRetryAfter([], 0)).toBeUndefined();
    expect(parseRetryAfter('86400', 0, 900_000)).toBe(900_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Fri, 01 Jan 2027 00:00:00 GMT', now, 900_000)).toBe(900_000);
  });
});

describe('HttpClient retries', () => {
  it('retries a GET on 5xx with jittered backoff and then succeeds', async () => {
    server = await startServer((_r, res, n) => (n < 3 ? json(res, {}, 503) : ok(res, { v: 1 })));
    const { client, delays } = mk({ backoffBaseMs: 100, backoffMaxMs: 1000 });
    const res = await get(client, server.url);
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(3);
    expect(server.seen).toHaveLength(3);
    // full jitter with random()=0.5: 0.5*100, 0.5*200
    expect(delays).toEqual([50, 100]);
  });

  it('caps the exponential ceiling at backoffMaxMs', async () => {
    server = await startServer((_r, res) => json(res, {}, 500));
    const { client, delays } = mk({ retries: 5, backoffBaseMs: 100, backoffMaxMs: 300, random: () => 0.999 });
    await expect(get(client, server.url)).rejects.toBeInstanceOf(TransportError);
    expect(delays).toHaveLength(5);
    for (const d of delays) expect(d).toBeLessThan(300);
    expect(delays[4]).toBe(Math.floor(0.999 * 300));
  });

  it('gives up after the retries with a TransportError carrying status and attempts', async () => {
    server = await startServer((_r, res) => json(res, {}, 502));
    const { client } = mk({ retries: 2 });
    const err = await get(client, server.url).catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.status).toBe(502);
    expect(err.attempts).toBe(3);
    expect(server.seen).toHaveLength(3);
  });

  it('honours Retry-After seconds on 429 inline up to the cap', async () => {
    server = await startServer((_r, res, n) =>
      n === 1
        ? json(res, {}, 429, { 'retry-after': '7' })
        : n === 2
          ? json(res, {}, 503, { 'retry-after': '20' })
          : ok(res, {}),
    );
    const { client, delays } = mk({ retryAfterCapMs: 20_000 });
    await get(client, server.url);
    expect(delays).toEqual([7000, 20_000]);
  });

  it('a Retry-After longer than the inline cap is not retried early: the error carries it (capped)', async () => {
    server = await startServer((_r, res) => json(res, {}, 429, { 'retry-after': '3600' }));
    const { client, delays } = mk({ retryAfterCapMs: 20_000, retryAfterMaxMs: 600_000 });
    const err = await get(client, server.url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).status).toBe(429);
    expect((err as TransportError).retryAfterMs).toBe(600_000);
    expect(delays).toEqual([]);
    expect(server.seen).toHaveLength(1);
  });

  it('the error after the last retry carries the last Retry-After (seconds or HTTP date), or none', async () => {
    const now = Date.parse('2026-03-01T10:00:00Z');
    server = await startServer((_r, res, n) =>
      json(res, {}, 429, { 'retry-after': n < 3 ? '2' : 'Sun, 01 Mar 2026 10:00:09 GMT' }),
    );
    const { client, delays } = mk({ retries: 2, now: () => now });
    const err = (await get(client, server.url).catch((e: unknown) => e)) as TransportError;
    expect(err.attempts).toBe(3);
    expect(delays).toEqual([2000, 2000]);
    expect(err.retryAfterMs).toBe(9000);
    await server.close();
    server = await startServer((_r, res) => json(res, {}, 429));
    const plain = (await get(client, server.url).catch((e: unknown) => e)) as TransportError;
    expect(plain.status).toBe(429);
    expect(plain.retryAfterMs).toBeUndefined();
  });

  it('honours Retry-After as an HTTP date', async () => {
    const now = Date.parse('2026-03-01T10:00:00Z');
    server = await startServer((_r, res, n) =>
      n === 1 ? json(res, {}, 429, { 'retry-after': 'Sun, 01 Mar 2026 10:00:04 GMT' }) : ok(res, {}),
    );
    const { client, delays } = mk({ now: () => now });
    await get(client, server.url);
    expect(delays).toEqual([4000]);
  });

  it('never retries a POST; a 5xx is ambiguous, a 429 is not', async () => {
    server = await startServer((_r, res) => json(res, {}, 503));
    const { client, delays } = mk();
    const err = await client
      .request({
        endpoint: 't.post',
        method: 'POST',
        baseUrl: server.url,
        path: '/p',
        body: { kind: 'json', value: {} },
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.ambiguous).toBe(true);
    expect(server.seen).toHaveLength(1);
    expect(delays).toEqual([]);

    server.setHandler((_r, res) => json(res, {}, 429));
    const err2 = await client
      .request({
        endpoint: 't.put',
        method: 'PUT',
        baseUrl: server.url,
        path: '/p',
        body: { kind: 'json', value: {} },
      })
      .catch((e) => e);
    expect(err2.status).toBe(429);
    expect(err2.ambiguous).toBe(false);
    expect(server.seen).toHaveLength(2);
  });

  it('retries a GET when the connection is dropped; a dropped POST is ambiguous and not retried', async () => {
    server = await startServer((_r, res, n) => {
      if (n === 1 || n === 3) res.socket?.destroy();
      else ok(res, {});
    });
    const { client } = mk();
    const res = await get(client, server.url);
    expect(res.status).toBe(200);
    expect(server.seen).toHaveLength(2);
    const err = await client
      .request({
        endpoint: 't.post',
        method: 'POST',
        baseUrl: server.url,
        path: '/p',
        body: { kind: 'json', value: { a: 1 } },
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.status).toBeUndefined();
    expect(err.ambiguous).toBe(true);
    expect(server.seen).toHaveLength(3);
  });

  it('times out waiting for headers and retries the GET', async () => {
    server = await startServer(() => {
      /* never answers */
    });
    const { client } = mk({ headersTimeoutMs: 150, retries: 1 });
    const err = await get(client, server.url).catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toMatch(/timed out/);
    expect(err.ambiguous).toBe(true);
    expect(server.seen).toHaveLength(2);
  });

  it('a refused connection is not ambiguous', async () => {
    const s = await startServer((_r, res) => ok(res, {}));
    const url = s.url;
    await s.close();
    const { client } = mk({ retries: 1 });
    const err = await get(client, url).catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.ambiguous).toBe(false);
    expect(err.attempts).toBe(2);
  });

  it('returns a 404 without retrying', async () => {
    server = await startServer((_r, res) => json(res, { error: 'nope' }, 404));
    const { client } = mk();
    const res = await get(client, server.url);
    expect(res.status).toBe(404);
    expect(server.seen).toHaveLength(1);
  });

  it('sends JSON and form bodies with their content types, and keeps the base path', async () => {
    server = await startServer((_r, res) => ok(res, {}));
    const { client } = mk();
    await client.request({
      endpoint: 't',
      method: 'POST',
      baseUrl: `${server.url}/svc`,
      path: '/api/v2/x',
      query: { api_code: 'A1' },
      body: { kind: 'json', value: { a: 'b' } },
    });
    await client.request({
      endpoint: 't',
      method: 'PUT',
      baseUrl: `${server.url}/svc/`,
      path: '/api/v2/y',
      body: { kind: 'form', value: { a: 'b c', d: '+1' } },
    });
    expect(server.seen[0]?.url).toBe('/svc/api/v2/x?api_code=A1');
    expect(server.seen[0]?.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(server.seen[0]?.body.toString() ?? '')).toEqual({ a: 'b' });
    expect(server.seen[1]?.url).toBe('/svc/api/v2/y');
    expect(server.seen[1]?.headers['content-type']).toMatch(/x-www-form-urlencoded/);
    expect(server.seen[1]?.body.toString()).toBe('a=b+c&d=%2B1');
  });

  it('logs endpoint/status at debug but never headers', async () => {
    server = await startServer((_r, res, n) => (n === 1 ? json(res, {}, 500) : ok(res, {})));
    const cap = captureLogger();
    const { client } = mk({ logger: cap.logger });
    await client.request({
      endpoint: 'wm.searchJobs',
      method: 'GET',
      baseUrl: server.url,
      path: '/x',
      headers: { authorization: 'Bearer very-secret-token-value' },
    });
    const out = cap.text();
    expect(out).toContain('wm.searchJobs');
    expect(out).toContain('"status":500');
    expect(out).not.toContain('very-secret-token-value');
    expect(out).not.toMatch(/authorization/i);
  });
});
