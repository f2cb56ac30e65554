import { describe, expect, it } from 'vitest';
import { loadSiteRequestStatuses, siteRequestReading } from '../../src/api/site-request-statuses.js';
import { loadConfig } from '../../src/config.js';

describe('additional-site request status words (SERVICE_SITE_REQUEST_STATUSES)', () => {
  it('reads the built-in words case-insensitively; an unknown word is unknown, not a decision', () => {
    const t = loadSiteRequestStatuses('{}');
    expect(siteRequestReading(' Approved ', t)).toBe('approved');
    expect(siteRequestReading('requested', t)).toBe('pending');
    expect(siteRequestReading('rejected', t)).toBe('cancelled');
    expect(siteRequestReading('ON_HOLD', t)).toBeUndefined();
    expect(siteRequestReading('', t)).toBe('pending');
  });

  it('the setting adds words and replaces built-in readings', () => {
    const t = loadSiteRequestStatuses('{"WAITING":"pending","done":"pending","NG":"cancelled"}');
    expect(siteRequestReading('waiting', t)).toBe('pending');
    expect(siteRequestReading('DONE', t)).toBe('pending');
    expect(siteRequestReading('ng', t)).toBe('cancelled');
  });

  it('refuses malformed JSON and readings other than pending/approved/cancelled, naming the setting', () => {
    expect(() => loadSiteRequestStatuses('{')).toThrow(/SERVICE_SITE_REQUEST_STATUSES is not valid JSON/);
    expect(() => loadSiteRequestStatuses('{"X":"maybe"}')).toThrow(/SERVICE_SITE_REQUEST_STATUSES must be/);
    const base = {
      SLACK_BOT_TOKEN: 'xoxb-1-abc',
      SLACK_SIGNING_SECRET: 'sig-secret-value',
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    expect(() => loadConfig({ ...base, SERVICE_SITE_REQUEST_STATUSES: '{"X":"maybe"}' })).toThrow(
      /SERVICE_SITE_REQUEST_STATUSES/,
    );
    const c = loadConfig({
      ...base,
      SERVICE_SITE_REQUEST_STATUSES: '{"X":"approved"}',
      SITE_REQUEST_UNKNOWN_STATUS_MINUTES: '15',
    });
    expect(c.siteRequestStatuses).toBe('{"X":"approved"}');
    expect(c.siteRequestUnknownStatusMs).toBe(15 * 60_000);
    expect(loadConfig(base).siteRequestUnknownStatusMs).toBe(60 * 60_000);
  });
});
