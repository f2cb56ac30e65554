/**
 * Per-workspace caps on what keeps the watcher and the notifier busy: workflow waits, job
 * watches, license-failure alert subscriptions, daily digests (WAITS_MAX_PER_WORKSPACE,
 * WATCHES_MAX_PER_WORKSPACE, ALERTS_MAX_PER_WORKSPACE, DIGESTS_MAX_PER_WORKSPACE; see
 * docs/configuration.md and docs/security.md). A NEW one beyond the cap is refused with
 * WorkspaceLimitError (what to do in its words); changing, resuming or re-creating an existing one
 * never is. Two creates racing on two replicas may both pass at the cap (at most one over per
 * replica): the cap bounds volume, it is not an exact quota.
 */

export type LimitedKind = 'waits' | 'watches' | 'alerts' | 'digests';
export type WorkspaceLimits = Record<LimitedKind, number>;

export const DEFAULT_WORKSPACE_LIMITS: Readonly<WorkspaceLimits> = {
  waits: 1000,
  watches: 500,
  alerts: 200,
  digests: 200,
};

export const LIMIT_SETTINGS: Readonly<Record<LimitedKind, string>> = {
  waits: 'WAITS_MAX_PER_WORKSPACE',
  watches: 'WATCHES_MAX_PER_WORKSPACE',
  alerts: 'ALERTS_MAX_PER_WORKSPACE',
  digests: 'DIGESTS_MAX_PER_WORKSPACE',
};

/**
 * What is refused and what to do, in words any surface can show (no command names: the Slack
 * layer says which command does it, src/slack/kit/context/errors.ts).
 */
const WORDS: Record<LimitedKind, { what: (n: number) => string; next: string }> = {
  waits: {
    what: (n) => `${n} workflow steps waiting for a job or a registration`,
    next: 'Let some finish or reach their timeout, then run the workflow again',
  },
  watches: {
    what: (n) => `${n} job watches`,
    next: 'Remove a job watch that is no longer needed',
  },
  alerts: {
    what: (n) => `${n} license-failure alert subscriptions`,
    next: 'Stop license-failure alerts that are no longer needed',
  },
  digests: {
    what: (n) => `${n} daily digests`,
    next: 'Turn off a daily digest that is no longer needed',
  },
};

/** A new wait, watch, alert or digest refused: the workspace has `limit` already. */
export class WorkspaceLimitError extends Error {
  /** Why, one sentence. */
  readonly why: string;
  /** What to do, one sentence. */
  readonly next: string;
  constructor(
    readonly kind: LimitedKind,
    readonly limit: number,
  ) {
    const w = WORDS[kind];
    const why = `This workspace already has ${w.what(limit)}, the most it may have at once.`;
    const next = `${w.next}, or ask the bot's operator to raise ${LIMIT_SETTINGS[kind]}.`;
    super(`${why} ${next}`);
    this.name = 'WorkspaceLimitError';
    this.why = why;
    this.next = next;
  }
}

/** Refuse a new one when `count` already reached the workspace's cap (undefined: no cap). */
export function checkLimit(kind: LimitedKind, count: number, limit: number | undefined): void {
  if (limit !== undefined && count >= limit) throw new WorkspaceLimitError(kind, limit);
}
