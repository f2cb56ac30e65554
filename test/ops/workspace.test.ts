import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiFactory, WorkspaceCredentials } from '../../src/api/types.js';
import {
  loadCredentials,
  NotConfiguredError,
  resolveSite,
  SiteNotConfiguredError,
  workspaceClients,
} from '../../src/ops/workspace.js';
import { createStore } from '../../src/store/index.js';

const KEY = randomBytes(32).toString('hex');
const creds: WorkspaceCredentials = {
  siteIds: ['AB12', 'CD34'],
  defaultSiteId: 'AB12',
  watermarking: { accountId: 'a', accessKey: 'k'.repeat(20), baseUrl: 'http://127.0.0.1:1/wm' },
};
const made: string[] = [];
const api = {
  watermarking: (c: { accountId: string }) => {
    made.push(`wm:${c.accountId}`);
    return {} as never;
  },
  service: () => ({}) as never,
  close: async () => {},
} as unknown as ApiFactory;

describe('workspace clients', () => {
  it('store credentials: clients made lazily once; missing part and nothing configured are clear errors', async () => {
    const store = await createStore({ url: 'memory://', encryptionKey: KEY });
    const deps = { config: { distribution: 'oauth' as const }, store, api, now: () => 0 };
    await expect(workspaceClients(deps, 'T1')).rejects.toBeInstanceOf(NotConfiguredError);
    await store.credentials.put('T1', { credentials: creds, verifiedAt: 'x', savedBy: 'U1' });
    const c = await workspaceClients(deps, 'T1');
    expect(made).toEqual([]);
    c.watermarking();
    c.watermarking();
    expect(made).toEqual(['wm:a']);
    expect(() => c.service()).toThrow(NotConfiguredError);
    expect(c.readOnly).toBe(false);
    expect(c.site()).toBe('AB12');
    expect(c.site('cd34')).toBe('CD34');
    await store.close();
  });
  it('env credentials win in single mode and are read-only', async () => {
    const store = await createStore({ url: 'memory://', encryptionKey: KEY });
    const deps = {
      config: { distribution: 'single' as const, envCredentials: creds },
      store,
      api,
      now: () => 0,
    };
    const l = await loadCredentials(deps, 'T9');
    expect(l).toMatchObject({ source: 'env', readOnly: true });
    await store.close();
  });
  it('an unknown site lists the configured ones', () => {
    expect(() => resolveSite(creds, 'ZZ99')).toThrow(SiteNotConfiguredError);
    expect(() => resolveSite(creds, 'ZZ99')).toThrow(/Configured sites: AB12, CD34/);
  });
});
