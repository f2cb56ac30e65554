/**
 * LocalBackend (memory://, sqlite://) must surface its keyv store's errors. keyv swallows them by
 * default in set/delete/get: a failed SQLite write resolved like a stored one (the watch outbox
 * could "write" an intent, advance its poll state and lose the notification with nothing logged)
 * and ping() read a failing store as healthy.
 */
import { Keyv } from 'keyv';
import { describe, expect, it } from 'vitest';
import { LocalBackend } from '../../src/store/backend.js';

/** A keyv storage adapter over a Map whose operations fail while `failing` is set. */
class FlakyMap extends Map<string, unknown> {
  failing = false;
  private check(_k: string): void {
    if (this.failing) throw new Error('SQLITE_BUSY: database is locked');
  }
  override get(k: string) {
    this.check(k);
    return super.get(k);
  }
  override set(k: string, v: unknown) {
    this.check(k);
    return super.set(k, v);
  }
  override delete(k: string) {
    this.check(k);
    return super.delete(k);
  }
}

function rig() {
  const map = new FlakyMap();
  const keyv = new Keyv<string>({ store: map, useKeyPrefix: false, namespace: undefined });
  keyv.on('error', () => undefined);
  const backend = new LocalBackend('sqlite', keyv, 'root:ping');
  return { map, backend };
}

describe('LocalBackend surfaces store errors', () => {
  it('a failed write rejects instead of resolving as stored', async () => {
    const { map, backend } = rig();
    map.failing = true;
    await expect(backend.set('k', 'v')).rejects.toThrow(/SQLITE_BUSY/);
    await expect(backend.sAdd('idx', ['a'])).rejects.toThrow(/SQLITE_BUSY/);
    await expect(backend.delete(['k'])).rejects.toThrow(/SQLITE_BUSY/);
  });

  it('a failed read rejects, and ping() reports the store unhealthy', async () => {
    const { map, backend } = rig();
    await backend.set('k', 'v');
    map.failing = true;
    await expect(backend.get('k')).rejects.toThrow(/SQLITE_BUSY/);
    expect(await backend.ping()).toBe(false);
    map.failing = false;
    expect(await backend.get('k')).toBe('v');
    expect(await backend.ping()).toBe(true);
  });
});
