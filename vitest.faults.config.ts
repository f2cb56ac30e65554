/**
 * The reliability and security suite (`npm run test:faults`): faults, bad input and abuse.
 * Slower than the unit suite (child processes killed with SIGKILL, a Redis restarted), so it is
 * kept out of `npm test`: its files end in `.fault.ts`, which the default config does not include.
 *
 * Determinism: FAULTS_SEED (printed at the start and in the summary) seeds every random choice;
 * re-run a failure with `FAULTS_SEED=<seed> npm run test:faults`.
 * The summary table (scenario, injected, outcome, lost, duplicated) is printed by the global
 * setup's teardown from the rows each scenario records (test/faults/support/summary.ts).
 */
import { randomInt } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

process.env.FAULTS_SEED ??= String(randomInt(1, 2 ** 31 - 1));
process.env.FAULTS_SUMMARY_DIR ??= join(tmpdir(), `drm-faults-${process.pid}-${Date.now()}`);

export default defineConfig({
  test: {
    include: ['test/faults/**/*.fault.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: the child-process scenarios need room; run files two at a time at most.
    maxWorkers: 2,
    setupFiles: ['test/setup.ts', 'test/faults/support/unhandled.ts'],
    globalSetup: ['test/faults/support/global-setup.ts'],
    env: {
      FAULTS_SEED: process.env.FAULTS_SEED,
      FAULTS_SUMMARY_DIR: process.env.FAULTS_SUMMARY_DIR,
    },
  },
});
