import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  getSettings,
  MASK_DOTS,
  mask,
  toSettingsUpdate,
  updateSettings,
} from '../../../src/ops/service/settings.js';
import { FakeServiceClient } from '../../support/fake-service.js';

describe('mask', () => {
  it('shows only the last 4 after fixed dots; empty stays empty', () => {
    expect(mask('')).toBe('');
    expect(mask(undefined)).toBe('');
    expect(mask('abcdefghijklmnop')).toBe(`${MASK_DOTS}mnop`);
    expect(mask('abcdefgh')).toBe(`${MASK_DOTS}gh`);
    expect(mask('abc')).toBe(MASK_DOTS);
  });

  it('never reveals more than the last 4 characters, nor the whole value', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 1, unit: 'binary' })),
        (s) => {
          const m = mask(s);
          expect(m.startsWith(MASK_DOTS)).toBe(true);
          const shown = m.slice(MASK_DOTS.length);
          expect([...shown].length).toBeLessThanOrEqual(4);
          expect(s.endsWith(shown)).toBe(true);
          expect([...shown].length).toBeLessThan([...s].length);
        },
      ),
    );
  });
});

describe('getSettings', () => {
  it('returns a masked view without any clear secret', async () => {
    const c = new FakeServiceClient();
    const v = await getSettings(c, 'AB12');
    expect(v.siteKey).toBe(`${MASK_DOTS}eTE2`);
    expect(v.accessKey).toBe(`${MASK_DOTS}WXYZ`);
    expect(v.kmsToken).toBe(`${MASK_DOTS}9876`);
    expect(v.iv).toBe(`${MASK_DOTS}cdef`);
    expect(v.tokenDuration).toBe(600);
    const text = JSON.stringify(v);
    for (const secret of [c.settings.siteKey, c.settings.accessKey, c.settings.kmsToken, c.settings.iv]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(0, 8));
    }
  });
});

describe('updateSettings', () => {
  it('sends only the given, valid fields', async () => {
    const c = new FakeServiceClient();
    const r = await updateSettings(c, 'AB12', {
      licenseCallbackUrl: 'https://cb.example.com/lic',
      tokenDuration: '3600',
    });
    expect(r.changed).toEqual(['licenseCallbackUrl', 'tokenDuration']);
    expect(c.callsOf('updateSettings')[0]?.args).toEqual([
      'AB12',
      { licenseCallbackUrl: 'https://cb.example.com/lic', tokenDuration: 3600 },
    ]);
    expect(toSettingsUpdate({ packageCallbackUrl: '' })).toEqual({ packageCallbackUrl: '' });
    expect(toSettingsUpdate({ packageCallbackUrl: 'http://10.0.0.1:8080/p' })).toEqual({
      packageCallbackUrl: 'http://10.0.0.1:8080/p',
    });
  });

  it('refuses bad URLs, durations and an empty update, all issues at once', async () => {
    const c = new FakeServiceClient();
    expect(() => toSettingsUpdate({})).toThrow(/Nothing to change/);
    expect(() => toSettingsUpdate({ licenseCallbackUrl: 'ftp://x.example.com' })).toThrow(
      /https:\/\/ or http:\/\//,
    );
    expect(() => toSettingsUpdate({ licenseCallbackUrl: 'not a url' })).toThrow(/not a URL/);
    expect(() => toSettingsUpdate({ licenseCallbackUrl: 'https://u:p@x.example.com' })).toThrow(/user name/);
    for (const d of [0, -5, 1.5, '12s', '', 31_536_001]) {
      expect(() => toSettingsUpdate({ tokenDuration: d }), String(d)).toThrow(/whole number of seconds/);
    }
    expect(toSettingsUpdate({ tokenDuration: 40_000_000 }, { maxTokenDuration: 50_000_000 })).toEqual({
      tokenDuration: 40_000_000,
    });
    const err = await updateSettings(c, 'AB12', { licenseCallbackUrl: 'x', tokenDuration: 0 }).catch(
      (e) => e,
    );
    expect(err.issues.map((i: { field: string }) => i.field)).toEqual([
      'license callback URL',
      'token duration',
    ]);
    expect(c.callsOf('updateSettings')).toHaveLength(0);
  });
});
