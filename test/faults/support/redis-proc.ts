/**
 * A private redis-server the faults suite can SIGKILL and restart on the SAME port, with an
 * append-only file (fsync always) in a temp dir: a restart keeps every acknowledged write, like a
 * production Redis with persistence. (test/support/redis.ts has no restart; this one shares its port helpers, dev/testing/ports.ts.)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, waitForPort } from '../../../dev/testing/ports.js';

export interface RestartableRedis {
  url: string;
  port: number;
  /** SIGKILL the server (no shutdown save; the AOF is what survives). */
  kill9(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRestartableRedis(
  opts: {
    /** Redis' AOF sync policy: 'always' (default, nothing lost at a kill) or 'everysec' (faster). */
    appendfsync?: 'always' | 'everysec';
  } = {},
): Promise<RestartableRedis> {
  const port = await freeLoopbackPort();
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
    await waitForPort(port, 10_000, c, 'redis-server');
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
