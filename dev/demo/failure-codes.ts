/**
 * The demo's JOB_FAILURE_CODES: words for the failure codes its emulator's jobs use. The specs
 * give no failure code a meaning, so the product ships none (src/api/error-codes.ts); a
 * deployment that knows its pre-embedder's codes sets JOB_FAILURE_CODES like this (the same
 * entries are the example in docs/configuration.md). The demo sets them in its own config to tell
 * its story.
 */
import type { FailureExplanation } from '../../src/api/error-codes.js';

export const DEMO_FAILURE_CODES: Readonly<Record<string, FailureExplanation>> = {
  '3': {
    meaning: 'the pre-embedder stopped with exit status 3 (it could not process the source content)',
    next: 'Check that the content file of this job is complete and readable, then start the job again.',
  },
  'E-417': {
    meaning: 'the watermark could not be embedded for this recipient',
    next: 'Start the job again for this recipient; if it fails again, send the job id and DWM id to the watermarking provider.',
  },
  'E-503': {
    meaning: 'the pre-embedder was busy or unavailable',
    next: 'Wait a few minutes and start the job again.',
  },
};

/** DEMO_FAILURE_CODES as the JOB_FAILURE_CODES setting's JSON. */
export const DEMO_JOB_FAILURE_CODES = JSON.stringify(DEMO_FAILURE_CODES);
