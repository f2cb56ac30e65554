import { afterEach, describe, expect, it } from 'vitest';
import { AuthError } from '../../src/api/errors.js';
import { createApi } from '../../src/api/index.js';
import { MAX_AUTH_RETRIES } from '../../src/api/wm-token.js';
import { json, ok, startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
let api: ReturnType<typeof createApi> | undefined;
afterEach(async () => {
  await api?.close();
  await server?.close();
  api = undefined;
  server = undefined;
});

const creds = (baseUrl: string) => ({ accountId: 'acct', accessKey: 'k3y-s3cret', baseUrl });

/** A fake WM service: token N is "Bearer tok-N"; only the latest token is accepted. */
async function tokenServer(opts: { withScheme?: boolean; refuseAll?: boolean } = {}) {
  let issued = 0;
  let tokenCalls = 0;
  const s = await startServer((req, res) => {
    if (req.url.startsWith('/wm/api/token/')) {
      tokenCalls++;
      const expected = `Basic ${Buffer.from('acct:k3y-s3cret').toString('base64')}`;
      if (req.headers.authorization !== expected) return json(res, {}, 401);
      issued++;
      return ok(res, { token: opts.withScheme === false ? `tok-${issued}` : `Bearer tok-${issued}` });
    }
    if (opts.refuseAll || req.headers.authorization !== `Bearer tok-${issued}`) return json(res, {}, 401);
    return ok(res, { job_id: 1, content_id: 'c1', job_status: 'DM000', reg_time: '', update_time: '' });
  });
  return { s, tokenCalls: () => tokenCalls, expireAll: () => issued++ };
}

describe('watermarking tokens', () => {
  it('sends Basic credentials once and reuses the token', async () => {
    const t = await tokenServer();
    server = t.s;
    api = createApi();
    const wm = api.watermarking(creds(`${server.url}/wm`));
    await wm.getJob('AB12', 1);
    await wm.getJob('AB12', 1);
    expect(t.tokenCalls()).toBe(1);
    expect(server.seen[1]?.headers.authorization).toBe('Bearer tok-1');
  });

  it('adds the Bearer scheme only when missing', async () => {
    const t = await tokenServer({ withScheme: false });
    server = t.s;
    api = createApi();
    await api.watermarking(creds(`${server.url}/wm`)).getJob('AB12', 1);
    expect(server.seen[1]?.headers.authorization).toBe('Bearer tok-1');
  });

  it('on 401 refreshes once for 10 concurrent callers and retries each call', async () => {
    const t = await tokenServer();
    server = t.s;
    api = createApi();
    const wm = api.watermarking(creds(`${server.url}/wm`));
    await wm.verify('AB12');
    t.expireAll(); // the cached token is now refused
    const results = await Promise.all(Array.from({ length: 10 }, () => wm.getJob('AB12', 1)));
    expect(results.every((j) => j.jobId === 1)).toBe(true);
    expect(t.tokenCalls()).toBe(2);
  });

  it('each 401 with a token not refused before refreshes again, bounded; then AuthError', async () => {
    // Every token the server issues is refused: each refresh gives a new token, so the client
    // refreshes again, but at most MAX_AUTH_RETRIES times.
    const t = await tokenServer({ refuseAll: true });
    server = t.s;
    api = createApi();
    const err = await api
      .watermarking(creds(`${server.url}/wm`))
      .getJob('AB12', 1)
      .catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(t.tokenCalls()).toBe(1 + MAX_AUTH_RETRIES);
  });

  it('wrong credentials give an AuthError that does not contain the key', async () => {
    const t = await tokenServer();
    server = t.s;
    api = createApi();
    const err = await api
      .watermarking({ ...creds(`${server.url}/wm`), accessKey: 'wrong-key-123' })
      .verify('AB12')
      .catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(String(err.message)).not.toContain('wrong-key-123');
  });

  it('refreshes proactively after the max age', async () => {
    const t = await tokenServer();
    server = t.s;
    let now = 1_000_000;
    api = createApi({ wmTokenMaxAgeMs: 60_000, clock: () => now });
    const wm = api.watermarking(creds(`${server.url}/wm`));
    await wm.getJob('AB12', 1);
    now += 59_000;
    await wm.getJob('AB12', 1);
    expect(t.tokenCalls()).toBe(1);
    now += 2_000;
    await wm.getJob('AB12', 1);
    expect(t.tokenCalls()).toBe(2);
  });

  it('caches per site', async () => {
    const t = await tokenServer();
    server = t.s;
    api = createApi();
    const wm = api.watermarking(creds(`${server.url}/wm`));
    await wm.verify('AB12');
    await wm.verify('AB12');
    await wm.verify('FILM');
    expect(t.tokenCalls()).toBe(2);
  });
});
