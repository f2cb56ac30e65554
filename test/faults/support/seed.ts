/**
 * Seeded randomness for the faults suite: every random choice (kill points, fault order,
 * fast-check runs) derives from FAULTS_SEED so a failing run can be replayed exactly.
 */
export function suiteSeed(): number {
  const s = Number(process.env.FAULTS_SEED);
  return Number.isFinite(s) && s > 0 ? Math.floor(s) : 20261122;
}

/** Small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A PRNG for one named scenario (independent streams per scenario, same suite seed). */
export function scenarioRandom(name: string): () => number {
  let h = suiteSeed();
  for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return prng(h);
}

export function randInt(rand: () => number, min: number, max: number): number {
  return min + Math.floor(rand() * (max - min + 1));
}
