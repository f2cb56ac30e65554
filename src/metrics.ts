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
