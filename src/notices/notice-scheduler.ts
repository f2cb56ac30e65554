/**
 * The notifier's scheduling: what one pass starts, in what order, and the timer that runs passes.
 * A pass (runPass), in this order so that the digest never waits for a poll:
 * 1. due digests are handed to the outbox (store only) and their delivery starts at once;
 * 2. every other workspace with pending notices starts its delivery;
 * 3. the due polls start, all workspaces and sites concurrently (bounded, see poll-targets.ts); a
 *    poll that found something delivers its workspace at once.
 * The timer (PassTimer) re-arms as soon as a pass has STARTED its work, so a slow Service API
 * holds only its own poll, never the next pass; what a pass started and does not wait for is
 * kept, so shutdown and tests can wait for it.
 */
import type { Logger } from '../log.js';
import type { Clock } from '../watch/types.js';
import type { WorkspaceDrains } from './notice-drains.js';
import {
  type NotifierTickResult,
  pollAlertsOf,
  pollRequestsOf,
  scheduleDueDigests,
  type TickDeps,
} from './notice-ticks.js';

/** A pass: `ready` once all its work is started (store work only), `done` once that work finished. */
export interface Pass {
  ready: Promise<void>;
  done: Promise<NotifierTickResult>;
}

/**
 * One scheduler pass (see the header). `ready` resolves once all of it is started (store work
 * only: the timer re-arms then, so a slow Service API never holds back the next pass); `done`
 * once everything started finished.
 */
export function runPass(d: TickDeps, drains: WorkspaceDrains): Pass {
  const log = d.logger;
  const res: NotifierTickResult = { requestPolls: 0, alertPolls: 0, digestsScheduled: 0, drained: {} };
  const work: Promise<unknown>[] = [];
  const delivering = new Set<string>();
  const deliver = (ws: string) => {
    if (delivering.has(ws)) return;
    delivering.add(ws);
    work.push(
      drains
        .drain(ws)
        .then((r) => {
          if (r) res.drained[ws] = r;
        })
        .catch((err) => log.error({ err, workspace: ws }, 'notice drain failed')),
    );
  };
  const poll = (k: string, ws: string, fn: () => Promise<boolean>) => {
    if (d.targets.busy(k) || !d.targets.isDue(k)) return;
    const found = async () => {
      const r = await drains.drain(ws);
      if (r) res.drained[ws] = r;
    };
    const failed = (err: unknown) => log.error({ err, workspace: ws }, 'notify poll failed unexpectedly');
    work.push(d.targets.start(k, fn, found, failed));
  };
  const ready = (async () => {
    // 1. Digests first: only the store is touched until their delivery starts.
    const digestWorkspaces = await d.digests.workspaces();
    for (const ws of digestWorkspaces) {
      try {
        const added = await scheduleDueDigests(d, ws);
        res.digestsScheduled += added;
        if (added > 0) deliver(ws);
      } catch (err) {
        log.error({ err, workspace: ws }, 'digest scheduling failed');
      }
    }
    // 2. Pending notices elsewhere (deferred entries, a kick that found the lease taken).
    const requestWorkspaces = await d.tracker.workspaces();
    const alertWorkspaces = await d.alerts.workspaces();
    for (const ws of new Set([...digestWorkspaces, ...requestWorkspaces, ...alertWorkspaces])) {
      const size = await d.outbox.size(ws);
      drains.notePending(ws, size);
      if (!delivering.has(ws) && size > 0) deliver(ws);
    }
    // 3. Polls, concurrently; a target whose previous poll still runs is skipped.
    for (const ws of requestWorkspaces) {
      const k = `req|${ws}`;
      poll(k, ws, () => pollRequestsOf(d, ws, k, res));
    }
    for (const ws of alertWorkspaces) {
      const subs = (await d.alerts.list(ws)).filter((s) => !s.paused);
      for (const siteId of new Set(subs.map((s) => s.siteId))) {
        const k = `alert|${ws}|${siteId}`;
        poll(k, ws, () => pollAlertsOf(d, ws, siteId, k, res));
      }
    }
  })();
  const done = ready.then(async () => {
    await Promise.all(work);
    return res;
  });
  return { ready, done };
}

export interface PassTimerOptions {
  clock: Clock;
  /** Time between the start of a pass's work and the next pass. */
  tickMs: number;
  logger: Logger;
  pass: () => Pass;
}

/** Runs a pass every `tickMs` and keeps what the passes (and kicks) started in the background. */
export class PassTimer {
  private running = false;
  private timer: unknown;
  private current: Promise<unknown> | undefined;
  /** Work a timer pass started and does not wait for (polls, drains): settled() and stop() do. */
  private readonly background = new Set<Promise<unknown>>();

  constructor(private readonly o: PassTimerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm(0);
  }

  /** No pass starts any more; resolves when the current pass and the background work are done. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== undefined) this.o.clock.clearTimer(this.timer);
    this.timer = undefined;
    if (this.current) await this.current;
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  /** Resolves when nothing a pass started (polls, deliveries) is running. */
  async settled(): Promise<void> {
    while (this.current || this.background.size > 0) {
      if (this.current) await this.current;
      await Promise.all([...this.background]);
    }
  }

  /** Keep `p` until it settles (its failure is the caller's to log). */
  inBackground(p: Promise<unknown>): void {
    const t = p.catch(() => undefined).finally(() => this.background.delete(t));
    this.background.add(t);
  }

  private arm(ms: number): void {
    if (!this.running) return;
    this.timer = this.o.clock.setTimer(() => {
      this.timer = undefined;
      if (!this.running) return;
      const p = this.o.pass();
      this.inBackground(p.done);
      this.current = p.ready
        .catch((err) => this.o.logger.error({ err }, 'notify pass failed'))
        .finally(() => {
          this.current = undefined;
          this.arm(this.o.tickMs);
        });
    }, ms);
  }
}
