import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { createInstallationStore, InstallationNotFoundError } from '../../../src/slack/installation-store.js';
import { createLifecycle } from '../../../src/slack/lifecycle.js';
import { createStore } from '../../../src/store/index.js';
import type { Store } from '../../../src/store/types.js';
import { captureLogs } from '../../harness/index.js';

const bot = (token: string) => ({ token, userId: 'U0BOT', id: 'B0BOT', scopes: ['commands'] });
const teamInstall = (team: string, token: string, enterprise?: string): Installation =>
  ({
    team: { id: team },
    enterprise: enterprise ? { id: enterprise } : undefined,
    user: { id: 'U1', token: undefined, scopes: undefined },
    isEnterpriseInstall: false,
    bot: bot(token),
  }) as Installation;
const orgInstall = (enterprise: string, token: string): Installation =>
  ({
    team: undefined,
    enterprise: { id: enterprise },
    user: { id: 'U1', token: undefined, scopes: undefined },
    isEnterpriseInstall: true,
    bot: bot(token),
  }) as Installation;

describe('installation store', () => {
  let store: Store;
  let raw: Map<string, unknown>;
  beforeEach(async () => {
    raw = new Map();
    store = await createStore({
      url: 'memory://',
      encryptionKey: randomBytes(32).toString('base64'),
      memoryMap: raw,
    });
  });
  afterEach(async () => {
    await store.close();
  });

  it('stores a workspace install encrypted and fetches it by team', async () => {
    const s = createInstallationStore(store, createLogger({ level: 'silent' }));
    await s.storeInstallation(teamInstall('T0A', 'xoxb-1-team-a-secret'));
    expect(JSON.stringify([...raw.values()])).not.toContain('xoxb-1-team-a-secret');
    const got = await s.fetchInstallation({
      teamId: 'T0A',
      isEnterpriseInstall: false,
      enterpriseId: undefined,
    });
    expect(got.bot?.token).toBe('xoxb-1-team-a-secret');
  });

  it('serves teams of an org from an org-wide install, but a team install wins', async () => {
    const s = createInstallationStore(store, createLogger({ level: 'silent' }));
    await s.storeInstallation(orgInstall('E0ORG', 'xoxb-2-org'));
    const viaOrg = await s.fetchInstallation({
      teamId: 'T0X',
      enterpriseId: 'E0ORG',
      isEnterpriseInstall: false,
    });
    expect(viaOrg.bot?.token).toBe('xoxb-2-org');
    await s.storeInstallation(teamInstall('T0X', 'xoxb-3-team', 'E0ORG'));
    const own = await s.fetchInstallation({
      teamId: 'T0X',
      enterpriseId: 'E0ORG',
      isEnterpriseInstall: false,
    });
    expect(own.bot?.token).toBe('xoxb-3-team');
    const org = await s.fetchInstallation({
      teamId: undefined,
      enterpriseId: 'E0ORG',
      isEnterpriseInstall: true,
    });
    expect(org.bot?.token).toBe('xoxb-2-org');
  });

  it('throws InstallationNotFoundError for an unknown workspace and after delete', async () => {
    const s = createInstallationStore(store, createLogger({ level: 'silent' }));
    const q = { teamId: 'T0B', isEnterpriseInstall: false, enterpriseId: undefined } as const;
    await expect(s.fetchInstallation(q)).rejects.toBeInstanceOf(InstallationNotFoundError);
    await s.storeInstallation(teamInstall('T0B', 'xoxb-4-b'));
    await s.deleteInstallation!(q);
    await expect(s.fetchInstallation(q)).rejects.toBeInstanceOf(InstallationNotFoundError);
  });

  it('refuses to store an installation without a bot token, and reports a malformed stored one', async () => {
    const s = createInstallationStore(store, createLogger({ level: 'silent' }));
    await expect(
      s.storeInstallation({ ...teamInstall('T0C', 'x'), bot: undefined } as Installation),
    ).rejects.toThrow(/bot token/);
    await store.installations.save('T0D', { team: { id: 'T0D' }, bot: { token: 5 } });
    await expect(
      s.fetchInstallation({ teamId: 'T0D', isEnterpriseInstall: false, enterpriseId: undefined }),
    ).rejects.toThrow(/malformed; reinstall/);
  });
});

describe('lifecycle hooks', () => {
  it('runs stop hooks newest first, once, survives a failing hook and bounds a hanging one', async () => {
    const { logger, capture } = captureLogs('debug');
    const lc = createLifecycle();
    const order: string[] = [];
    lc.onStop('first', () => {
      order.push('first');
    });
    lc.onStop('failing', () => {
      throw new Error('nope');
    });
    lc.onStop('hanging', () => new Promise<void>(() => undefined));
    const off = lc.onStop('removed', () => {
      order.push('removed');
    });
    lc.onStop('last', async () => {
      order.push('last');
    });
    off();
    await Promise.all([lc.stopAll(logger, 50), lc.stopAll(logger, 50)]);
    expect(order).toEqual(['last', 'first']);
    const msgs = capture.entries().map((e) => `${e.hook}:${e.msg}`);
    expect(msgs).toContain('hanging:shutdown hook timed out');
    expect(msgs).toContain('failing:shutdown hook failed');
  });
});
