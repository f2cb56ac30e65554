import { describe, expect, it } from 'vitest';
import {
  CONFIG_DOC,
  ConfigError,
  configDocMarkdown,
  decodeKey,
  loadConfig,
  VARIABLES,
} from '../src/config.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const base = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_SIGNING_SECRET: 'sign-secret-xyz',
  ENCRYPTION_KEY: KEY,
};

function issuesOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('parses a minimal single-workspace HTTP configuration with defaults', () => {
    const c = loadConfig(base);
    expect(c.mode).toBe('http');
    expect(c.distribution).toBe('single');
    expect(c.port).toBe(3000);
    expect(c.storeUrl).toBe('sqlite://./data/drm-chatops.sqlite');
    expect(c.pollIntervalSeconds).toBe(60);
    expect(c.serviceJwt).toEqual({ sub: 'ServiceAPI', aud: 'AUDIENCE', iss: 'Service' });
    expect(c.slack.apiUrl).toBe('https://slack.com/api/');
    expect(c.envCredentials).toBeUndefined();
    expect(c.registrationInFlightGraceMs).toBe(5_000);
    expect(
      loadConfig({ ...base, REGISTRATION_INFLIGHT_GRACE_SECONDS: '30' }).registrationInFlightGraceMs,
    ).toBe(30_000);
    expect(() => loadConfig({ ...base, REGISTRATION_INFLIGHT_GRACE_SECONDS: '0' })).toThrow(
      /REGISTRATION_INFLIGHT_GRACE_SECONDS/,
    );
  });

  it('derives socket mode from SLACK_APP_TOKEN (no signing secret needed)', () => {
    const c = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1-A1-2', ENCRYPTION_KEY: KEY });
    expect(c.mode).toBe('socket');
  });

  it('derives OAuth distribution from the three OAuth variables', () => {
    const c = loadConfig({
      SLACK_SIGNING_SECRET: 's',
      SLACK_CLIENT_ID: '123.456',
      SLACK_CLIENT_SECRET: 'cs',
      SLACK_STATE_SECRET: 'a-long-state-secret-123',
      ENCRYPTION_KEY: KEY,
    });
    expect(c.distribution).toBe('oauth');
  });

  it('accepts a hex key and decodes both forms to 32 bytes', () => {
    const hex = Buffer.alloc(32, 9).toString('hex');
    expect(loadConfig({ ...base, ENCRYPTION_KEY: hex }).encryptionKey).toBe(hex);
    expect(decodeKey(hex)?.length).toBe(32);
    expect(decodeKey(KEY)?.length).toBe(32);
    expect(decodeKey('too-short')).toBeUndefined();
  });

  it('builds env credentials, defaulting the site to the first id', () => {
    const c = loadConfig({
      ...base,
      DWM_SITE_IDS: 'AB12, CD34',
      DWM_ACCOUNT_ID: 'acc',
      DWM_ACCESS_KEY: 'ak',
      DWM_BASE_URL: 'http://127.0.0.1:9/wm/',
    });
    expect(c.envCredentials).toEqual({
      siteIds: ['AB12', 'CD34'],
      defaultSiteId: 'AB12',
      watermarking: { accountId: 'acc', accessKey: 'ak', baseUrl: 'http://127.0.0.1:9/wm' },
    });
  });

  it.each([
    [{ ...base, ENCRYPTION_KEY: '' }, 'ENCRYPTION_KEY', /openssl rand/],
    [{ ...base, ENCRYPTION_KEY: 'abc' }, 'ENCRYPTION_KEY', /32 random bytes/],
    [{ ...base, SLACK_BOT_TOKEN: '' }, 'SLACK_BOT_TOKEN', /xoxb-/],
    [{ ...base, SLACK_BOT_TOKEN: 'xoxp-user' }, 'SLACK_BOT_TOKEN', /starting with "xoxb-"/],
    [{ ...base, SLACK_SIGNING_SECRET: '' }, 'SLACK_SIGNING_SECRET', /Socket Mode/],
    [{ ...base, PORT: 'eighty' }, 'PORT', /whole number/],
    [{ ...base, PORT: '70000' }, 'PORT', /at most 65535/],
    [{ ...base, POLL_INTERVAL_SECONDS: '1' }, 'POLL_INTERVAL_SECONDS', /at least 5/],
    [{ ...base, LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of/],
    [{ ...base, STORE_URL: 'mysql://x' }, 'STORE_URL', /sqlite:\/\//],
    [{ ...base, SLACK_API_URL: 'not a url' }, 'SLACK_API_URL', /http/],
    [{ ...base, ADMIN_USER_IDS: 'U123,bob' }, 'ADMIN_USER_IDS', /user id/],
    [{ ...base, AUDIT_CHANNEL_ID: '#general' }, 'AUDIT_CHANNEL_ID', /channel id/],
    [{ ...base, SLACK_CLIENT_ID: '1.2' }, 'SLACK_CLIENT_SECRET', /all|together/],
    [
      { ...base, SLACK_CLIENT_ID: '1.2', SLACK_CLIENT_SECRET: 'x', SLACK_STATE_SECRET: 'y'.repeat(20) },
      'SLACK_BOT_TOKEN',
      /choose one/,
    ],
    [{ ...base, DWM_ACCOUNT_ID: 'acc' }, 'DWM_ACCESS_KEY', /incomplete/],
    [{ ...base, DWM_ACCOUNT_ID: 'a', DWM_ACCESS_KEY: 'k', DWM_SITE_IDS: 'AB12' }, 'DWM_BASE_URL', /required/],
    [
      { ...base, DWM_ACCOUNT_ID: 'a', DWM_ACCESS_KEY: 'k', DWM_BASE_URL: 'http://h' },
      'DWM_SITE_IDS',
      /required/,
    ],
    [
      {
        ...base,
        DWM_SITE_IDS: 'AB12',
        DWM_DEFAULT_SITE: 'ZZ99',
        DWM_ACCOUNT_ID: 'a',
        DWM_ACCESS_KEY: 'k',
        DWM_BASE_URL: 'http://h',
      },
      'DWM_DEFAULT_SITE',
      /not one of DWM_SITE_IDS/,
    ],
    [
      {
        ...base,
        DWM_SITE_IDS: 'AB12, site-five',
        DWM_ACCOUNT_ID: 'a',
        DWM_ACCESS_KEY: 'k',
        DWM_BASE_URL: 'http://h',
      },
      'DWM_SITE_IDS',
      /"site-five" is not valid: a site id is exactly 4 letters or digits/,
    ],
    [
      {
        ...base,
        DWM_SITE_IDS: 'AB12',
        DWM_DEFAULT_SITE: 'AB1',
        DWM_ACCOUNT_ID: 'a',
        DWM_ACCESS_KEY: 'k',
        DWM_BASE_URL: 'http://h',
      },
      'DWM_DEFAULT_SITE',
      /"AB1" is not valid/,
    ],
    [{ ...base, SLACK_BOT_ID: 'B123' }, 'SLACK_BOT_USER_ID', /both/],
  ])('names the variable and says what to set (%#)', (env, variable, hint) => {
    const err = issuesOf(env as Record<string, string>);
    const issue = err.issues.find((i) => i.variable.includes(variable));
    expect(issue, err.message).toBeDefined();
    expect(issue!.message).toMatch(hint);
    expect(err.message).toContain(variable);
  });

  it('refuses env service credentials with OAuth distribution', () => {
    const err = issuesOf({
      SLACK_SIGNING_SECRET: 's',
      SLACK_CLIENT_ID: '1.2',
      SLACK_CLIENT_SECRET: 'x',
      SLACK_STATE_SECRET: 'y'.repeat(20),
      ENCRYPTION_KEY: KEY,
      DWM_SITE_IDS: 'AB12',
    });
    expect(err.issues[0]!.variable).toContain('DWM_SITE_IDS');
    expect(err.issues[0]!.message).toMatch(/setup/);
  });

  it('reports every problem at once', () => {
    const err = issuesOf({});
    expect(err.issues.map((i) => i.variable).sort()).toEqual([
      'ENCRYPTION_KEY',
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
    ]);
  });

  it('never echoes a secret value in an error', () => {
    const err = issuesOf({
      ...base,
      SLACK_BOT_TOKEN: 'xoxq-very-secret-token',
      ENCRYPTION_KEY: 'short-secret-key',
    });
    expect(err.message).not.toContain('very-secret');
    expect(err.message).not.toContain('short-secret-key');
  });

  it('echoes a non-secret malformed value to help fixing it', () => {
    expect(issuesOf({ ...base, PORT: 'eighty' }).message).toContain('"eighty"');
  });

  it('GUEST_ACCESS: none by default, member when set, anything else refused naming the choices', () => {
    expect(loadConfig(base).guestAccess).toBe('none');
    expect(loadConfig({ ...base, GUEST_ACCESS: 'member' }).guestAccess).toBe('member');
    const err = issuesOf({ ...base, GUEST_ACCESS: 'admin' });
    expect(err.issues.map((i) => i.variable)).toEqual(['GUEST_ACCESS']);
    expect(err.message).toContain('must be one of none, member');
  });
});

describe('CONFIG_DOC', () => {
  it('lists every variable once with a description, from the same table the parser uses', () => {
    const names = CONFIG_DOC.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(VARIABLES.map((v) => v.name));
    for (const r of CONFIG_DOC) expect(r.description.length).toBeGreaterThan(10);
    for (const n of ['SLACK_BOT_TOKEN', 'ENCRYPTION_KEY', 'STORE_URL', 'SERVICE_JWT_AUD', 'AUDIT_CHANNEL_ID'])
      expect(names).toContain(n);
    expect(CONFIG_DOC.find((r) => r.name === 'PORT')!.default).toBe('3000');
  });

  it('renders a markdown table', () => {
    const md = configDocMarkdown();
    expect(md.split('\n')[0]).toBe('| Variable | Required | Default | Description |');
    expect(md).toContain('| `ENCRYPTION_KEY` | yes |');
  });
});

describe('choices the spec leaves open', () => {
  const base = {
    SLACK_BOT_TOKEN: 'xoxb-1-abc',
    SLACK_SIGNING_SECRET: 'sig-secret-value',
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  };
  it('default to the spec as written', () => {
    const c = loadConfig(base);
    expect(c.serviceApi).toEqual({
      bodyEncoding: 'json',
      apiCodeIn: 'query',
      jwtAccountSeqType: 'string',
      jwtSecretEncoding: 'utf8',
      licenseTimeZone: '+00:00',
      timeZone: '+00:00',
    });
    expect(c.wmTokenMaxAgeSeconds).toBe(3000);
    expect(c.serviceErrorCodes).toBeUndefined();
  });
  it('can be set for a deployment that differs', () => {
    const c = loadConfig({
      ...base,
      SERVICE_BODY_ENCODING: 'form',
      SERVICE_API_CODE_IN: 'both',
      SERVICE_JWT_ACCOUNT_SEQ_TYPE: 'number',
      SERVICE_JWT_SECRET_ENCODING: 'base64',
      SERVICE_LICENSE_TIME_ZONE: '+0900',
      SERVICE_TIME_ZONE: '-05:00',
      WM_TOKEN_MAX_AGE_SECONDS: '600',
      SERVICE_ERROR_CODES: '{"recipientInUse":"X-77"}',
    });
    expect(c.serviceApi).toEqual({
      bodyEncoding: 'form',
      apiCodeIn: 'both',
      jwtAccountSeqType: 'number',
      jwtSecretEncoding: 'base64',
      licenseTimeZone: '+09:00',
      timeZone: '-05:00',
    });
    expect(c.wmTokenMaxAgeSeconds).toBe(600);
    expect(c.serviceErrorCodes).toBe('{"recipientInUse":"X-77"}');
  });
  it('refuse bad values, naming the variable', () => {
    expect(() => loadConfig({ ...base, SERVICE_BODY_ENCODING: 'xml' })).toThrow(/SERVICE_BODY_ENCODING/);
    expect(() => loadConfig({ ...base, SERVICE_API_CODE_IN: 'header' })).toThrow(/SERVICE_API_CODE_IN/);
    // api_code in the body while no body is sent: said, not silently sent in the query.
    expect(() =>
      loadConfig({ ...base, SERVICE_BODY_ENCODING: 'query', SERVICE_API_CODE_IN: 'body' }),
    ).toThrow(/SERVICE_API_CODE_IN.*query or both/);
    expect(loadConfig({ ...base, SERVICE_BODY_ENCODING: 'query' }).serviceApi.bodyEncoding).toBe('query');
    expect(() => loadConfig({ ...base, SERVICE_ERROR_CODES: 'not json' })).toThrow(/SERVICE_ERROR_CODES/);
    // A zone name would be read with one fixed offset all year: only offsets (or UTC) are taken.
    for (const bad of ['Asia/Seoul', 'KST', '+25:00'])
      expect(() => loadConfig({ ...base, SERVICE_LICENSE_TIME_ZONE: bad }), bad).toThrow(
        /SERVICE_LICENSE_TIME_ZONE.*UTC or an offset/,
      );
    expect(loadConfig({ ...base, SERVICE_LICENSE_TIME_ZONE: 'UTC' }).serviceApi.licenseTimeZone).toBe(
      '+00:00',
    );
    expect(loadConfig({ ...base, SERVICE_LICENSE_TIME_ZONE: '-05:30' }).serviceApi.licenseTimeZone).toBe(
      '-05:30',
    );
  });
});
