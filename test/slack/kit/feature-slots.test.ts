/**
 * What the runtimes read from a feature list (kit/features.ts) instead of importing features: the
 * watcher's renderers (strict), the workflow waits port, and the Home refresh (every declared
 * `onHomeChanged`, awaited, a failing one logged and never thrown to the runtime).
 */
import { describe, expect, it } from 'vitest';
import type { AppDeps } from '../../../src/slack/deps.js';
import { FEATURES } from '../../../src/slack/features/index.js';
import {
  type Feature,
  homeChangedOf,
  jobWaitsOf,
  watchRenderersOf,
} from '../../../src/slack/kit/features.js';

describe('Feature slots read by the runtimes', () => {
  it('the watcher renderers of the product list are complete; a list without them is refused by name', () => {
    const r = watchRenderersOf(FEATURES);
    expect(typeof r.jobCard.renderJobCard).toBe('function');
    expect(typeof r.subscriptionPaused).toBe('function');
    expect(typeof r.pollingPaused).toBe('function');
    const partial: Feature = { name: 'partial', watchRenderers: { pollingPaused: r.pollingPaused } };
    expect(() => watchRenderersOf([partial])).toThrow(/jobCard, subscriptionPaused$/);
  });

  it('the workflow waits port comes from the feature that declares it', () => {
    expect(jobWaitsOf(FEATURES)).toBe(FEATURES.find((f) => f.name === 'workflow-steps')?.jobWaits);
    expect(jobWaitsOf([])).toBeUndefined();
  });

  it('the Home refresh runs every declared hook in order, awaited; a failing one is logged, not thrown', async () => {
    const seen: string[] = [];
    const warned: unknown[] = [];
    const deps = { logger: { warn: (o: unknown) => warned.push(o) } } as unknown as AppDeps;
    const refresh = homeChangedOf([
      {
        name: 'a',
        onHomeChanged: async (_d, ws) => {
          await Promise.resolve();
          seen.push(`a:${ws}`);
        },
      },
      {
        name: 'b',
        onHomeChanged: () => {
          throw new Error('boom');
        },
      },
      { name: 'c', onHomeChanged: (_d, ws) => void seen.push(`c:${ws}`) },
    ]);
    await expect(refresh(deps, 'T1')).resolves.toBeUndefined();
    expect(seen).toEqual(['a:T1', 'c:T1']);
    expect(warned).toHaveLength(1);
  });
});
