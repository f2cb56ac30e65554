import { describe, expect, it } from 'vitest';
import { HandlerQueue } from '../../../../src/slack/kit/commands/handler-queue.js';

/** A task that runs until released. */
function gate() {
  let release!: () => void;
  let started = false;
  const done = new Promise<void>((r) => {
    release = r;
  });
  return {
    task: async () => {
      started = true;
      await done;
    },
    release: () => release(),
    started: () => started,
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('HandlerQueue: bounded post-ack work', () => {
  it('runs at most `concurrency` tasks at once and starts the next when one finishes', async () => {
    const q = new HandlerQueue(2, 10);
    const [a, b, c] = [gate(), gate(), gate()];
    const runs = [q.run(a.task), q.run(b.task), q.run(c.task)];
    await tick();
    expect([a.started(), b.started(), c.started()]).toEqual([true, true, false]);
    expect(q.active).toBe(2);
    expect(q.pending).toBe(1);
    a.release();
    await expect(runs[0]).resolves.toBe('done');
    await tick();
    expect(c.started()).toBe(true);
    b.release();
    c.release();
    await expect(Promise.all(runs)).resolves.toEqual(['done', 'done', 'done']);
  });

  it('says busy (and runs nothing) when every slot is taken and the wait list is full', async () => {
    const q = new HandlerQueue(1, 1);
    const [a, b, c] = [gate(), gate(), gate()];
    const ra = q.run(a.task);
    const rb = q.run(b.task);
    await tick();
    await expect(q.run(c.task)).resolves.toBe('busy');
    expect(c.started()).toBe(false);
    a.release();
    b.release();
    await expect(Promise.all([ra, rb])).resolves.toEqual(['done', 'done']);
  });

  it('rethrows the error of a task that ran', async () => {
    const q = new HandlerQueue(1, 1);
    await expect(
      q.run(async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
  });

  it('close(): waiting tasks never start and resolve cancelled; running ones finish', async () => {
    const q = new HandlerQueue(1, 5);
    const [a, b] = [gate(), gate()];
    const ra = q.run(a.task);
    const rb = q.run(b.task);
    await tick();
    q.close();
    await expect(rb).resolves.toBe('cancelled');
    a.release();
    await expect(ra).resolves.toBe('done');
    await tick();
    expect(b.started()).toBe(false);
    await expect(q.run(async () => undefined)).resolves.toBe('cancelled');
  });
});
