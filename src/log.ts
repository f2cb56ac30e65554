/**
 * Structured JSON logging (pino) with secret redaction. Every module logs through `logger` or a
 * child of it. Redaction is by field path (pino's fast-redact) plus a last-resort scrub of values
 * that look like secrets (Slack tokens, Bearer/Basic credentials, JWTs) in any string field.
 */
import { type Logger, pino } from 'pino';

/** Field names whose values are always replaced, at any depth up to 4 levels. */
export const SECRET_KEYS = [
  'accessKey',
  'access_key',
  'secretKey',
  'secret_key',
  'token',
  'botToken',
  'bot_token',
  'userToken',
  'appToken',
  'authorization',
  'Authorization',
  'password',
  'key_pw',
  'keyPw',
  'ask',
  'site_key',
  'siteKey',
  'kms_token',
  'kmsToken',
  'iv',
  'clientSecret',
  'client_secret',
  'signing_secret',
  'state_secret',
  'refresh_token',
  'access_token',
  'bot_access_token',
  'signingSecret',
  'stateSecret',
  'encryptionKey',
  'private_key',
  'privateKey',
  'fps_cert',
  'fpsCert',
  'cookie',
  'Cookie',
];

/**
 * Properties some libraries hang on their errors (Bolt's receiver errors carry the whole request
 * and response, headers included): never serialised.
 */
const ERROR_FIELDS_DROPPED = ['req', 'res', 'request', 'response', 'socket', 'headers', 'config'];

function redactPaths(): string[] {
  const out: string[] = [];
  for (const k of SECRET_KEYS) {
    out.push(k, `*.${k}`, `*.*.${k}`, `*.*.*.${k}`);
  }
  return out;
}

const SECRET_PATTERNS: RegExp[] = [
  /xox[abposr]-[A-Za-z0-9-]+/g, // Slack tokens
  /xapp-[A-Za-z0-9-]+/g, // Slack app-level tokens
  /xwfp-[A-Za-z0-9-]+/g, // Slack workflow step tokens (a function_executed event's bot_access_token)
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, // HTTP credentials
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWT / JWS / JWE-ish
];

/**
 * Known secret VALUES (the signing secret, the encryption key, service access keys and secret
 * keys as they are loaded from the environment or the vault): shapes alone cannot recognise a
 * hex signing secret or an access key, so the values themselves are censored wherever they
 * appear in a message, an error message or a stack. Values shorter than 8 characters are not
 * registered (they would censor ordinary words). Bounded: the oldest are forgotten first.
 */
const knownSecrets = new Set<string>();
const MAX_KNOWN_SECRETS = 5000;
const MIN_SECRET_LENGTH = 8;

/** Register secret values to censor in every log line (undefined and short values are ignored). */
export function registerSecret(...values: Array<string | undefined | null>): void {
  for (const v of values) {
    if (typeof v !== 'string' || v.length < MIN_SECRET_LENGTH || knownSecrets.has(v)) continue;
    knownSecrets.add(v);
    if (knownSecrets.size > MAX_KNOWN_SECRETS) {
      const oldest = knownSecrets.values().next().value;
      if (oldest !== undefined) knownSecrets.delete(oldest);
    }
  }
}

/** Replace anything that looks like a credential, or is a registered secret, in a string. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const re of SECRET_PATTERNS) out = out.replace(re, '[REDACTED]');
  if (knownSecrets.size > 0 && out.length >= MIN_SECRET_LENGTH) {
    for (const v of knownSecrets) if (out.includes(v)) out = out.split(v).join('[REDACTED]');
  }
  return out;
}

export function createLogger(opts: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  const level = opts.level ?? process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info');
  const options: pino.LoggerOptions = {
    level,
    base: { app: 'drm-chatops' },
    redact: { paths: redactPaths(), censor: '[REDACTED]' },
    formatters: { level: (label) => ({ level: label }) },
    hooks: {
      // Last-resort scrub of the message text and string arguments.
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as typeof args;
        method.apply(this, scrubbed);
      },
    },
    serializers: {
      err: (e: unknown) => {
        const s = pino.stdSerializers.err(e as Error);
        if (s) for (const k of ERROR_FIELDS_DROPPED) delete (s as Record<string, unknown>)[k];
        if (s && typeof s.message === 'string') s.message = scrubSecrets(s.message);
        if (s && typeof s.stack === 'string') s.stack = scrubSecrets(s.stack);
        return s;
      },
    },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

/** The process logger. Tests may replace its destination through createLogger. */
export let logger: Logger = createLogger();

/** Swap the process logger (tests capture logs to assert no secret appears). */
export function setLogger(l: Logger): void {
  logger = l;
}

export type { Logger };
