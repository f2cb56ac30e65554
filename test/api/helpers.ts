// A tiny loopback HTTP server for API unit tests (nock cannot intercept undici's Pool).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log.js';

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Handler = (req: Seen, res: ServerResponse, n: number) => void | Promise<void>;

export interface TestServer {
  url: string;
  seen: Seen[];
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  let h = handler;
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(s);
      Promise.resolve(h(s, res, seen.length)).catch((e) => {
        res.statusCode = 500;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    setHandler(next) {
      h = next;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function json(
  res: ServerResponse,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function ok(res: ServerResponse, data: unknown, extra: Record<string, unknown> = {}): void {
  json(res, { error_code: '0000', error_message: 'success', ...extra, data });
}

/** A logger at debug level whose output is captured as text. */
export function captureLogger(): { logger: Logger; text: () => string } {
  const chunks: string[] = [];
  const dest = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return { logger: createLogger({ level: 'debug', destination: dest }), text: () => chunks.join('') };
}

/** Sleep that records requested delays and returns at once. */
export function fakeSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms) => {
      delays.push(ms);
    },
  };
}

/** Watermarking credentials for a loopback test server at `baseUrl`. */
export const wmCreds = (baseUrl: string) => ({ accountId: 'acct', accessKey: 'k3y-s3cret-value', baseUrl });

/** Service API credentials for a loopback test server at `baseUrl`. */
export const svcCreds = (baseUrl: string) => ({
  accountId: 'acct',
  accountSeq: '7',
  secretKey: 'svc-secret-value-123',
  baseUrl,
});
