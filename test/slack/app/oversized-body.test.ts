/**
 * A Slack request over the gate's body limit: answered 413, never handed to Bolt; with an owner for
 * oversized requests, the body is read on (up to a read limit) to verify Slack's signature over the
 * whole of it, and only its two ends are kept and handed over. The ids of a Workflow Builder step
 * are read from those ends (a key-like text inside a value is not taken for one).
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import {
  createRequestGate,
  OVERSIZED_KEEP_BYTES,
  type OversizedRequest,
} from '../../../src/slack/http-gate.js';
import { oversizedEventIds } from '../../../src/slack/oversized-event.js';

const SECRET = 'oversized-test-signing-secret';
const LIMIT = 100 * 1024;
const READ_LIMIT = 400 * 1024;

function signed(body: string, ts = Math.floor(Date.now() / 1000)): Record<string, string> {
  const mac = createHmac('sha256', SECRET).update(`v0:${ts}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': String(ts), 'x-slack-signature': `v0=${mac}` };
}

describe('request gate: bodies over the limit', () => {
  let server: Server;
  let url: string;
  const seen: OversizedRequest[] = [];
  let innerCalls = 0;
  beforeAll(async () => {
    const claimed = new Set<string>();
    const gate = createRequestGate(
      (_req, res) => {
        innerCalls++;
        res.writeHead(200).end();
      },
      {
        signingSecret: SECRET,
        claims: {
          async acquire(key) {
            if (claimed.has(key)) return false;
            claimed.add(key);
            return true;
          },
        },
        logger: createLogger({ level: 'silent' }),
        now: () => Date.now(),
        bodyLimit: LIMIT,
        oversizedReadLimit: READ_LIMIT,
        onOversized: (r) => {
          seen.push(r);
        },
      },
    );
    server = createServer(gate);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  async function post(body: string, headers: Record<string, string>): Promise<number> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(5000),
    });
    await res.text();
    return res.status;
  }
  async function handed(n: number): Promise<OversizedRequest> {
    for (let i = 0; i < 500 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 5));
    return seen[n - 1]!;
  }

  it('a signed body over the limit: 413, Bolt never sees it, its two ends handed over as signed', async () => {
    const body = `{"start":"${'a'.repeat(200 * 1024)}","end":"zz"}`;
    expect(await post(body, signed(body))).toBe(413);
    const r = await handed(1);
    expect(r).toMatchObject({ signed: true, size: body.length });
    expect(r.head).toBe(body.slice(0, OVERSIZED_KEEP_BYTES));
    expect(r.tail).toBe(body.slice(-OVERSIZED_KEEP_BYTES));
    expect(innerCalls).toBe(0);
  });

  it('the same signed request again (a replay) is answered 413 and not handed over twice', async () => {
    const body = `{"replay":"${'b'.repeat(150 * 1024)}"}`;
    const h = signed(body);
    expect(await post(body, h)).toBe(413);
    await handed(2);
    expect(await post(body, h)).toBe(413);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toHaveLength(2);
  });

  it('a body whose signature does not match is handed over as unsigned', async () => {
    const body = `{"forged":"${'c'.repeat(150 * 1024)}"}`;
    expect(await post(body, signed(`${body} `))).toBe(413);
    expect((await handed(3)).signed).toBe(false);
  });

  it('a body larger than the read limit is read only to its first bytes, never signed', async () => {
    const body = `{"huge":"${'d'.repeat(READ_LIMIT + 1024)}"}`;
    expect(await post(body, signed(body))).toBe(413);
    const r = await handed(4);
    expect(r.signed).toBe(false);
    expect(r.head.startsWith('{"huge":"ddd')).toBe(true);
    expect(r.size).toBeLessThan(READ_LIMIT);
  });

  it('a body within the limit goes to Bolt as before', async () => {
    const body = '{"type":"event_callback","event":{"type":"x"}}';
    expect(await post(body, signed(body))).toBe(200);
    expect(innerCalls).toBe(1);
  });
});

describe('oversizedEventIds', () => {
  it('reads the workspace and type from the start, the execution ids from the end; escaped keys inside values are not ids', () => {
    const head =
      '{"token":"t","team_id":"T0AAA1","api_app_id":"A1","event":{"type":"function_executed","function":{"id":"Fn1","callback_id":"register_recipients"},"inputs":{"recipients":"\\"function_execution_id\\":\\"FxFAKE\\"\\n';
    const tail =
      'zz"},"function_execution_id":"Fx0000000042","workflow_execution_id":"Wx0099","event_ts":"1.2"},"authorizations":[{"is_enterprise_install":false}]}';
    expect(oversizedEventIds(head, tail)).toEqual({
      type: 'function_executed',
      teamId: 'T0AAA1',
      isEnterpriseInstall: false,
      functionExecutionId: 'Fx0000000042',
      workflowExecutionId: 'Wx0099',
      callbackId: 'register_recipients',
    });
    expect(oversizedEventIds(head, '').functionExecutionId).toBeUndefined();
  });
});
