import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { JwtSigner } from '../../src/api/jwt.js';

const creds = {
  accountId: 'acct-1',
  accountSeq: '42',
  secretKey: 'shh-this-is-the-secret',
  baseUrl: 'http://127.0.0.1:1',
};
const key = new TextEncoder().encode(creds.secretKey);

describe('JwtSigner', () => {
  it('signs HS256 with the spec claims and a short exp', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const s = new JwtSigner({ now: () => now });
    const header = await s.header(creds);
    expect(header.startsWith('Bearer ')).toBe(true);
    const { payload, protectedHeader } = await jwtVerify(header.slice(7), key, {
      audience: 'AUDIENCE',
      issuer: 'Service',
      subject: 'ServiceAPI',
      currentDate: new Date(now),
    });
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload.account_id).toBe('acct-1');
    expect(payload.account_seq).toBe('42');
    expect(payload.exp).toBe(now / 1000 + 300);
  });

  it('caches until 30 s before expiry, then re-signs', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const s = new JwtSigner({ now: () => now });
    const a = await s.header(creds);
    now += 269_000;
    expect(await s.header(creds)).toBe(a);
    now += 2_000;
    expect(await s.header(creds)).not.toBe(a);
    expect(s.signCount).toBe(2);
  });

  it('uses configured claims and fails verification with another secret', async () => {
    const s = new JwtSigner({ claims: { audience: 'OTHER' } });
    const token = (await s.header(creds)).slice(7);
    await expect(jwtVerify(token, key, { audience: 'OTHER', issuer: 'Service' })).resolves.toBeTruthy();
    await expect(jwtVerify(token, key, { audience: 'AUDIENCE' })).rejects.toThrow();
    await expect(jwtVerify(token, new TextEncoder().encode('other'))).rejects.toThrow();
  });
});
