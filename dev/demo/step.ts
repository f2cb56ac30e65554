/** What a demo step is, and the error a step throws naming what the bot did not produce. */

import type { DemoStack } from './stack.js';

export class DemoStepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoStepError';
  }
}

export interface DemoStep {
  title: string;
  /** What the step shows, in one line. */
  about: string;
  run(s: DemoStack, state: DemoState): Promise<void>;
}

export interface DemoState {
  jobs: { completed?: number; failed?: number };
}
