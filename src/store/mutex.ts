/**
 * Per-key async mutex for the single-process backends (memory, SQLite): read-modify-write
 * sequences on one key run one after another, different keys run in parallel.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<R>(key: string, fn: () => Promise<R>): Promise<R> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      // Last one out removes the entry so the map does not grow with every key ever used.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Number of keys with a holder or waiters (tests). */
  get size(): number {
    return this.tails.size;
  }
}
