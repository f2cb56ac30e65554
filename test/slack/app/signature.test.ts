import { createHmac } from 'node:crypto';
import { isValidSlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { validSlackSignature } from '../../../src/slack/http-gate.js';

const secret = '8f742231b10e8888abcd99yyyzzz85a5';
const body = 'token=x&team_id=T1&command=%2Fdwm&text=jobs';
const now = Date.UTC(2026, 10, 25, 9, 0, 0);
const sign = (ts: string, b = body, s = secret) =>
  `v0=${createHmac('sha256', s).update(`v0:${ts}:${b}`).digest('hex')}`;
const tsOf = (ms: number) => String(Math.floor(ms / 1000));

/** Bolt's verdict for the same request (the rule the gate's own check must match). */
const bolt = (ts: string, sig: string, b = body) =>
  isValidSlackRequest({
    signingSecret: secret,
    body: b,
    headers: { 'x-slack-signature': sig, 'x-slack-request-timestamp': Number(ts) },
    nowMilliseconds: now,
  });

describe("the gate's Slack signature check agrees with Bolt's", () => {
  const ts = tsOf(now);
  const cases: Array<[string, string, string, string?]> = [
    ['a correct signature', ts, sign(ts)],
    ['a signature made with another secret', ts, sign(ts, body, `${secret}x`)],
    ['a signature of another body', ts, sign(ts, `${body}&x=1`)],
    ['a request 4 minutes old', tsOf(now - 4 * 60_000), sign(tsOf(now - 4 * 60_000))],
    ['a request 6 minutes old (stale)', tsOf(now - 6 * 60_000), sign(tsOf(now - 6 * 60_000))],
    ['an unknown version', ts, sign(ts).replace('v0=', 'v1=')],
    ['a truncated hash', ts, sign(ts).slice(0, 40)],
    ['no hash', ts, 'v0='],
    ['garbage', ts, 'deadbeef'],
  ];
  it.each(cases)('%s', (_label, t, sig) => {
    expect(validSlackSignature(secret, t, sig, body, now)).toBe(bolt(t, sig));
  });

  it('accepts a correct one and refuses trailing garbage after a correct hash', () => {
    expect(validSlackSignature(secret, ts, sign(ts), body, now)).toBe(true);
    expect(validSlackSignature(secret, ts, `${sign(ts)}zz`, body, now)).toBe(false);
    expect(validSlackSignature(secret, `${ts}.5`, sign(`${ts}.5`), body, now)).toBe(false);
    expect(validSlackSignature('', ts, sign(ts, body, ''), body, now)).toBe(false);
  });
});
