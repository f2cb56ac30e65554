/**
 * A stand-in for Slack's Socket Mode WebSocket server, on loopback (the `ws` package). With
 * `fake.setSocketModeUrl(sm.url)` the fake Slack's apps.connections.open sends the bot here. On
 * each connection it says `hello` (what makes the client "connected"); `send()` delivers an
 * envelope (slash_commands, interactive, events_api) and resolves with the bot's acknowledgement;
 * `drop()` closes every connection (the client then reconnects through apps.connections.open).
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface SocketAck {
  envelope_id: string;
  payload?: unknown;
}

export interface FakeSocketMode {
  url: string;
  /** Open connections. */
  connections(): number;
  /** How many connections were opened so far. */
  opened(): number;
  /** Wait until at least `n` connections were opened in all. */
  waitOpened(n: number, timeoutMs?: number): Promise<void>;
  send(
    type: 'slash_commands' | 'interactive' | 'events_api',
    payload: unknown,
    timeoutMs?: number,
    /** Slack's redelivery count of the envelope (default 0). */
    retryAttempt?: number,
  ): Promise<SocketAck>;
  drop(): void;
  /**
   * Slack's routine refresh: a `disconnect` message (reason `refresh_requested`) on every open
   * connection; the client then closes it and opens a new one through apps.connections.open.
   */
  refresh(): void;
  close(): Promise<void>;
}

export async function startFakeSocketMode(): Promise<FakeSocketMode> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const port = (wss.address() as AddressInfo).port;
  const sockets = new Set<WebSocket>();
  const acks = new Map<string, (a: SocketAck) => void>();
  let opened = 0;
  const waiters: Array<() => void> = [];

  wss.on('connection', (ws) => {
    sockets.add(ws);
    opened += 1;
    for (const w of waiters.splice(0)) w();
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => {
      let msg: SocketAck | undefined;
      try {
        msg = JSON.parse(String(data)) as SocketAck;
      } catch {
        return;
      }
      const done = msg?.envelope_id ? acks.get(msg.envelope_id) : undefined;
      if (done && msg) {
        acks.delete(msg.envelope_id);
        done(msg);
      }
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: sockets.size,
        debug_info: { host: 'fake-socket-mode', approximate_connection_time: 18060 },
        connection_info: { app_id: 'A0FAKEAPP' },
      }),
    );
  });

  return {
    url: `ws://127.0.0.1:${port}/link/?ticket=fake`,
    connections: () => sockets.size,
    opened: () => opened,
    waitOpened(n, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no Socket Mode connection #${n} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          if (opened >= n) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        check();
      });
    },
    send(type, payload, timeoutMs = 5000, retryAttempt = 0) {
      const ws = [...sockets][0];
      if (!ws) return Promise.reject(new Error('no Socket Mode connection'));
      const envelopeId = randomUUID();
      return new Promise<SocketAck>((resolve, reject) => {
        const timer = setTimeout(() => {
          acks.delete(envelopeId);
          reject(new Error(`envelope ${type} not acknowledged within ${timeoutMs} ms`));
        }, timeoutMs);
        acks.set(envelopeId, (a) => {
          clearTimeout(timer);
          resolve(a);
        });
        ws.send(
          JSON.stringify({
            envelope_id: envelopeId,
            type,
            payload,
            accepts_response_payload: type !== 'events_api',
            retry_attempt: retryAttempt,
            retry_reason: retryAttempt > 0 ? 'timeout' : '',
          }),
        );
      });
    },
    drop() {
      for (const ws of sockets) ws.terminate();
    },
    refresh() {
      for (const ws of sockets)
        ws.send(
          JSON.stringify({
            type: 'disconnect',
            reason: 'refresh_requested',
            debug_info: { host: 'fake-socket-mode' },
          }),
        );
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
