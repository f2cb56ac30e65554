/**
 * A Redis for tests. Uses TEST_REDIS_URL when set (CI); otherwise starts a private
 * `redis-server` on 127.0.0.1 on a free port (no persistence) as a child process, and stops it
 * in `stop()`. When neither works the test FAILS with a message saying what to install.
 *
 *   const redis = await startTestRedis();   // in beforeAll
 *   await redis.stop();                      // in afterAll (also deletes the run's keys)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freeLoopbackPort, waitForPort } from './ports.js';

export interface TestRedis {
  url: string;
  /** True when this helper started the server (false with TEST_REDIS_URL). */
  owned: boolean;
  /** A fresh key root for one test run, e.g. "t-1234-ab12cd". */
  uniqueNamespace(): string;
  /** Send one raw command (tests inspect raw values). Opens a short-lived client. */
  command(args: string[]): Promise<unknown>;
  /** Delete every key under the given roots, then stop the server if we started it. */
  stop(namespaces?: string[]): Promise<void>;
}

/** Minimal RESP client: enough for PING and the raw reads tests do. */
async function rawCommand(url: string, args: string[]): Promise<unknown> {
  const { createClient } = await import('@keyv/redis');
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    await client.quit().catch(() => undefined);
  }
}

function makeHandle(url: string, owned: boolean, child?: ChildProcess): TestRedis {
  return {
    url,
    owned,
    uniqueNamespace: () => `t-${process.pid}-${randomBytes(4).toString('hex')}`,
    command: (args) => rawCommand(url, args),
    async stop(namespaces = []) {
      if (!owned) {
        // Shared server (CI): remove only this run's keys.
        for (const ns of namespaces) {
          let cursor = '0';
          do {
            const r = (await rawCommand(url, ['SCAN', cursor, 'MATCH', `${ns}:*`, 'COUNT', '500'])) as [
              string,
              string[],
            ];
            cursor = r[0];
            if (r[1].length > 0) await rawCommand(url, ['DEL', ...r[1]]);
          } while (cursor !== '0');
        }
        return;
      }
      if (child && child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
  };
}

export async function startTestRedis(): Promise<TestRedis> {
  const fromEnv = process.env.TEST_REDIS_URL;
  if (fromEnv) {
    try {
      await rawCommand(fromEnv, ['PING']);
    } catch (e) {
      throw new Error(`TEST_REDIS_URL is set but Redis does not answer there: ${(e as Error).message}`);
    }
    return makeHandle(fromEnv, false);
  }
  const port = await freeLoopbackPort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore' },
  );
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (e) =>
      reject(
        new Error(
          `Cannot start redis-server (${e.message}). Install it (apt-get install -y redis-server) ` +
            'or set TEST_REDIS_URL=redis://127.0.0.1:6379 to an existing server.',
        ),
      ),
    ),
  );
  try {
    await Promise.race([waitForPort(port, 10_000, child, 'redis-server'), spawnError]);
    await rawCommand(`redis://127.0.0.1:${port}`, ['PING']);
  } catch (e) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw e;
  }
  return makeHandle(`redis://127.0.0.1:${port}`, true, child);
}
