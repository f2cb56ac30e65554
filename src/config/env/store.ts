/**
 * The store's settings: where state is kept (STORE_URL) and how a request waits for it, the
 * SQLite journal, the encryption keys of the secrets at rest (and `decodeKey`, their format), and
 * how long audit entries and an uninstalled workspace's data are kept (with the audit channel).
 */
import { z } from 'zod';
import { commaList, intIn, type VariableSpec } from '../spec.js';

/** 32 bytes, as 64 hex characters or base64 (standard or url-safe). Returns undefined if not. */
export function decodeKey(text: string): Buffer | undefined {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) {
    const buf = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (buf.length === 32) return buf;
  }
  return undefined;
}
const encKey = z
  .string()
  .refine((s) => decodeKey(s) !== undefined, 'must be 32 random bytes as base64 or 64 hex characters');

export const STORE_URL_VARIABLES: VariableSpec[] = [
  {
    name: 'STORE_URL',
    required: 'no',
    default: 'sqlite://./data/drm-chatops.sqlite',
    description:
      'Where state is kept: sqlite://PATH, redis://HOST:PORT (several replicas) or memory:// (tests).',
    schema: z
      .string()
      .regex(
        /^(sqlite:\/\/.+|rediss?:\/\/.+|memory:\/\/.*)$/,
        'must start with sqlite://, redis:// or memory://',
      ),
    secret: true, // a redis URL may carry a password
  },
];

export const STORE_ACCESS_VARIABLES: VariableSpec[] = [
  {
    name: 'STORE_REQUEST_TIMEOUT_MS',
    required: 'no',
    default: '1000',
    description:
      'How long one store operation made for a Slack request may wait (ms). During a store outage users are told "storage is unavailable" instead of waiting; background work (watcher, outbox) waits and resumes.',
    schema: intIn(100, 30_000),
  },
  {
    name: 'SQLITE_JOURNAL',
    required: 'no',
    default: 'wal',
    description:
      'SQLite store only: `wal` (write-ahead log, commits without an fsync each; a killed process loses nothing committed, a power cut may lose the last second) or `delete` (rollback journal, every commit fsynced: for network filesystems without WAL support, or when a power cut must lose nothing). See src/store/index.ts.',
    schema: z.enum(['wal', 'delete'], { error: 'must be wal or delete' }),
  },
];

export const ENCRYPTION_VARIABLES: VariableSpec[] = [
  {
    name: 'ENCRYPTION_KEY',
    required: 'yes',
    description:
      'Key that encrypts bot tokens and service credentials at rest: 32 random bytes, base64 or hex (`openssl rand -base64 32`).',
    schema: encKey,
    secret: true,
  },
  {
    name: 'ENCRYPTION_KEYS_PREVIOUS',
    required: 'no',
    description: 'Comma-separated older keys, still accepted for reading after a key rotation.',
    schema: commaList(encKey),
    secret: true,
  },
];

export const AUDIT_VARIABLES: VariableSpec[] = [
  {
    name: 'AUDIT_CHANNEL_ID',
    required: 'no',
    description: 'Channel id (C... or G...) where the audit log is mirrored (single workspace default).',
    schema: z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'must be a channel id like C0123ABCD'),
  },
  {
    name: 'AUDIT_CAP',
    required: 'no',
    default: '5000',
    description:
      'Audit entries kept in the store per workspace; the oldest is dropped when one more is added. Every entry is also a log line with the key "audit", for a log pipeline that keeps more.',
    schema: intIn(100, 1_000_000),
  },
  {
    name: 'UNINSTALL_GRACE_DAYS',
    required: 'no',
    default: '3',
    description:
      "Days an uninstalled workspace's data is kept (nothing runs for it meanwhile); reinstalling within them restores everything. Then it is deleted, retried until the store takes it. 0 deletes at the next sweep (about an hour).",
    schema: intIn(0, 365),
  },
  {
    name: 'AUDIT_RETENTION_DAYS',
    required: 'no',
    default: '90',
    description:
      "Days a workspace's audit entries are kept after its data was deleted (uninstall plus grace period), for a security review; then they are deleted too.",
    schema: intIn(0, 3650),
  },
];
