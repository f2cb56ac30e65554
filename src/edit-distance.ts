/**
 * Edit distance for "did you mean": the one implementation, used by the command parser's typo
 * suggestions (src/slack), the recipient name suggestions (src/ops) and the unknown `.env` names
 * (src/config.ts). It sits at the src root so every layer can use it.
 */

/**
 * Optimal string alignment distance: Levenshtein (insertions, deletions, substitutions) plus
 * adjacent transpositions ("jbos" is one edit from "jobs"). `transpositions: false` is plain
 * Levenshtein (a swap costs two), which the recipient ranking was built and tested on.
 */
export function editDistance(a: string, b: string, opts: { transpositions?: boolean } = {}): number {
  if (a === b) return 0;
  const swaps = opts.transpositions ?? true;
  // Three rolling rows (the one before last is for transpositions): O(b) memory, as the
  // recipient ranking scores every name of a site.
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, before[j - 2]! + 1);
      cur[j] = v;
    }
    [before, prev, cur] = [prev, cur, before];
  }
  return prev[b.length]!;
}
