import { describe, expect, it } from 'vitest';
import { loadErrorCodes, setErrorCodes } from '../../src/api/error-codes.js';
import { AuthError, ProtocolError, ServiceError, TransportError } from '../../src/api/errors.js';
import { nameKey } from '../../src/api/validate.js';
import { editDistance } from '../../src/edit-distance.js';
import {
  editRecipient,
  existingLookup,
  findExisting,
  IN_USE_MESSAGE,
  isAmbiguousWriteFailure,
  isServiceCondition,
  rankSuggestions,
  resolveRecipient,
} from '../../src/ops/recipients.js';
import { FakeWatermarkingClient } from '../support/fake-watermarking.js';

const SITE = 'AB12';

function seeded(n: number, prefix = 'user-') {
  const fake = new FakeWatermarkingClient({ siteIds: [SITE] });
  const names = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  for (let i = 0; i < names.length; i += 150)
    fake.seedRecipients(
      SITE,
      names.slice(i, i + 150).map((name) => ({ name })),
    );
  return fake;
}

describe('findExisting', () => {
  it('finds names case-insensitively and ignores substring matches', async () => {
    const fake = seeded(0);
    fake.seedRecipients(SITE, [{ name: 'Alice' }, { name: 'alice-2' }, { name: 'bob' }]);
    const found = await findExisting(fake, SITE, ['ALICE', 'carol', 'ob']);
    expect([...found.keys()]).toEqual(['alice']);
    expect(found.get('alice')?.name).toBe('Alice');
  });

  it('uses one keyword search for a few names', async () => {
    const fake = seeded(500); // "user-1" is a substring of 111 names: one page
    await findExisting(fake, SITE, ['user-1', 'nobody']);
    const calls = fake.callsOf('searchRecipients');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0]).toMatchObject({ keywords: ['user-1', 'nobody'], pageUnit: 1000 });
  });

  it('pages through keyword results beyond 1000 substring matches', async () => {
    const fake = seeded(2500);
    const found = await findExisting(fake, SITE, ['user-2499', 'user-']);
    expect(found.has('user-2499')).toBe(true);
    expect(found.has('user-')).toBe(false);
    expect(fake.callsOf('searchRecipients')).toHaveLength(3);
  });

  it('lists the site when that is cheaper than keyword calls (small site, many names)', async () => {
    const fake = seeded(500);
    const names = Array.from({ length: 400 }, (_, i) => `user-${i * 2}`);
    const found = await findExisting(fake, SITE, names);
    expect(found.size).toBe(250);
    const calls = fake.callsOf('searchRecipients').map((c) => c.args[0]);
    // probe (page_unit 1) + one full page; keyword search would have needed 10 calls
    expect(calls).toEqual([
      { pageUnit: 1, pageIndex: 1 },
      { pageUnit: 1000, pageIndex: 1 },
    ]);
  });

  it('searches by keyword groups of 40 when the site is large', async () => {
    const fake = seeded(100_000 >> 2); // 25,000 recipients: listing = 25 calls
    const names = Array.from({ length: 200 }, (_, i) => `x${i}`); // 5 keyword calls
    await findExisting(fake, SITE, names);
    const calls = fake.callsOf('searchRecipients').map((c) => c.args[0] as { keywords?: string[] });
    expect(calls).toHaveLength(1 + 5);
    expect(calls.slice(1).every((q) => q.keywords?.length === 40)).toBe(true);
  });

  it('keeps keyword groups under the character budget', async () => {
    const fake = seeded(0);
    fake.seedRecipients(SITE, [{ name: 'a' }]);
    const names = Array.from({ length: 30 }, (_, i) => `${'n'.repeat(120)}${i}`);
    await findExisting(fake, SITE, names, { strategy: 'search', maxKeywordChars: 500 });
    const groups = fake
      .callsOf('searchRecipients')
      .map((c) => (c.args[0] as { keywords: string[] }).keywords);
    expect(groups.flat()).toHaveLength(30);
    for (const g of groups) expect(g.join('').length).toBeLessThanOrEqual(500);
  });

  it('strategy list reads every page', async () => {
    const fake = seeded(2100);
    const found = await findExisting(fake, SITE, ['user-2099', 'USER-0'], { strategy: 'list' });
    expect(found.size).toBe(2);
    expect(fake.callsOf('searchRecipients')).toHaveLength(3);
  });

  it('existingLookup binds client and site', async () => {
    const fake = seeded(3);
    const found = await existingLookup(fake, SITE)(['user-1']);
    expect(found.get(nameKey('user-1'))?.dwmId).toBe(2);
  });
});

describe('resolveRecipient', () => {
  it('resolves an id with the detail call', async () => {
    const fake = seeded(3);
    const r = await resolveRecipient(fake, SITE, '2');
    expect(r).toMatchObject({ ok: true, matchedBy: 'id', recipient: { name: 'user-1' } });
    expect(fake.callsOf('getRecipient')).toHaveLength(1);
  });

  it('reports an unknown id as not found', async () => {
    const r = await resolveRecipient(seeded(1), SITE, '999');
    expect(r).toMatchObject({ ok: false, reason: 'not-found' });
  });

  it('resolves a name in any case to the originally registered recipient', async () => {
    const fake = seeded(0);
    fake.seedRecipients(SITE, [{ name: 'Studio-One' }, { name: 'Studio-One-Backup' }]);
    const r = await resolveRecipient(fake, SITE, 'studio-one');
    expect(r).toMatchObject({
      ok: true,
      matchedBy: 'name',
      exactCase: false,
      recipient: { dwmId: 1, name: 'Studio-One' },
    });
  });

  it('suggests close names when not found', async () => {
    const fake = seeded(0);
    fake.seedRecipients(SITE, [{ name: 'partner-kr' }, { name: 'partner-jp' }, { name: 'zzz' }]);
    const r = await resolveRecipient(fake, SITE, 'partner-kx');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe('not-found');
    expect(r.suggestions.map((s) => s.name)).toEqual(['partner-kr', 'partner-jp']);
    expect(r.message).toContain('partner-kx');
  });

  it('refuses an invalid name without calling the service', async () => {
    const fake = seeded(1);
    const r = await resolveRecipient(fake, SITE, 'bad name');
    expect(r).toMatchObject({ ok: false, reason: 'invalid' });
    expect(fake.calls).toHaveLength(0);
  });

  it('rethrows other failures', async () => {
    const fake = seeded(1);
    fake.hook(() => ({ before: new AuthError('wm.getRecipient', 'refused') }));
    await expect(resolveRecipient(fake, SITE, '1')).rejects.toBeInstanceOf(AuthError);
  });
});

describe('rankSuggestions / editDistance', () => {
  it('computes Levenshtein distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });
  it('ranks close names first and drops far ones', () => {
    const r = (name: string, dwmId: number) => ({
      dwmId,
      name,
      description: '',
      regTime: { raw: '', epochMs: null },
    });
    const out = rankSuggestions('alpha', [
      r('alpah', 1),
      r('alpha-team', 2),
      r('omega', 3),
      r('totally-different', 4),
    ]);
    // a name containing the input ranks as distance 1
    expect(out.map((x) => x.name)).toEqual(['alpha-team', 'alpah']);
  });
});

describe('editRecipient', () => {
  it('modifies and returns the update time', async () => {
    const fake = seeded(1);
    const r = await editRecipient(fake, SITE, 1, { name: ' renamed ', description: 'new' });
    expect(r.ok).toBe(true);
    expect(fake.allRecipients(SITE)[0]).toMatchObject({ name: 'renamed', description: 'new' });
  });

  it('returns field errors without calling the service', async () => {
    const fake = seeded(1);
    const r = await editRecipient(fake, SITE, 1, { name: 'bad/name', description: 'x'.repeat(51) });
    expect(r).toMatchObject({ ok: false, reason: 'validation' });
    if (r.ok || r.reason !== 'validation') return;
    expect(Object.keys(r.fieldErrors).sort()).toEqual(['description', 'name']);
    expect(r.fieldErrors.name).toMatch(/"\/"/);
    expect(fake.callsOf('modifyRecipient')).toHaveLength(0);
    const empty = await editRecipient(fake, SITE, 1, {});
    expect(empty).toMatchObject({ ok: false, reason: 'validation' });
  });

  it('maps in-use to the plain message', async () => {
    const fake = seeded(1);
    fake.setInUse(SITE, 1);
    expect(await editRecipient(fake, SITE, 1, { description: 'x' })).toEqual({
      ok: false,
      reason: 'in-use',
      message: IN_USE_MESSAGE,
    });
  });

  it('maps a duplicate name and an unknown id', async () => {
    const fake = seeded(2);
    const dup = await editRecipient(fake, SITE, 1, { name: 'USER-1' });
    expect(dup).toMatchObject({ ok: false, reason: 'duplicate' });
    if (!dup.ok) expect(dup.message).toMatch(/USER-1.*upper\/lower case/);
    expect(await editRecipient(fake, SITE, 99, { name: 'free' })).toMatchObject({
      ok: false,
      reason: 'not-found',
    });
  });

  it('rethrows transport failures', async () => {
    const fake = seeded(1);
    fake.hook(() => ({ before: new TransportError('wm.modifyRecipient', 'timeout', undefined, 1) }));
    await expect(editRecipient(fake, SITE, 1, { name: 'x' })).rejects.toBeInstanceOf(TransportError);
  });
});

describe('condition helpers', () => {
  it('matches service codes by condition', () => {
    expect(isServiceCondition(new ServiceError('e', 'E2003', 'm'), 'recipientInUse')).toBe(true);
    expect(isServiceCondition(new ServiceError('e', 'E2002', 'm'), 'recipientInUse')).toBe(false);
    try {
      setErrorCodes(loadErrorCodes('{"recipientInUse":"X1"}'));
      expect(isServiceCondition(new ServiceError('e', 'X1', 'm'), 'recipientInUse')).toBe(true);
      expect(isServiceCondition(new ServiceError('e', 'E2003', 'm'), 'recipientInUse')).toBe(false);
    } finally {
      setErrorCodes(loadErrorCodes(''));
    }
    expect(isServiceCondition(new Error('E2003'), 'recipientInUse')).toBe(false);
  });
  it('classifies ambiguous write failures', () => {
    expect(isAmbiguousWriteFailure(new TransportError('e', 'reset', undefined, 1))).toBe(true);
    expect(isAmbiguousWriteFailure(new TransportError('e', 'refused', undefined, 1, undefined, false))).toBe(
      false,
    );
    expect(isAmbiguousWriteFailure(new TransportError('e', '503', 503, 3))).toBe(true);
    expect(isAmbiguousWriteFailure(new ProtocolError('e', 'body', 'not JSON'))).toBe(true);
    expect(isAmbiguousWriteFailure(new ServiceError('e', 'E2002', 'm'))).toBe(false);
  });
});
