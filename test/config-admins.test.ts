import { describe, expect, it } from 'vitest';
import { ConfigError, configAdminIds, loadConfig } from '../src/config.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const single = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_SIGNING_SECRET: 'sign-secret-xyz',
  ENCRYPTION_KEY: KEY,
};
const oauth = {
  SLACK_SIGNING_SECRET: 's',
  SLACK_CLIENT_ID: '123.456',
  SLACK_CLIENT_SECRET: 'cs',
  SLACK_STATE_SECRET: 'a-long-state-secret-123',
  ENCRYPTION_KEY: KEY,
};

describe('ADMIN_USER_IDS scoped per workspace', () => {
  it('a scoped id is an admin in its own workspace only', () => {
    const c = loadConfig({ ...oauth, ADMIN_USER_IDS: 'T0AAA:U0ALICE,E0ORG:W0BOB' });
    expect(configAdminIds(c, 'T0AAA')).toEqual(['U0ALICE']);
    expect(configAdminIds(c, 'T0BBB')).toEqual([]);
    expect(configAdminIds(c, 'E0ORG')).toEqual(['W0BOB']);
  });

  it('with OAuth, a bare id is refused with the form to use', () => {
    let err: unknown;
    try {
      loadConfig({ ...oauth, ADMIN_USER_IDS: 'U0ALICE' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('T0123ABCD:U0ALICE');
  });

  it('with one workspace, bare ids apply there (and scoped ones only to their team)', () => {
    const c = loadConfig({ ...single, ADMIN_USER_IDS: 'U0ALICE,T0OTHER:U0BOB' });
    expect(configAdminIds(c, 'T0MINE')).toEqual(['U0ALICE']);
  });

  it('refuses an entry that is not a user id', () => {
    expect(() => loadConfig({ ...single, ADMIN_USER_IDS: 'alice' })).toThrow(/scoped to its workspace/);
  });
});
