/**
 * STORE_URL: which backend a URL names (`parseStoreUrl`: sqlite://, redis:// or memory://, with
 * a message saying what to write instead) and the URL with its password hidden (`redactUrl`), for
 * logs and messages.
 */
import { StoreConfigError } from './errors.js';

export const DEFAULT_STORE_URL = 'sqlite://./data/drm-chatops.sqlite';

export type StoreLocation =
  | { backend: 'memory' }
  | { backend: 'sqlite'; path: string }
  | { backend: 'redis'; url: string };

/**
 * A Redis URL with any password replaced, for logs and messages; also every URL inside a longer
 * text (an error message, an argument echoed back).
 */
export function redactUrl(url: string): string {
  return url.replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^@/\s]*)@/gi, (_m, scheme: string, auth: string) =>
    auth.includes(':') ? `${scheme}${auth.split(':')[0]}:***@` : `${scheme}***@`,
  );
}

export function parseStoreUrl(url: string): StoreLocation {
  const text = url.trim();
  const hint = `Use sqlite://<path> (e.g. ${DEFAULT_STORE_URL}), redis://host:port[/db] or memory://.`;
  if (text === 'memory://' || text === 'memory:') return { backend: 'memory' };
  if (text.startsWith('sqlite://')) {
    const path = text.slice('sqlite://'.length);
    if (path === '' || path === ':memory:') {
      throw new StoreConfigError('STORE_URL', `STORE_URL sqlite:// needs a file path. ${hint}`);
    }
    return { backend: 'sqlite', path };
  }
  if (/^rediss?:\/\//.test(text)) {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw new StoreConfigError(
        'STORE_URL',
        `STORE_URL ${redactUrl(text)} is not a valid Redis URL. ${hint}`,
      );
    }
    if (!parsed.hostname) {
      throw new StoreConfigError('STORE_URL', `STORE_URL ${redactUrl(text)} has no host. ${hint}`);
    }
    const db = parsed.pathname.replace(/^\//, '');
    if (db !== '' && !/^\d{1,2}$/.test(db)) {
      throw new StoreConfigError(
        'STORE_URL',
        `STORE_URL ${redactUrl(text)}: the database must be a number (/0../15). ${hint}`,
      );
    }
    return { backend: 'redis', url: text };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1];
  throw new StoreConfigError(
    'STORE_URL',
    `STORE_URL ${scheme ? `scheme "${scheme}:"` : `"${redactUrl(text).slice(0, 60)}"`} is not supported. ${hint}`,
  );
}
