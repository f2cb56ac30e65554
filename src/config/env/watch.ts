/**
 * The background work's settings: how often the job watcher polls (adaptive, within a call budget,
 * with the outage notice and the clock allowance), how many sites it polls at once, the grace of
 * a bulk registration's batch in flight, and the per-workspace caps of waits, watches, alerts and
 * digests (src/watch/limits.ts).
 */
import { DEFAULT_WORKSPACE_LIMITS } from '../../watch/limits.js';
import { intIn, type VariableSpec } from '../spec.js';

export const WATCHER_VARIABLES: VariableSpec[] = [
  {
    name: 'POLL_INTERVAL_SECONDS',
    required: 'no',
    default: '60',
    description:
      'How often watched jobs and requests are polled when a site is idle (no job in flight, nothing changed lately): the longest adaptive polling interval.',
    schema: intIn(5, 86_400),
  },
  {
    name: 'REGISTRATION_INFLIGHT_GRACE_SECONDS',
    required: 'no',
    default: '5',
    description:
      'Bulk registration after a crash or a timed-out POST: how long a batch the bot may have sent can still land at the service. Before sending such a batch again the bot waits this long, then sends only the names the service does not list (the API has no idempotency key). Raise it if the service queues requests longer.',
    schema: intIn(1, 300),
  },
  {
    name: 'POLL_ACTIVE_INTERVAL_SECONDS',
    required: 'no',
    default: '2',
    description:
      'Adaptive polling: how often a site with jobs in flight (or a job that just changed) is polled. Each quiet cycle doubles the delay up to POLL_INTERVAL_SECONDS. Set it equal to POLL_INTERVAL_SECONDS for a fixed interval.',
    schema: intIn(1, 86_400),
  },
  {
    name: 'WATCH_CALL_BUDGET_PER_MINUTE',
    required: 'no',
    default: '600',
    description:
      'Upstream calls per minute the watcher may spend on one workspace (per replica); fast polls wait when it is spent. Keep it above 2 x sites / idle interval in minutes.',
    schema: intIn(10, 1_000_000),
  },
  {
    // src/watch/outage.ts: an outage is not silence.
    name: 'WATCH_OUTAGE_NOTICE_MINUTES',
    required: 'no',
    default: '15',
    description:
      "When a site's watermarking service has been unreachable or failing this long (not a refused login, which pauses the workspace at once), each channel watching the site is told once that its job notifications are delayed and why, and once when they resume, with what was caught up; /dwm watches and the Home tab show it while it lasts. An outage is not silence: without it, a channel cannot tell a quiet day from a dead service.",
    schema: intIn(1, 24 * 60),
  },
  {
    // src/watch/poller.ts hearsFromMs: a watch hears every change after its creation.
    name: 'WATCH_CLOCK_ALLOWANCE_SECONDS',
    required: 'no',
    default: '5',
    description:
      "How much earlier than a watch's creation a job change stamped by the watermarking service may be and still be announced to it, on top of how far the service's clock is behind the bot's (read from its Date header at each poll). The service stamps times with its own clock and whole seconds: without this, a job that finished in the same second as /dwm watch, or just before it on a service whose clock is behind, would be told to no one. A larger value may announce a job that ended a moment before the watch, which is better than losing one. npm run doctor proposes a value when the service's clock is further behind than this.",
    schema: intIn(0, 3600),
  },
  {
    name: 'WATCH_CONCURRENCY',
    required: 'no',
    default: '4',
    description:
      'Sites one replica polls at the same time. One replica carries about concurrency x 60 / (cycle seconds) sites per idle minute (docs/scale-out.md).',
    schema: intIn(1, 256),
  },
];

export const WORKSPACE_LIMIT_VARIABLES: VariableSpec[] = [
  {
    name: 'WAITS_MAX_PER_WORKSPACE',
    required: 'no',
    default: String(DEFAULT_WORKSPACE_LIMITS.waits),
    description:
      'Workflow steps one workspace may have waiting at once (wait for a job, register recipients); a step beyond it fails with what to do. Each wait lasts up to its timeout (720 h at most).',
    schema: intIn(1, 1_000_000),
  },
  {
    name: 'WATCHES_MAX_PER_WORKSPACE',
    required: 'no',
    default: String(DEFAULT_WORKSPACE_LIMITS.watches),
    description:
      'Job watches (/dwm watch) one workspace may have, paused ones included; a new one beyond it is refused with what to do (changing or resuming one never is).',
    schema: intIn(1, 1_000_000),
  },
  {
    name: 'ALERTS_MAX_PER_WORKSPACE',
    required: 'no',
    default: String(DEFAULT_WORKSPACE_LIMITS.alerts),
    description:
      'License-failure alert subscriptions (/drm alerts watch) one workspace may have; a new one beyond it is refused with what to do.',
    schema: intIn(1, 1_000_000),
  },
  {
    name: 'DIGESTS_MAX_PER_WORKSPACE',
    required: 'no',
    default: String(DEFAULT_WORKSPACE_LIMITS.digests),
    description:
      'Daily digests (/dwm digest daily, one per channel) one workspace may have; a new one beyond it is refused with what to do.',
    schema: intIn(1, 1_000_000),
  },
];
