/**
 * Which hosts the bot talks to and how much it reads: the pure address classifier, the
 * allow-list policy, its end-to-end refusal in the HTTP layer (a loopback origin that is not
 * allowed, 127.0.0.9, never sees a connection), the response size cap, the one deadline per call
 * (a server dripping bytes) and closing idle pools. Loopback only; no timed assertions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyAddress, type LookupFn } from '../../src/api/addresses.js';
import { TransportError } from '../../src/api/errors.js';
import { HttpClient, OriginRefusedError } from '../../src/api/http.js';
import { canonicalOrigin, OriginPolicy, parseAllowedOrigin } from '../../src/api/origins.js';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('classifyAddress (pure: no DNS, no connection)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.0.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['localhost', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['0.0.0.0', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['192.0.0.192', 'metadata'],
    // IPv6 forms carrying an IPv4 address are the IPv4 address they carry.
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['[64:FF9B:0:0:0:0:A9FE:A9FE]', 'metadata'],
    ['64:ff9b:1::a9fe:a9fe', 'metadata'],
    ['::a9fe:a9fe', 'metadata'],
    ['::169.254.169.254', 'metadata'],
    ['::ffff:0:a9fe:a9fe', 'metadata'],
    ['::ffff:0:169.254.169.254', 'metadata'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['::', 'private'],
    ['172.32.0.1', 'public'],
    ['8.8.8.8', 'public'],
    ['2001:4860::8888', 'public'],
    ['wm.example.com', 'name'],
  ])('%s is %s', (host, cls) => {
    expect(classifyAddress(host)).toBe(cls);
  });
});

describe('OriginPolicy', () => {
  const policy = new OriginPolicy({
    configured: ['https://wm.example.com/wm', 'http://127.0.0.1:4010/svc', undefined],
    allowed: ['https://api.example.com:8443', 'http://10.0.0.5:8080'],
  });

  it('allows the configured base URLs (with their scheme) and the listed origins', () => {
    expect(policy.check('https://WM.example.com:443/other/path?q=1')).toBeNull();
    expect(policy.check('http://127.0.0.1:4010/wm')).toBeNull();
    expect(policy.check('https://api.example.com:8443/api')).toBeNull();
    expect(policy.check('http://10.0.0.5:8080')).toBeNull();
    expect(policy.list()).toEqual([
      'http://10.0.0.5:8080',
      'http://127.0.0.1:4010',
      'https://api.example.com:8443',
      'https://wm.example.com:443',
    ]);
  });

  it('refuses other origins, another port, plain http, and metadata addresses even when listed', () => {
    expect(policy.check('https://api.example.com/api')).toMatchObject({
      reason: 'not-listed',
      origin: 'https://api.example.com:443',
    });
    expect(policy.check('https://10.0.0.5:8080')?.message).toBe(
      'Not allowed: add https://10.0.0.5:8080 to UPSTREAM_ALLOWED_ORIGINS, then restart. https://10.0.0.5:8080 (a private-network address) is not an allowed upstream (the configured base URLs are allowed by default).',
    );
    expect(policy.check('http://wm.example.com/wm')).toMatchObject({
      reason: 'http-not-allowed',
      message:
        'Not allowed: use https:// (that origin is allowed), or add http://wm.example.com:80 to UPSTREAM_ALLOWED_ORIGINS, then restart. Plain http to http://wm.example.com:80 is refused unless the operator lists it.',
    });
    const meta = new OriginPolicy({ allowed: ['http://169.254.169.254:80'] });
    expect(meta.check('http://169.254.169.254/latest/meta-data')?.reason).toBe('metadata');
    const nat64 = new OriginPolicy({ allowed: ['http://[64:ff9b::a9fe:a9fe]:80'] });
    expect(nat64.check('http://[64:ff9b::a9fe:a9fe]/latest/meta-data')?.reason).toBe('metadata');
    expect(policy.check('ftp://x')?.reason).toBe('invalid');
  });

  it('never shows a URL path, query or user in a refusal', () => {
    const r = policy.check('https://user:pw@evil.example/p/a/t/h?token=abc');
    expect(r?.message).not.toMatch(/pw|token|abc|\/p\/a/);
  });

  it('parses allow-list entries strictly', () => {
    expect(parseAllowedOrigin('https://A.example')).toEqual({ origin: 'https://a.example:443' });
    expect(parseAllowedOrigin('http://h:8080')).toEqual({ origin: 'http://h:8080' });
    expect(parseAllowedOrigin('http://h')).toMatchObject({ problem: expect.stringMatching(/port/) });
    expect(parseAllowedOrigin('https://h/path')).toMatchObject({
      problem: expect.stringMatching(/origin only/),
    });
    expect(parseAllowedOrigin('h.example')).toMatchObject({ problem: expect.any(String) });
    expect(canonicalOrigin('http://[::1]:99/x')).toBe('http://[::1]:99');
  });
});

describe('config', () => {
  const base = {
    SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
    SLACK_SIGNING_SECRET: 'sign-secret-xyz',
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  };
  it('reads UPSTREAM_* and SERVICE_JWT_TTL_SECONDS with defaults', () => {
    const c = loadConfig(base);
    expect(c.upstream).toEqual({
      allowedOrigins: [],
      maxResponseBytes: 10 * 1024 * 1024,
      callDeadlineMs: 30_000,
    });
    expect(c.serviceJwtTtlSeconds).toBe(300);
    const d = loadConfig({
      ...base,
      UPSTREAM_ALLOWED_ORIGINS: 'https://WM.example.com, http://127.0.0.1:4010',
      UPSTREAM_MAX_RESPONSE_BYTES: '2048',
      UPSTREAM_CALL_DEADLINE_MS: '5000',
      SERVICE_JWT_TTL_SECONDS: '0',
    });
    expect(d.upstream).toEqual({
      allowedOrigins: ['https://wm.example.com:443', 'http://127.0.0.1:4010'],
      maxResponseBytes: 2048,
      callDeadlineMs: 5000,
    });
    expect(d.serviceJwtTtlSeconds).toBe(0);
  });
  it('refuses an allow-list entry with a path or a portless http origin, naming the variable', () => {
    let err: unknown;
    try {
      loadConfig({ ...base, UPSTREAM_ALLOWED_ORIGINS: 'https://ok.example, https://x.example/api' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues[0]?.variable).toBe('UPSTREAM_ALLOWED_ORIGINS');
    expect((err as ConfigError).issues[0]?.message).toMatch(/origin only/);
  });
});

// ---------------------------------------------------------------------------------------------
// End to end on loopback
// ---------------------------------------------------------------------------------------------

const servers: Server[] = [];
const clients: HttpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
});

async function listen(
  host: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  const s = createServer(handler);
  s.on('connection', () => {
    n++;
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, host, r));
  return { url: `http://${host}:${(s.address() as AddressInfo).port}`, connections: () => n };
}

function client(opts: ConstructorParameters<typeof HttpClient>[0]): HttpClient {
  const c = new HttpClient({ retries: 0, ...opts });
  clients.push(c);
  return c;
}

const get = (c: HttpClient, baseUrl: string) =>
  c.request({ endpoint: 't.get', method: 'GET', baseUrl, path: '/x' });

describe('HttpClient: the allow-list in the HTTP layer', () => {
  it('refuses a loopback origin that is not allowed before connecting; allows it once listed', async () => {
    const target = await listen('127.0.0.9', (_req, res) => res.end('{}'));
    const allowed = await listen('127.0.0.1', (_req, res) => res.end('{}'));
    const strict = client({ originPolicy: new OriginPolicy({ configured: [allowed.url] }) });
    expect((await get(strict, `${allowed.url}/wm`)).status).toBe(200);
    const err = await get(strict, `${target.url}/wm`).catch((e) => e);
    expect(err).toBeInstanceOf(OriginRefusedError);
    expect(err.refusal.reason).toBe('http-not-allowed');
    expect(err.issues[0].message).toContain(
      `Not allowed: use https://, or add ${target.url} to UPSTREAM_ALLOWED_ORIGINS`,
    );
    expect(target.connections()).toBe(0);
    expect(strict.openOrigins()).toEqual([allowed.url]);

    const listed = client({ originPolicy: new OriginPolicy({ allowed: [target.url] }) });
    expect((await get(listed, target.url)).status).toBe(200);
    expect(target.connections()).toBe(1);
  });
});

describe('HttpClient: response size cap', () => {
  it('refuses a body above the cap, by Content-Length and while counting a chunked body', async () => {
    const big = Buffer.alloc(64 * 1024, 97);
    const declared = await listen('127.0.0.1', (_req, res) => {
      res.writeHead(200, { 'content-length': String(big.length) });
      res.end(big);
    });
    const chunked = await listen('127.0.0.1', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 8; i++) res.write(big.subarray(0, 8 * 1024));
      res.end();
    });
    const c = client({ maxResponseBytes: 32 * 1024 });
    for (const s of [declared, chunked]) {
      const err = await get(c, s.url).catch((e) => e);
      expect(err).toBeInstanceOf(TransportError);
      expect(err.message).toBe(
        "t.get: the service's answer is larger than the 32 KB limit (UPSTREAM_MAX_RESPONSE_BYTES); it was not read.",
      );
    }
    const fits = client({ maxResponseBytes: 64 * 1024 });
    expect((await get(fits, chunked.url)).text.length).toBe(64 * 1024);
  });
});

describe('HttpClient: one deadline per call', () => {
  it('cuts off a server that drips one byte at a time, each within the body timeout', async () => {
    const timers = new Set<NodeJS.Timeout>();
    const drip = await listen('127.0.0.1', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write(' '), 50);
      timers.add(t);
      res.on('close', () => clearInterval(t));
    });
    const c = client({ deadlineMs: 600, bodyTimeoutMs: 10_000, headersTimeoutMs: 10_000 });
    try {
      const err = await get(c, drip.url).catch((e) => e);
      expect(err).toBeInstanceOf(TransportError);
      expect(err.message).toMatch(/no complete answer within the 0.6 s deadline of one call/);
      expect(err.ambiguous).toBe(true);
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });

  it('covers the retries too: no retry is started that the deadline cannot hold', async () => {
    let hits = 0;
    const failing = await listen('127.0.0.1', (_req, res) => {
      hits++;
      res.writeHead(503, { 'retry-after': '5' });
      res.end();
    });
    const c = client({ retries: 5, deadlineMs: 1000 });
    const err = await get(c, failing.url).catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.status).toBe(503);
    expect(hits).toBe(1);
  });
});

describe('HttpClient: idle pools', () => {
  it('closes the pool of an origin unused for the idle time, keeps the one in use', async () => {
    const a = await listen('127.0.0.1', (_req, res) => res.end('{}'));
    const b = await listen('127.0.0.1', (_req, res) => res.end('{}'));
    const clock = { t: 1_000_000 };
    const c = client({ now: () => clock.t, poolIdleCloseMs: 60_000 });
    await get(c, a.url);
    expect(c.openOrigins()).toEqual([a.url]);
    clock.t += 30_000;
    await get(c, b.url);
    expect(c.openOrigins().sort()).toEqual([a.url, b.url].sort());
    clock.t += 45_000; // a: 75 s idle, b: 45 s
    await get(c, b.url);
    expect(c.openOrigins()).toEqual([b.url]);
  });
});

describe('HttpClient: host names resolving to a metadata address', () => {
  it('refuses the connection after resolving (no socket), a name resolving to loopback works', async () => {
    const target = await listen('127.0.0.1', (_req, res) => res.end('{}'));
    const port = new URL(target.url).port;
    // A fake resolver (no DNS): names ending in .meta.test resolve to the metadata address.
    const resolved: string[] = [];
    const resolve: LookupFn = (hostname, options, cb) => {
      resolved.push(hostname);
      const address = hostname.endsWith('.meta.test') ? '169.254.169.254' : '127.0.0.1';
      if (options.all) cb(null, [{ address, family: 4 }]);
      else cb(null, address, 4);
    };
    const c = client({ resolve });
    const err = await get(c, `http://evil.meta.test:${port}`).catch((e) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toContain('resolves to a cloud metadata address');
    expect(err.ambiguous).toBe(false);
    expect(target.connections()).toBe(0);
    expect((await get(c, `http://svc.local.test:${port}`)).status).toBe(200);
    expect(target.connections()).toBe(1);
    expect(resolved).toEqual(['evil.meta.test', 'svc.local.test']);
  });
});
