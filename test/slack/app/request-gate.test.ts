import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayKey } from '../../../src/slack/http-gate.js';
import { signatureHeaders, startTestBot, type TestBot } from '../../harness/index.js';

/** Headers an attacker (or a confused proxy) might send; none of their values may reach the log. */
const NOISY_HEADERS = {
  authorization: 'Bearer gate-test-authorization-value-0123456789',
  cookie: 'session=gate-test-cookie-value-0123456789',
};

describe('request gate: every request answered, nothing stored before the signature is verified', () => {
  let bot: TestBot;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    bot = await startTestBot({ emulator: false });
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    await bot?.close();
  });

  async function post(
    path: string,
    headers: Record<string, string>,
    body = 'token=x&command=%2Fdwm&text=help',
  ) {
    const res = await fetch(`${bot.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
      // A request the server never answers would hang here: the bound turns that into a failure.
      signal: AbortSignal.timeout(5000),
    });
    await res.text();
    return res.status;
  }

  const nowSec = () => Math.floor(Date.now() / 1000);
  const forged = () => ({
    'x-slack-request-timestamp': String(nowSec()),
    'x-slack-signature': 'v0=deadbeef',
  });

  it.each([
    ['/slack/events/', 'forged signature', true],
    ['/healthz', 'forged signature', true],
    ['/readyz', 'no signature', false],
    ['/anything', 'forged signature', true],
    ['/anything', 'no signature', false],
    ['/slack/events/../../etc', 'forged signature', true],
  ])('POST %s with %s gets an HTTP answer (404/405)', async (path, _label, withSig) => {
    const status = await post(path, { ...NOISY_HEADERS, ...(withSig ? forged() : {}) });
    expect([404, 405]).toContain(status);
  });

  it('answers a wrong method on the Slack endpoint with 405', async () => {
    const res = await fetch(`${bot.url}/slack/events`, { signal: AbortSignal.timeout(5000) });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('refuses a forged signature on the Slack endpoint with 401 and claims nothing', async () => {
    const h = forged();
    expect(await post('/slack/events', { ...NOISY_HEADERS, ...h })).toBe(401);
    // No replay claim was made for it: the key is still free.
    const key = replayKey(h['x-slack-request-timestamp'], h['x-slack-signature']);
    expect(await bot.store.leases.acquire(key, 'probe', 1000)).toBe(true);
  });

  it('claims a correctly signed request once: the replay is answered 200 and does nothing', async () => {
    const body = 'token=x&command=%2Fdwm&text=help&team_id=' + bot.ws.teamId;
    const h = signatureHeaders(bot.signingSecret, body, 'valid');
    expect(await post('/slack/events', h, body)).toBe(200);
    const key = replayKey(h['x-slack-request-timestamp']!, h['x-slack-signature']!);
    expect(await bot.store.leases.acquire(key, 'probe', 1000)).toBe(false);
  });

  it('logged neither header values nor request objects, and left no unhandled rejection', async () => {
    const text = bot.logs.text();
    expect(text).not.toContain('gate-test-authorization-value');
    expect(text).not.toContain('gate-test-cookie-value');
    expect(text).not.toContain('"headers"');
    expect(rejections).toEqual([]);
  });
});
