/**
 * The migrations of stored data this release ships (run at start-up by main.ts through
 * src/store/migrations.ts, under the store lease). Append only: never edit or reorder a migration
 * a release has shipped; a new layout gets a new id. docs/operations.md says how to add one.
 */
import type { Migration } from '../store/index.js';
import { foldLegacyWaitIndex } from './job-waits.js';

export const WATCH_MIGRATIONS: readonly Migration[] = [
  {
    id: '0.2.0-wf-waits-per-workspace',
    description:
      'Workflow waits: the global index of every workspace (wf-waits-index) becomes a list of workspaces, each listed from its own index',
    async run(store, log) {
      const moved = await foldLegacyWaitIndex(store);
      log('workflow waits moved to the per-workspace layout', { waits: moved });
    },
  },
];
