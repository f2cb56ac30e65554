import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StoreConfigError, VaultError } from '../../src/store/errors.js';
import { createVault, keyFingerprint, parseEncryptionKey, splitKeyList } from '../../src/store/vault.js';

const keyB64 = () => randomBytes(32).toString('base64');

describe('parseEncryptionKey', () => {
  it('accepts 32 bytes as base64, base64 without padding, base64url and hex', () => {
    const bytes = randomBytes(32);
    const expected = new Uint8Array(bytes);
    expect(parseEncryptionKey(bytes.toString('base64'))).toEqual(expected);
    expect(parseEncryptionKey(bytes.toString('base64').replace(/=+$/, ''))).toEqual(expected);
    expect(parseEncryptionKey(bytes.toString('base64url'))).toEqual(expected);
    expect(parseEncryptionKey(bytes.toString('hex'))).toEqual(expected);
    expect(parseEncryptionKey(bytes.toString('hex').toUpperCase())).toEqual(expected);
    expect(parseEncryptionKey(`  ${bytes.toString('base64')}\n`)).toEqual(expected);
  });

  it.each([
    ['too short base64', randomBytes(16).toString('base64')],
    ['too long base64', randomBytes(48).toString('base64')],
    ['63 hex chars', randomBytes(32).toString('hex').slice(1)],
    ['a passphrase', 'correct horse battery staple'],
    ['empty', ''],
  ])('refuses %s with a message that says how to generate a key', (_label, raw) => {
    let err: unknown;
    try {
      parseEncryptionKey(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain('ENCRYPTION_KEY');
    expect(msg).toContain('openssl rand -base64 32');
    if (raw.length > 4) expect(msg).not.toContain(raw);
  });

  it('refuses an all-equal placeholder key', () => {
    expect(() => parseEncryptionKey('0'.repeat(64))).toThrow(/placeholder/);
  });

  it('names the previous-key entry that is wrong', () => {
    expect(() =>
      createVault({ encryptionKey: keyB64(), previousEncryptionKeys: [keyB64(), 'nope'] }),
    ).toThrow(/ENCRYPTION_KEYS_PREVIOUS entry #2/);
  });

  it('splits ENCRYPTION_KEYS_PREVIOUS on commas, spaces and newlines', () => {
    expect(splitKeyList(' a, b\nc ,,')).toEqual(['a', 'b', 'c']);
    expect(splitKeyList(undefined)).toEqual([]);
  });
});

describe('vault', () => {
  it('round-trips JSON with a dir/A256GCM compact JWE carrying kid and context', async () => {
    const key = keyB64();
    const v = createVault({ encryptionKey: key });
    const value = { a: 1, nested: { secret: 'S3CR3T-value' }, list: [true, null] };
    const jwe = await v.encrypt(value, 'credentials:T1');
    expect(jwe.split('.')).toHaveLength(5);
    expect(jwe).not.toContain('S3CR3T');
    const header = JSON.parse(Buffer.from(jwe.split('.')[0]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(header).toMatchObject({ alg: 'dir', enc: 'A256GCM', kid: v.currentKid, ctx: 'credentials:T1' });
    expect(v.currentKid).toBe(keyFingerprint(parseEncryptionKey(key)));
    expect(v.currentKid).toMatch(/^[0-9a-f]{8}$/);
    expect(await v.decrypt(jwe, 'credentials:T1')).toEqual(value);
    expect(v.kidOf(jwe)).toBe(v.currentKid);
  });

  it('decrypts with a previous key during rotation and writes with the current one', async () => {
    const oldKey = keyB64();
    const newKey = keyB64();
    const before = createVault({ encryptionKey: oldKey });
    const jwe = await before.encrypt({ x: 'y' }, 'c:T1');
    const during = createVault({ encryptionKey: newKey, previousEncryptionKeys: [oldKey] });
    expect(during.kids).toEqual([during.currentKid, before.currentKid]);
    expect(await during.decrypt(jwe, 'c:T1')).toEqual({ x: 'y' });
    const rewritten = await during.encrypt({ x: 'y' }, 'c:T1');
    expect(during.kidOf(rewritten)).toBe(during.currentKid);
    const after = createVault({ encryptionKey: newKey });
    expect(await after.decrypt(rewritten, 'c:T1')).toEqual({ x: 'y' });
  });

  it('says which key id is missing, never the key', async () => {
    const oldKey = keyB64();
    const newKey = keyB64();
    const jwe = await createVault({ encryptionKey: oldKey }).encrypt({ s: 1 }, 'c:T1');
    const v = createVault({ encryptionKey: newKey });
    const err = await v.decrypt(jwe, 'c:T1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VaultError);
    const ve = err as VaultError;
    expect(ve.reason).toBe('missing-key');
    expect(ve.kid).toBe(keyFingerprint(parseEncryptionKey(oldKey)));
    expect(ve.message).toContain(`"${ve.kid}"`);
    expect(ve.message).toContain('ENCRYPTION_KEYS_PREVIOUS');
    for (const k of [oldKey, newKey]) {
      expect(ve.message).not.toContain(k);
      expect(ve.message).not.toContain(Buffer.from(k, 'base64').toString('hex'));
    }
  });

  it('refuses a record moved to another context, a tampered record and garbage', async () => {
    const v = createVault({ encryptionKey: keyB64() });
    const jwe = await v.encrypt({ s: 1 }, 'credentials:T1');
    await expect(v.decrypt(jwe, 'credentials:T2')).rejects.toMatchObject({ reason: 'context' });
    const parts = jwe.split('.');
    const ct = Buffer.from(parts[3]!, 'base64url');
    ct[0] = ct[0]! ^ 0xff;
    parts[3] = ct.toString('base64url');
    await expect(v.decrypt(parts.join('.'), 'credentials:T1')).rejects.toMatchObject({ reason: 'corrupt' });
    await expect(v.decrypt('not-a-jwe', 'credentials:T1')).rejects.toMatchObject({ reason: 'corrupt' });
  });

  it('requires ENCRYPTION_KEY', () => {
    expect(() => createVault({ encryptionKey: '' })).toThrow(
      /ENCRYPTION_KEY is not set.*openssl rand -base64 32/,
    );
  });
});
