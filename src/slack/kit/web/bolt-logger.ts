/**
 * Bolt's Logger on top of our pino logger (src/log.ts): Bolt's lines and the Web API client's
 * lines are JSON, redacted, at our level. Used by the Bolt app and by every WebClient
 * (./client.ts).
 */
import type { Logger as BoltLogger, LogLevel as BoltLogLevel } from '@slack/bolt';
import type { Logger } from '../../../log.js';

/** JSON fields whose values Bolt's debug lines may print (web-api only redacts tokens). */
const SECRET_FIELD_RE =
  /("?(?:client_secret|clientSecret|code|token|refresh_token|access_token|signing_secret|state)"?\s*[:=]\s*"?)([^",}\s]+)/gi;

/**
 * Bolt's Logger on top of pino (so Bolt's lines are JSON, redacted, at our level). Bolt and the
 * OAuth installer log request bodies at debug level (oauth.v2.access carries client_secret), so
 * every line is scrubbed of the configured secrets and of secret-named fields first.
 */
export function boltLogger(logger: Logger, secrets: string[] = []): BoltLogger {
  let log = logger.child({ component: 'bolt' });
  const known = secrets.filter((s) => s.length >= 6);
  const scrub = (text: string) => {
    let out = text.replace(SECRET_FIELD_RE, (_m, k: string) => `${k}[REDACTED]`);
    for (const s of known) out = out.split(s).join('[REDACTED]');
    return out;
  };
  const fmt = (msg: unknown[]) =>
    scrub(
      msg
        .map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m)))
        .join(' '),
    );
  return {
    debug: (...msg: unknown[]) => log.debug(fmt(msg)),
    info: (...msg: unknown[]) => log.info(fmt(msg)),
    warn: (...msg: unknown[]) => log.warn(fmt(msg)),
    error: (...msg: unknown[]) => log.error(fmt(msg)),
    // The level is ours (LOG_LEVEL), not Bolt's: Bolt calls setLevel with its own default.
    setLevel: (_level: BoltLogLevel) => undefined,
    getLevel: () => {
      const l = log.level;
      return (l === 'trace' ? 'debug' : l === 'fatal' || l === 'silent' ? 'error' : l) as BoltLogLevel;
    },
    setName: (name: string) => {
      log = logger.child({ component: name });
    },
  };
}
