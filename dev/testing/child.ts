/**
 * Start and SIGKILL a TypeScript child process (`node --import tsx <file>`), reading its
 * line protocol on stdout. Used by the faults suite to kill the bot at random points.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildHandle {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Every stdout line so far. */
  lines(): string[];
  /** stderr so far (last 8 KB). */
  stderr(): string;
  /** Resolves with the first line (after `from`, an index into lines()) matching; rejects on exit or timeout. */
  waitLine(match: RegExp, timeoutMs: number, from?: number): Promise<string>;
  /** SIGKILL and wait for the exit. */
  kill9(): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

export function startChild(file: string, env: Record<string, string>, cwd: string): ChildHandle {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let err = '';
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(l);
    for (const w of waiters) w();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-8192);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
    for (const w of waiters) w();
  });
  return {
    pid: child.pid ?? -1,
    child,
    lines: () => [...lines],
    stderr: () => err,
    exited,
    waitLine(match, timeoutMs, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.slice(from).find((l) => match.test(l));
          if (hit !== undefined) {
            cleanup();
            resolve(hit);
          } else if (done) {
            cleanup();
            reject(
              new Error(`child exited before ${match}: ${lines.slice(-3).join(' | ')} ${err.slice(-500)}`),
            );
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`child: no ${match} within ${timeoutMs} ms: ${err.slice(-500)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async kill9() {
      if (!done) child.kill('SIGKILL');
      await exited;
    },
  };
}
