/**
 * keyv's stored entry format (`{"value":…,"expires":…}`), written and read without keyv's
 * generic serializer, for the SQLite and Redis backends.
 *
 * The stored text is byte for byte what `@keyv/serialize` writes for the entries this store
 * keeps (the value is always a string: JSON or a JWE), so a release before this one reads what
 * this one writes (a rollback) and the other way round. What changes is the cost: keyv's default
 * builds the text with a recursive string walk and reads it with a JSON.parse reviver that calls
 * back for every string; the watcher reads and writes a few documents per poll, so that was a
 * large share of its garbage per poll (bench figure 3). Here it is one JSON.stringify of the
 * value and one plain JSON.parse.
 *
 * keyv's escapes are kept: a string value starting with ':' is stored with one more ':' in front,
 * and ':base64:…' is how keyv stores a Buffer (none is stored here; read as keyv would read it).
 * The memory backend stores entries as objects and does not use this (nothing to encode).
 */

/** What keyv hands a serializer and expects back from a deserializer. */
export interface KeyvEntry {
  value?: unknown;
  expires?: number | null;
}

export function serializeEntry(data: KeyvEntry): string {
  const { value, expires } = data;
  if (typeof value !== 'string') {
    // Keyv<string> only ever hands strings; anything else is a programming error here.
    throw new TypeError(`store: expected a string value, got ${value === null ? 'null' : typeof value}`);
  }
  const v = JSON.stringify(value.startsWith(':') ? `:${value}` : value);
  // @keyv/serialize leaves out an undefined field and writes null as null.
  if (expires === undefined) return `{"value":${v}}`;
  return `{"value":${v},"expires":${expires === null ? 'null' : JSON.stringify(expires)}}`;
}

export function deserializeEntry(raw: string): KeyvEntry | undefined {
  const data: unknown = JSON.parse(raw);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const entry = data as { value?: unknown; expires?: unknown };
  const out: KeyvEntry = {};
  if ('value' in entry) out.value = unescapeValue(entry.value);
  if (typeof entry.expires === 'number' || entry.expires === null) out.expires = entry.expires;
  return out;
}

function unescapeValue(v: unknown): unknown {
  if (typeof v !== 'string' || !v.startsWith(':')) return v;
  return v.startsWith(':base64:') ? Buffer.from(v.slice(8), 'base64') : v.slice(1);
}
