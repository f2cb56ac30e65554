import { randomBytes } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import { beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/log.js';
import type { AppDeps } from '../../../../../src/slack/deps.js';
import { adminContacts } from '../../../../../src/slack/kit/context/roles/refusals.js';
import { userInfo } from '../../../../../src/slack/kit/context/roles/slack-users.js';
import { resolveRole } from '../../../../../src/slack/kit/context/roles/standing.js';
import { createStore } from '../../../../../src/store/index.js';

let calls: string[];
const client = {
  users: {
    info: async ({ user }: { user: string }) => {
      calls.push(`users.info:${user}`);
      if (user === 'UFAIL') throw new Error('slack down');
      return {
        ok: true,
        user: { id: user, tz: 'Asia/Seoul', is_admin: user === 'USLACKADMIN', is_owner: user === 'UOWNER' },
      };
    },
  },
  usergroups: {
    users: {
      list: async ({ usergroup }: { usergroup: string }) => {
        calls.push(`usergroups:${usergroup}`);
        return { ok: true, users: ['UGROUP'] };
      },
    },
  },
} as unknown as WebClient;

async function makeDeps(adminUserIds: string[] = []): Promise<AppDeps> {
  const store = await createStore({ url: 'memory://', encryptionKey: randomBytes(32).toString('base64') });
  let t = 0;
  return {
    config: { adminUserIds } as never,
    store,
    api: {} as never,
    logger: createLogger({ level: 'silent' }),
    now: () => (t += 1000),
  };
}

beforeEach(() => {
  calls = [];
});

describe('roles', () => {
  it('admins: env ids, settings ids, Slack admins/owners, the admin user group; members otherwise', async () => {
    const deps = await makeDeps(['UENV']);
    await deps.store.settings.put('T1', { adminUserIds: ['USET'], adminUsergroupId: 'S1' });
    const roles = await Promise.all(
      ['UENV', 'USET', 'USLACKADMIN', 'UOWNER', 'UGROUP', 'UPLAIN'].map((u) =>
        resolveRole(deps, client, 'T1', u),
      ),
    );
    expect(roles).toEqual(['admin', 'admin', 'admin', 'admin', 'admin', 'member']);
    expect(calls).not.toContain('users.info:UENV');
  });
  it('users.info is cached; a failure is a member in UTC, never an admin', async () => {
    const deps = await makeDeps();
    await userInfo(deps, client, 'T1', 'U1');
    const again = await userInfo(deps, client, 'T1', 'U1');
    expect(again.tz).toBe('Asia/Seoul');
    expect(calls.filter((c) => c === 'users.info:U1')).toHaveLength(1);
    expect(await resolveRole(deps, client, 'T1', 'UFAIL')).toBe('member');
    expect((await userInfo(deps, client, 'T1', 'UFAIL')).tz).toBe('UTC');
  });
  it('who to ask names the configured admins', async () => {
    const deps = await makeDeps(['UENV']);
    expect(await adminContacts(deps, 'T1')).toBe('<@UENV> or a workspace admin');
    const none = await makeDeps();
    expect(await adminContacts(none, 'T2')).toBe('a workspace admin');
  });
});
