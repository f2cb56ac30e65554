/**
 * Who hears of a job change, and what they are told: the changes a cycle detected become
 * per-channel outbox intents (a card, its thread updates, a digest for a burst of finished jobs),
 * each for the first matching subscription of the channel that existed when the change happened.
 * "Existed" is judged by the job's own change time against the subscription's creation, moved
 * back by the service's clock lag and an allowance (`hearsEarlierMs`, `hearsFromMs`).
 */
import type { Job, JobTask } from '../api/types.js';
import { allFailures, changeTimeMs, countTasks } from './jobs.js';
import { deliveryKey, type OutboxEntry, type ThreadIntent } from './outbox.js';
import type { JobMemo } from './poll-state.js';
import { subscriptionMatches } from './subscriptions.js';
import type { JobSummary, Subscription } from './types.js';

/** More than this many jobs finishing in one cycle for a channel become one digest message. */
export const BURST_THRESHOLD = 5;

/** A job change a cycle detected (new in flight, changed, or finished), with its tasks once fetched. */
export interface Change {
  job: Job;
  kind: 'new' | 'changed' | 'final';
  prev?: JobMemo;
  tasks?: JobTask[];
  /** The task list's total_count (when the service reported one). */
  reportedTotal?: number;
}

/** Default of `clockAllowanceMs` (WATCH_CLOCK_ALLOWANCE_SECONDS): the Date header's second, network time. */
export const CLOCK_ALLOWANCE_MS = 5_000;

/**
 * How much earlier than a subscription's creation (bot clock) a change stamped by the service
 * may be and still be one made after it: the service's clock is behind the bot's by
 * `-skewMs` (its Date header), plus the allowance. A service ahead of the bot needs none.
 */
export function hearsEarlierMs(skewMs: number | undefined, allowanceMs = CLOCK_ALLOWANCE_MS): number {
  return Math.max(0, -(skewMs ?? 0)) + Math.max(0, allowanceMs);
}

/**
 * The earliest change time (service clock, whole seconds) a subscription hears of: the start of
 * the second it was created in, moved back by `earlierMs` (`hearsEarlierMs`). A change stamped
 * in the same second as the creation, or a little before it by a clock behind the bot's, is
 * heard: announcing a job that ended a moment before the watch is better than losing one.
 */
export function hearsFromMs(s: Subscription, earlierMs = 0): number {
  const t = Date.parse(s.createdAt);
  return Number.isFinite(t) ? Math.floor(t / 1000) * 1000 - earlierMs : Number.NEGATIVE_INFINITY;
}

/** The site a cycle's intents are for, and the subscriptions it serves. */
export interface IntentScope {
  workspace: string;
  siteId: string;
  subscriptions: Subscription[];
}

function summaryOf(ctx: IntentScope, c: Change): JobSummary {
  return {
    workspace: ctx.workspace,
    siteId: ctx.siteId,
    jobId: c.job.jobId,
    contentId: c.job.contentId,
    status: c.job.status,
    regTimeMs: c.job.regTime.epochMs,
    updateTimeMs: c.job.updateTime.epochMs,
    ...(c.tasks ? { tasks: countTasks(c.tasks, c.reportedTotal) } : {}),
  };
}

/**
 * Turn changes into per-channel intents. One channel = the first matching subscription in it that
 * existed when the change happened.
 *
 * A subscription that existed when the detection window began (`prevCycleStart`, the previous
 * cycle's start) hears every change detected in it. In its first cycle (created after the window
 * began, or the site's baseline), it hears a change when the job's own time of that change
 * (`changeTimeMs`: its updateTime, the finish time of a finished job) is not before the second
 * of its creation, moved back by the service's clock lag and the allowance (`earlierMs`,
 * `hearsFromMs`), whether or not the site was polled before (for another channel,
 * or before an unwatch left its poll state behind). Older changes are not announced to it (no
 * flood of old jobs); a change without a parseable time is not either. (A resumed subscription
 * keeps its createdAt: changes detected after the resume are delivered to it.)
 */
export function buildIntents(
  ctx: IntentScope,
  changes: Change[],
  cycleStart: number,
  prevCycleStart = Number.NEGATIVE_INFINITY,
  earlierMs = 0,
): OutboxEntry[] {
  const ws = ctx.workspace;
  const out: OutboxEntry[] = [];
  let seq = 0;
  const channels = new Map<string, Subscription[]>();
  for (const s of ctx.subscriptions) {
    if (s.paused || s.siteId !== ctx.siteId) continue;
    const l = channels.get(s.channelId) ?? [];
    l.push(s);
    channels.set(s.channelId, l);
  }
  const existedFor = (s: Subscription, c: Change) => {
    // It existed for the whole detection window: every change detected in it came after it.
    const created = Date.parse(s.createdAt);
    if (!Number.isFinite(created) || created <= prevCycleStart) return true;
    // Its first cycle (the window began before it): the job's own time decides.
    const at = changeTimeMs(c.job);
    return at !== null && hearsFromMs(s, earlierMs) <= at;
  };
  const group = `${ctx.siteId}:${cycleStart}`;
  for (const [channel, subs] of channels) {
    const pick = (c: Change) =>
      subs.find((s) => existedFor(s, c) && subscriptionMatches(s, c.job.status, c.job.contentId));
    const finals = changes.filter((c) => c.kind === 'final' && pick(c));
    const burst = finals.length > BURST_THRESHOLD;
    const push = (
      c: Change,
      sub: Subscription,
      kind: OutboxEntry['kind'],
      state: string,
      extra: Partial<OutboxEntry>,
    ) => {
      out.push({
        key: deliveryKey(ws, channel, c.job.jobId, state),
        workspace: ws,
        siteId: ctx.siteId,
        channelId: channel,
        subscriptionId: sub.id,
        jobId: c.job.jobId,
        kind,
        summary: summaryOf(ctx, c),
        createdAt: cycleStart,
        seq: seq++,
        state: 'pending',
        attempts: 0,
        ...extra,
      });
    };
    const thread = (c: Change, sub: Subscription, state: string, t: ThreadIntent) =>
      push(c, sub, 'thread', state, { thread: t });
    for (const c of changes) {
      const sub = pick(c);
      if (!sub) continue;
      const st = c.job.status;
      if (c.kind === 'final') {
        if (burst) {
          push(c, sub, 'card', `card:${st}`, { quiet: true });
          push(c, sub, 'digest', `final:${st}`, { group });
        } else {
          push(c, sub, 'card', `card:${st}`, {});
          thread(c, sub, `final:${st}`, { kind: 'final' });
        }
        continue;
      }
      const counts = c.tasks ? countTasks(c.tasks) : undefined;
      const progressed =
        counts && c.prev?.t && (c.prev.t[0] !== counts.completed || c.prev.t[1] !== counts.failed);
      const cardState = counts
        ? `card:${st}:${counts.completed}+${counts.failed}/${counts.total}`
        : `card:${st}`;
      push(c, sub, 'card', cardState, {});
      if (c.kind === 'changed' && c.prev && c.prev.s !== st) {
        thread(c, sub, `status:${st}`, { kind: 'status', previous: c.prev.s });
      } else if (progressed && counts) {
        thread(c, sub, `progress:${counts.completed}+${counts.failed}/${counts.total}`, { kind: 'progress' });
      }
      const reported = new Set(c.prev?.f ?? []);
      for (const f of c.tasks ? allFailures(c.tasks) : []) {
        if (reported.has(f.dwmId)) continue;
        thread(c, sub, `taskfail:${f.dwmId}`, { kind: 'task-failed', failure: f });
      }
    }
  }
  return out;
}
