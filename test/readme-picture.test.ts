/**
 * The README's picture (docs/img/job-card.png) is not stale: the messages it was drawn from,
 * stored next to it by `npm run picture` (docs/img/job-card.blocks.json), are what the card
 * renderer produces today for the demo's failed job (dev/demo/card-sample.ts). That the sample's
 * inputs are the demo's is checked by test/demo/demo.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BLOCKS_FILE, blocksFileText, sampleCard } from '../dev/demo/card-sample.js';

const root = new URL('..', import.meta.url);

describe('README picture', () => {
  it('was drawn from the blocks the card renderer produces today', () => {
    const stored = readFileSync(new URL(BLOCKS_FILE, root), 'utf8');
    expect(
      stored,
      'docs/img/job-card.png is stale (the job card renderer changed since it was drawn): run `npm run picture` and commit docs/img/job-card.png and docs/img/job-card.blocks.json',
    ).toBe(blocksFileText(sampleCard()));
  });

  it('the README shows the picture', () => {
    expect(readFileSync(new URL('README.md', root), 'utf8')).toMatch(
      /!\[[^\]]+\]\(docs\/img\/job-card\.png\)/,
    );
  });
});
