/**
 * Review #21: the Home tab's Web API clients are one per workspace (a token rotation replaces it),
 * and an uninstall forgets the workspace's clients.
 */
import { describe, expect, it } from 'vitest';
import { purgeWorkspace } from '../../src/slack/lifecycle.js';
import {
  forgetHomeClient,
  homeClientCount,
  workspaceSlackClient,
} from '../../src/slack/listeners/events/home-publish.js';
import { reviewDeps } from '../review/support.js';

describe('Home clients cache', () => {
  it('one client per workspace, replaced on token rotation, removed on uninstall', async () => {
    const deps = await reviewDeps();
    forgetHomeClient('T1');
    const before = homeClientCount();
    const a = await workspaceSlackClient(deps, 'T1');
    expect(await workspaceSlackClient(deps, 'T1')).toBe(a);
    expect(homeClientCount()).toBe(before + 1);
    (deps.config.slack as { botToken: string }).botToken = 'xoxb-rotated';
    const b = await workspaceSlackClient(deps, 'T1');
    expect(b).not.toBe(a);
    expect(homeClientCount()).toBe(before + 1);
    await purgeWorkspace(deps, 'T1', 'app_uninstalled');
    expect(homeClientCount()).toBe(before);
    await deps.store.close();
  });
});
