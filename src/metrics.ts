/**
 * Prometheus metrics (prom-client), one registry for the process, served at /metrics.
 * Modules import the metric they record; names follow Prometheus conventions.
 */
import client from 'prom-client';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: 'drmchatops_process_' });

export const commandsTotal = new client.Counter({
  name: 'drmchatops_commands_total',
  help: 'Slash commands and interactions handled, by command and outcome',
  labelNames: ['command', 'outcome'] as const,
  registers: [registry],
});

export const serviceCallSeconds = new client.Histogram({
  name: 'drmchatops_service_call_seconds',
  help: 'Latency of calls to the service APIs, by endpoint',
  labelNames: ['endpoint'] as const,
  buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const serviceCallErrors = new client.Counter({
  name: 'drmchatops_service_call_errors_total',
  help: 'Failed calls to the service APIs, by endpoint and error kind',
  labelNames: ['endpoint', 'kind'] as const,
  registers: [registry],
});

export const pollCycles = new client.Counter({
  name: 'drmchatops_poll_cycles_total',
  help: 'Poll cycles run, by outcome',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const notifications = new client.Counter({
  name: 'drmchatops_notifications_total',
  help: 'Channel notifications, by outcome (delivered, failed, retried)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const outboxPending = new client.Gauge({
  name: 'drmchatops_outbox_pending',
  help: 'Notifications waiting in the outbox',
  registers: [registry],
});

/**
 * Request outcomes, license alerts and digests waiting in the notices outbox, all workspaces (as
 * this replica's notifier last counted them: after each scheduler pass and each delivery).
 */
export const noticesPending = new client.Gauge({
  name: 'drmchatops_notices_pending',
  help: 'Request-outcome DMs, license alerts and digests waiting in the notices outbox',
  registers: [registry],
});

export const leasesHeld = new client.Gauge({
  name: 'drmchatops_leases_held',
  help: 'Poll leases held by this replica',
  registers: [registry],
});

/**
 * Watch health (set by the watcher at each scan): over the watched sites this replica is to poll
 * (not those of workspaces paused for refused credentials, without credentials or uninstalled,
 * which are skipped on purpose), the longest time since a site was last polled successfully (or
 * since this replica started looking after it). Alert when it exceeds a few POLL_INTERVAL_SECONDS
 * (docs/alerts.rules.yml).
 */
export const watchOldestPollAge = new client.Gauge({
  name: 'drmchatops_watch_oldest_poll_age_seconds',
  help: 'Longest time since a watched site this replica polls was last polled successfully',
  registers: [registry],
});

export const watchSites = new client.Gauge({
  name: 'drmchatops_watch_sites',
  help: 'Watched sites this replica is to poll',
  registers: [registry],
});

/** POLL_INTERVAL_SECONDS (the idle interval, the longest a healthy site waits between polls). */
export const pollIntervalSeconds = new client.Gauge({
  name: 'drmchatops_poll_interval_seconds',
  help: 'Configured idle poll interval (POLL_INTERVAL_SECONDS)',
  registers: [registry],
});

/**
 * Slack Web API calls of the background posters (job cards, request outcomes, alerts, digests)
 * that failed, by Slack's error code (`ratelimited`, `not_in_channel`, `invalid_auth`, `network`,
 * `http_503`…; `other` for an unexpected shape).
 */
export const slackCallErrors = new client.Counter({
  name: 'drmchatops_slack_call_errors_total',
  help: 'Failed Slack Web API calls of the background posters, by Slack error code',
  labelNames: ['code'] as const,
  registers: [registry],
});

let storeProbe: (() => Promise<boolean>) | undefined;

/** The store answers (1) or not (0), pinged at each scrape (bounded: the store's ping timeout). */
export const storeUp = new client.Gauge({
  name: 'drmchatops_store_up',
  help: 'The store (SQLite or Redis) answers a ping: 1 yes, 0 no',
  registers: [registry],
  async collect() {
    if (!storeProbe) return;
    this.set((await storeProbe().catch(() => false)) ? 1 : 0);
  },
});

/** What `drmchatops_store_up` pings (the app's store; the last app created wins). */
export function setStoreProbe(probe: (() => Promise<boolean>) | undefined): void {
  storeProbe = probe;
}
