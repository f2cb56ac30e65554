/**
 * A private redis-server the faults suite can SIGKILL and restart on the SAME port, with an
 * append-only file (fsync always) in a temp dir: a restart keeps every acknowledged write, like a
 * production Redis with persistence. (test/support/redis.ts has no restart; this one is separate.)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RestartableRedis {
  url: string;
  port: number;
  /** SIGKILL the server (no shutdown save; the AOF is what survives). */
  kill9(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitPort(port: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
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
  throw new Error(`redis-server did not listen on ${port} within ${deadlineMs} ms`);
}

export async function startRestartableRedis(
  opts: {
    /** Redis' AOF sync policy: 'always' (default, nothing lost at a kill) or 'everysec' (faster). */
    appendfsync?: 'always' | 'everysec';
  } = {},
): Promise<RestartableRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'faults-redis-'));
  let child: ChildProcess | undefined;
  /** Every server spawned: stop() kills whichever is still alive (no orphan outlives the suite). */
  const spawned = new Set<ChildProcess>();
  const alive = (c: ChildProcess | undefined): c is ChildProcess =>
    !!c && c.exitCode === null && c.signalCode === null;
  const start = async () => {
    // Already running: a second server on the same port would fail to bind and exit, and the
    // running one would be left untracked (it leaked here before).
    if (alive(child)) return;
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        opts.appendfsync ?? 'always',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    const c = child;
    spawned.add(c);
    c.once('exit', () => spawned.delete(c));
    await waitPort(port, 10_000);
  };
  const kill9 = async () => {
    await Promise.all(
      [...spawned].filter(alive).map(async (c) => {
        const exited = new Promise<void>((r) => c.once('exit', () => r()));
        c.kill('SIGKILL');
        await exited;
      }),
    );
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill9,
    start,
    async stop() {
      await kill9();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
