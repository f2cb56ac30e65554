/**
 * The one bounded cache, usable by every layer. `LruMap`: a Map that keeps at most `max` entries,
 * evicting the least recently used (per-process caches of clients, zones and formatters must not
 * grow with every workspace, token rotation or zone name). `TtlLru`: the same with an age limit
 * read against the caller's clock (an expired entry is deleted when read). No timers: memory is
 * bounded by `max`.
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(readonly max: number) {}
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: K, value: V): this {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.map.delete(oldest.value);
    }
    return this;
  }
  delete(key: K): boolean {
    return this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
  get size(): number {
    return this.map.size;
  }
}

export class TtlLru<V> {
  private readonly map: LruMap<string, { at: number; value: V }>;
  constructor(
    max: number,
    private readonly ttlMs: number,
  ) {
    this.map = new LruMap(max);
  }
  get size(): number {
    return this.map.size;
  }
  get(key: string, now: number): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (now - hit.at >= this.ttlMs) {
      this.map.delete(key);
      return undefined;
    }
    return hit.value;
  }
  set(key: string, value: V, now: number): void {
    this.map.set(key, { at: now, value });
  }
  delete(key: string): boolean {
    return this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
}
