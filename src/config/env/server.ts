/**
 * The settings of the running process: where it listens, the token of /readyz and /metrics, the
 * drain on SIGTERM, the bounded queue of slash command handlers and the log level.
 */
import { z } from 'zod';
import { intIn, type VariableSpec } from '../spec.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const LISTEN_VARIABLES: VariableSpec[] = [
  {
    name: 'PORT',
    required: 'no',
    default: '3000',
    description: 'HTTP port (Slack requests in HTTP mode, OAuth pages, /healthz, /readyz, /metrics).',
    schema: intIn(0, 65535),
  },
  {
    name: 'HOST',
    required: 'no',
    default: '0.0.0.0',
    description: 'Address to listen on.',
    schema: z.string().regex(/^[A-Za-z0-9.:[\]-]+$/, 'must be a host name or IP address'),
  },
];

export const PROBE_AND_DRAIN_VARIABLES: VariableSpec[] = [
  {
    name: 'METRICS_TOKEN',
    required: 'no',
    description:
      'When set, /readyz and /metrics answer only requests with `Authorization: Bearer <token>` (/healthz stays open). Set it whenever the port is reachable from outside the deployment.',
    schema: z.string().min(16, 'must be at least 16 characters (e.g. openssl rand -hex 24)'),
    secret: true,
  },
  {
    name: 'SHUTDOWN_DRAIN_SECONDS',
    required: 'no',
    default: '20',
    description:
      'On SIGTERM: how long requests in flight may take to finish before their users are told the bot is restarting; new requests are answered "restarting, try again in a minute" meanwhile.',
    schema: intIn(0, 120),
  },
];

export const COMMAND_QUEUE_VARIABLES: VariableSpec[] = [
  {
    name: 'COMMAND_CONCURRENCY',
    required: 'no',
    default: '32',
    description:
      'Slash command handlers one replica runs at the same time after their ack (the rest wait in a queue, in order). Commands that open a form skip the queue (a form must open within 3 s).',
    schema: intIn(1, 1024),
  },
  {
    name: 'COMMAND_QUEUE_MAX',
    required: 'no',
    default: '5000',
    description:
      'Slash commands that may wait for a free handler. Beyond it a command is answered "busy, try again in a minute" and not run (bounds memory under a burst).',
    schema: intIn(0, 100_000),
  },
];

export const LOG_VARIABLES: VariableSpec[] = [
  {
    name: 'LOG_LEVEL',
    required: 'no',
    default: 'info',
    description: 'One of fatal, error, warn, info, debug, trace, silent.',
    schema: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
  },
];
