/**
 * The bot Web API clients (src/slack/kit/web/client.ts) are one per workspace (a token rotation replaces
 * it), and an uninstall forgets the workspace's clients. ONE cache per app: the runtimes' poster
 * factories take their (queued) clients from it, and Bolt's client options are built by it.
 */
import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { boltClientOptions, SLACK_RETRY_POLICY, webClients } from '../../../../src/slack/kit/web/client.js';
import { workspaceUninstalled } from '../../../../src/slack/lifecycle.js';
import { createPosterFactory } from '../../../../src/slack/poster.js';
import { memoryDeps } from '../../../support/slack-app.js';

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
    await workspaceUninstalled(deps, 'T1', 'app_uninstalled');
    expect(clients.size).toBe(0);
    await deps.store.close();
  });

  it('uninstall hooks registered by a part of the app run on purge, and not after they are removed', async () => {
    const deps = await memoryDeps();
    const seen: string[] = [];
    const off = (await import('../../../../src/slack/lifecycle.js')).onUninstall(deps, (ws) => seen.push(ws));
    await workspaceUninstalled(deps, 'T1', 'app_uninstalled');
    off();
    await workspaceUninstalled(deps, 'T2', 'tokens_revoked');
    expect(seen).toEqual(['T1']);
    await deps.store.close();
  });

  it('the poster factories of both runtimes share the one cache, with the queued policy; uninstall drops it', async () => {
    const deps = await memoryDeps();
    const watchPosters = createPosterFactory(deps);
    const notifyPosters = createPosterFactory(deps);
    const queued = await watchPosters.client('T1');
    expect(await notifyPosters.client('T1')).toBe(queued);
    expect(await webClients(deps).forWorkspace('T1', { queued: true })).toBe(queued);
    const interactive = await webClients(deps).forWorkspace('T1');
    expect(interactive).not.toBe(queued);
    expect(webClients(deps).size).toBe(2);
    const policy = (c: WebClient | undefined) => {
      const x = c as unknown as { retryConfig: unknown; rejectRateLimitedCalls: boolean };
      return { retryConfig: x.retryConfig, rejectRateLimitedCalls: x.rejectRateLimitedCalls };
    };
    // Background queues retry and pace themselves: no SDK retries, 429s rejected at once.
    expect(policy(queued)).toEqual({ retryConfig: { retries: 0 }, rejectRateLimitedCalls: true });
    expect(policy(interactive)).toEqual({ retryConfig: SLACK_RETRY_POLICY, rejectRateLimitedCalls: false });
    await workspaceUninstalled(deps, 'T1', 'app_uninstalled');
    expect(webClients(deps).size).toBe(0);
    await deps.store.close();
  });

  it("Bolt's client options: the interactive policy and SLACK_API_URL, Bolt's own logger", async () => {
    const deps = await memoryDeps();
    const o = boltClientOptions(deps);
    expect(o).toMatchObject({ slackApiUrl: deps.config.slack.apiUrl, retryConfig: SLACK_RETRY_POLICY });
    expect(o.logger).toBeUndefined();
    expect(boltClientOptions(deps, { retryConfig: { retries: 0 } }).retryConfig).toEqual({ retries: 0 });
    await deps.store.close();
  });
});
