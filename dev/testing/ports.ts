/** Loopback ports for the servers tests and tools start (redis-server, ...): nothing else. */
import type { ChildProcess } from 'node:child_process';
import { createServer, Socket } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (nothing listens on it when this resolves). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Resolve once 127.0.0.1:`port` accepts a connection; reject after `deadlineMs`, or at once when
 * the server process `child` (if given) has exited.
 */
export async function waitForPort(
  port: number,
  deadlineMs: number,
  child?: ChildProcess,
  name = 'the server',
): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (child && child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
      s.connect(port, '127.0.0.1');
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} did not accept connections on 127.0.0.1:${port} within ${deadlineMs} ms`);
}
