/**
 * Membership of the watcher replicas, and which one is preferred for a site. Every replica
 * heartbeats into one shared document (`watch-replicas`, every idle interval / 8, at least 1 s; a
 * member is live for 3 heartbeats, entries older than 20 heartbeats are dropped) and refreshes its
 * view of the live members at its own heartbeat. Each site has one preferred replica among the
 * live ones (rendezvous hashing of holder + site: the same answer on every replica), so work
 * spreads evenly and moves when a replica joins or dies. Preference is an optimisation only: the
 * site's lease alone decides who polls (see index.ts).
 */
import type { Logger } from '../log.js';
import type { AtomicDocRepo, Store } from '../store/types.js';

/** Membership document of the replicas. */
export const REPLICAS_NS = 'watch-replicas';
const REPLICAS_KEY = '_global';

/** FNV-1a, 32 bits: a cheap, stable hash for rendezvous hashing (not for security). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  // Final avalanche (murmur3 fmix32): FNV alone clusters on inputs that differ in the last chars.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** The replica preferred for a site (rendezvous hashing): same answer on every replica. */
export function preferredReplica(live: readonly string[], site: string): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const h of live) {
    const score = fnv1a(`${h}\u0000${site}`);
    if (score > bestScore || (score === bestScore && best !== undefined && h < best)) {
      best = h;
      bestScore = score;
    }
  }
  return best;
}

/** What remembers its preference per membership (a watched site, see targets.ts). */
export interface PreferenceMemo {
  /** siteKey(ws, site): what the preference is hashed on. */
  key: string;
  /** Whether this replica is preferred for the site, computed for the `live` array prefLive. */
  preferred: boolean;
  prefLive?: readonly string[];
}

export class Membership {
  private readonly repo: AtomicDocRepo<{ m: Record<string, number> }>;
  private live: string[];
  private beatAt = Number.NEGATIVE_INFINITY;

  constructor(
    store: Store,
    private readonly holderId: string,
    /** Heartbeat of this replica, ms. */
    readonly heartbeatMs: number,
  ) {
    this.repo = store.docs<{ m: Record<string, number> }>(REPLICAS_NS);
    this.live = [holderId];
  }

  /** Heartbeat into the document when one is due, and refresh the live members. */
  async heartbeat(now: number): Promise<void> {
    if (now - this.beatAt < this.heartbeatMs) return;
    this.beatAt = now;
    const { holderId, heartbeatMs } = this;
    const doc = await this.repo.update(REPLICAS_KEY, 'members', (old) => {
      const m: Record<string, number> = {};
      for (const [h, t] of Object.entries(old?.m ?? {})) if (now - t < 20 * heartbeatMs) m[h] = t;
      m[holderId] = now;
      return { m };
    });
    const next = Object.entries(doc?.m ?? {})
      .filter(([h, t]) => h === holderId || now - t <= 3 * heartbeatMs)
      .map(([h]) => h)
      .sort();
    const nextLive = next.includes(holderId) ? next : [...next, holderId];
    // Keep the same array while the members do not change: targets remember their preference
    // per `live` array (see isPreferred), so an unchanged membership costs no rehashing.
    const live = this.live;
    if (nextLive.length !== live.length || nextLive.some((h, i) => h !== live[i])) this.live = nextLive;
  }

  /** This replica is preferred for the site (remembered on `t` until the membership changes). */
  isPreferred(t: PreferenceMemo): boolean {
    if (this.live.length <= 1) return true;
    if (t.prefLive !== this.live) {
      t.prefLive = this.live;
      t.preferred = preferredReplica(this.live, t.key) === this.holderId;
    }
    return t.preferred;
  }

  /** Leave the membership (at stop, when it ever joined): the others take its sites at once. */
  async leave(log: Logger): Promise<void> {
    if (this.beatAt === Number.NEGATIVE_INFINITY) return;
    const holderId = this.holderId;
    await this.repo
      .update(REPLICAS_KEY, 'members', (old) => {
        const { [holderId]: _me, ...m } = old?.m ?? {};
        return { m };
      })
      .catch((err: unknown) => log.warn({ err }, 'could not leave the replica membership'));
  }
}
