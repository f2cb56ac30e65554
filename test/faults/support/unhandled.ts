/**
 * Setup file of the faults suite: records every unhandled rejection and uncaught exception of the
 * worker so scenarios can assert "none anywhere" explicitly (vitest also reports them as errors).
 */
import { afterAll, expect } from 'vitest';

const KEY = Symbol.for('drm-chatops.faults.unhandled');

type Holder = { [KEY]?: string[] };

function list(): string[] {
  const g = globalThis as Holder;
  g[KEY] ??= [];
  return g[KEY];
}

const describeErr = (e: unknown) => {
  if (!(e instanceof Error)) return String(e);
  // Keep a few frames: where an unhandled rejection came from is the whole point.
  const frames = (e.stack ?? '')
    .split('\n')
    .slice(1, 5)
    .map((l) => l.trim());
  return [`${e.name}: ${e.message}`, ...frames].join(' | ');
};

if (!(globalThis as Holder)[KEY]) {
  list();
  process.on('unhandledRejection', (reason) => list().push(`unhandledRejection ${describeErr(reason)}`));
  process.on('uncaughtExceptionMonitor', (err) => list().push(`uncaughtException ${describeErr(err)}`));
}

/** Unhandled rejections / uncaught exceptions seen in this worker so far. */
export function unhandledSoFar(): string[] {
  return [...list()];
}

// Every file of the suite fails when anything was left unhandled: no known bug stays unasserted.
afterAll(() => {
  expect(unhandledSoFar(), 'unhandled rejections or uncaught exceptions in this file').toEqual([]);
});
