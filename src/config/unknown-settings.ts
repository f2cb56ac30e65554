/**
 * Names that are no setting of the bot (a `.env` file's typo such as METRIC_TOKEN), each with the
 * setting it most likely meant: `unknownSettings`, warned about at start-up. Names only, never
 * values.
 */

import { editDistance } from '../edit-distance.js';
import { VARIABLES } from './variables.js';

/**
 * Names a `.env` file may hold that are not the bot's settings but are read by Node or the
 * platform itself (not warned about).
 */
const RUNTIME_NAMES = new Set(['NODE_ENV', 'NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'TZ']);

/**
 * The names among `names` (e.g. those of a `.env` file) that are no setting of the bot, each with
 * the setting it most likely meant (a typo such as METRIC_TOKEN would otherwise leave /metrics
 * open without a word). Names only: never values.
 */
export function unknownSettings(names: readonly string[]): Array<{ name: string; meant?: string }> {
  const known = VARIABLES.map((v) => v.name);
  const out: Array<{ name: string; meant?: string }> = [];
  for (const name of names) {
    if (RUNTIME_NAMES.has(name) || known.includes(name)) continue;
    const upper = name.toUpperCase();
    let meant: string | undefined;
    let best = 3;
    for (const k of known) {
      const d = upper === k ? 0 : editDistance(upper, k, { transpositions: false });
      if (d < best) {
        best = d;
        meant = k;
      }
    }
    out.push(meant ? { name, meant } : { name });
  }
  return out;
}
