/**
 * Figure 1's third process: the service emulator and the fake Slack (started by bench/ack.ts).
 * Kept out of both the load generator's process and the app's, so serving the app's emulator calls
 * and response_url answers loads neither the measured app nor the clock that measures it.
 *
 * RPC methods (bench/child.ts): `start` -> URLs, demo credentials and the workspace; `issue` ->
 * fresh response URLs (Slack gives one per command, usable 5 times); `stats` -> response_url
 * answers received (ok / failed, by error) and emulator requests.
 */
import { Server } from 'node:http';
import { z } from 'zod';
import { startEmulator } from '../dev/emulator/index.js';
import type { EmulatorHandle } from '../dev/emulator/types.js';
import { FakeSlack } from '../dev/fakeslack/index.js';
import { testWorkspace } from '../test/harness/index.js';
import { serveRpc } from './child.js';
import { totalRequests } from './lib.js';

let emu: EmulatorHandle | undefined;
let fake: FakeSlack | undefined;
const ws = testWorkspace(0);
let keepAlive = false;

const startParams = z.object({ latencyMs: z.number().int().nonnegative() });
const issueParams = z.object({ count: z.number().int().positive() });

serveRpc({
  async start(params) {
    const p = startParams.parse(params);
    fake = await FakeSlack.start();
    // The fake's HTTP server hints "Keep-Alive: timeout=1"; undici (the app's fetch) keeps a socket
    // only for the hint minus 2 s, so it closed the connection after EVERY response_url answer and
    // opened a new one (about 10% of the real app's CPU in a profile). Slack's endpoints keep
    // connections open: give the fake Slack's server a Slack-like idle timeout. (The server is a
    // private field of FakeSlack; when it cannot be found the default stays and the note says so.)
    const server = (fake as unknown as { server?: unknown }).server;
    if (server instanceof Server) {
      server.keepAliveTimeout = 65_000;
      keepAlive = true;
    }
    const { spec, ...w } = ws;
    fake.addWorkspace(spec);
    emu = await startEmulator({ latencyMs: p.latencyMs });
    return {
      apiUrl: fake.apiUrl,
      wmBaseUrl: emu.wmBaseUrl,
      serviceBaseUrl: emu.serviceBaseUrl,
      demo: emu.demo,
      ws: w,
      keepAlive,
    };
  },
  issue(params) {
    const p = issueParams.parse(params);
    if (!fake) throw new Error('not started');
    const f = fake;
    return {
      responseUrls: Array.from({ length: p.count }, () =>
        f.responseUrl(ws.teamId, { channel: ws.channel, userId: ws.member }),
      ),
      triggerId: f.issueTrigger(ws.teamId, ws.member),
    };
  },
  stats() {
    if (!fake || !emu) throw new Error('not started');
    const errors: Record<string, number> = {};
    let ok = 0;
    let failed = 0;
    for (const r of fake.responses()) {
      if (r.ok) ok++;
      else {
        failed++;
        const k = r.error ?? 'unknown';
        errors[k] = (errors[k] ?? 0) + 1;
      }
    }
    const slackCalls: Record<string, number> = {};
    for (const c of fake.calls()) {
      if (c.method !== 'response_url') slackCalls[c.method] = (slackCalls[c.method] ?? 0) + 1;
    }
    return { ok, failed, errors, slackCalls, emulatorRequests: totalRequests(emu.requestCounts()) };
  },
  async close() {
    await emu?.close();
    await fake?.close();
    setTimeout(() => process.exit(0), 100).unref();
    return {};
  },
});
