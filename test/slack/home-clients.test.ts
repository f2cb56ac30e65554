/**
 * The bot Web API clients (kit/web-client.ts) are one per workspace (a token rotation replaces
 * it), and an uninstall forgets the workspace's clients.
 */
import { describe, expect, it } from 'vitest';
import { webClients } from '../../src/slack/kit/web-client.js';
import { purgeWorkspace } from '../../src/slack/lifecycle.js';
import { memoryDeps } from './guarantees/support.js';

describe('Web API clients cache', () => {
  it('one client per workspace, replaced on token rotation, removed on uninstall', async () => {
    const deps = await memoryDeps();
    const clients = webClients(deps);
    expect(clients.size).toBe(0);
    const a = await clients.forWorkspace('T1');
    expect(await clients.forWorkspace('T1')).toBe(a);
    expect(clients.size).toBe(1);
    (deps.config.slack as { botToken: string }).botToken = 'xoxb-rotated';
    const b = await clients.forWorkspace('T1');
    expect(b).not.toBe(a);
    expect(clients.size).toBe(1);
    await purgeWorkspace(deps, 'T1', 'app_uninstalled');
    expect(clients.size).toBe(0);
    await deps.store.close();
  });

  it('uninstall hooks registered by a part of the app run on purge, and not after they are removed', async () => {
    const deps = await memoryDeps();
    const seen: string[] = [];
    const off = (await import('../../src/slack/lifecycle.js')).onUninstall(deps, (ws) => seen.push(ws));
    await purgeWorkspace(deps, 'T1', 'app_uninstalled');
    off();
    await purgeWorkspace(deps, 'T2', 'tokens_revoked');
    expect(seen).toEqual(['T1']);
    await deps.store.close();
  });
});
