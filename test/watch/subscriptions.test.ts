import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/index.js';
import { toSlackTs } from '../../src/watch/delivery.js';
import { classifyDeliveryError } from '../../src/watch/delivery-errors.js';
import {
  contentMatches,
  parseWatchArgs,
  readSubscription,
  SubscriptionError,
  Subscriptions,
  subscriptionMatches,
  subscriptionSchema,
} from '../../src/watch/subscriptions.js';
import { DeliveryError } from '../../src/watch/types.js';
import { ENCRYPTION_KEY } from './support/harness.js';

async function subs() {
  const store = await createStore({ url: 'memory://', encryptionKey: ENCRYPTION_KEY });
  let t = Date.UTC(2026, 10, 22);
  return { store, s: new Subscriptions(store, () => (t += 1000)) };
}

describe('parseWatchArgs', () => {
  it('parses every option', () => {
    const r = parseWatchArgs(['site:AB12', 'status:completed,ERROR', 'content:trailer-*', 'mode:failures']);
    expect(r.issues).toEqual([]);
    expect(r.siteId).toBe('AB12');
    expect(r.filters).toEqual({ statuses: ['DM500', 'DM600'], content: 'trailer-*', mode: 'failures' });
  });

  it('says what to fix for bad values and unknown options', () => {
    const r = parseWatchArgs(['site:AB1', 'status:done,weird', 'content:a b*', 'mode:loud', 'colour:red']);
    const fields = r.issues.map((i) => i.field);
    expect(fields).toEqual(['site', 'status', 'content', 'mode', 'colour:red']);
    expect(r.issues[1]?.message).toContain('weird');
    expect(r.issues[1]?.message).toContain('completed');
    expect(r.filters.statuses).toEqual(['DM500']);
  });

  it('defaults to every status and mode all', () => {
    expect(parseWatchArgs([])).toEqual({ filters: { statuses: [], mode: 'all' }, issues: [] });
  });
});

describe('filters', () => {
  it('content: prefix with *, exact otherwise', () => {
    expect(contentMatches('trailer-*', 'trailer-01')).toBe(true);
    expect(contentMatches('trailer-*', 'teaser-01')).toBe(false);
    expect(contentMatches('trailer', 'trailer-01')).toBe(false);
    expect(contentMatches('trailer', 'trailer')).toBe(true);
    expect(contentMatches(undefined, 'x')).toBe(true);
  });
});

describe('Subscriptions', () => {
  it('creates idempotently per channel + site + filters; mode change updates; records who and when', async () => {
    const { store, s } = await subs();
    const input = {
      channelId: 'C1',
      siteId: 'AB12',
      filters: { statuses: [], mode: 'all' as const },
      createdBy: 'U1',
    };
    const a = await s.create('T1', input);
    const b = await s.create('T1', { ...input, createdBy: 'U2' });
    expect(a.outcome).toBe('created');
    expect(b.outcome).toBe('unchanged');
    expect(b.subscription.id).toBe(a.subscription.id);
    expect(b.subscription.createdBy).toBe('U1');
    expect(a.subscription.createdAt).toMatch(/^2026-11-22T/);
    const c = await s.create('T1', { ...input, filters: { statuses: [], mode: 'failures' } });
    expect(c.outcome).toBe('updated');
    const d = await s.create('T1', { ...input, filters: { statuses: ['DM600'], mode: 'all' } });
    expect(d.outcome).toBe('created');
    expect((await s.list('T1')).map((x) => x.mode)).toEqual(['failures', 'all']);
    expect(await s.list('T2')).toEqual([]);
    expect(await s.workspaces()).toEqual(['T1']);
    await store.close();
  });

  it('refuses invalid input with field-level issues', async () => {
    const { store, s } = await subs();
    await expect(
      s.create('T1', {
        channelId: 'C1',
        siteId: 'bad site',
        filters: { statuses: [], mode: 'all', content: '*x' },
        createdBy: 'U',
      }),
    ).rejects.toBeInstanceOf(SubscriptionError);
    await store.close();
  });

  it('pauses, resumes, removes', async () => {
    const { store, s } = await subs();
    const base = { siteId: 'AB12', filters: { statuses: [], mode: 'all' as const }, createdBy: 'U1' };
    const one = (await s.create('T1', { ...base, channelId: 'C1' })).subscription;
    await s.create('T1', { ...base, channelId: 'C2' });
    const p = await s.pause('T1', one.id, { reason: 'r', code: 'is_archived' });
    expect(p?.paused?.code).toBe('is_archived');
    expect((await s.resume('T1', one.id))?.paused).toBeUndefined();
    expect(await s.remove('T1', { channelId: 'C1' })).toBe(1);
    expect((await s.list('T1')).map((x) => x.channelId)).toEqual(['C2']);
    expect(await s.remove('T1', { id: 'nope' })).toBe(0);
    await store.close();
  });

  it('reads stored documents the same whether they are in the usual shape or need the schema', async () => {
    const { store, s } = await subs();
    const base = {
      siteId: 'AB12',
      filters: { statuses: ['DM600' as const], mode: 'all' as const },
      createdBy: 'U1',
    };
    const a = (await s.create('T1', { ...base, channelId: 'C1' })).subscription;
    const b = (
      await s.create('T1', { ...base, channelId: 'C2', filters: { ...base.filters, content: 'ep-*' } })
    ).subscription;
    const c = (await s.create('T1', { ...base, channelId: 'C3' })).subscription;
    await s.pause('T1', c.id, { reason: 'archived', code: 'is_archived', by: 'U9' });
    const before = await s.list('T1');
    expect(before.map((x) => x.channelId)).toEqual(['C1', 'C2', 'C3']);
    const docs = store.docs<Record<string, unknown>>('subscriptions');
    // A field this version does not know (a newer writer): dropped, the rest read as before.
    await docs.put('T1', a.id, { ...a, addedLater: { x: 1 } });
    // A document the schema refuses (an unknown mode): left out, on both paths.
    await docs.put('T1', b.id, { ...b, mode: 'sometimes' });
    const after = await s.list('T1');
    expect(after).toEqual([before[0], before[2]]);
    expect(await s.get('T1', a.id)).toEqual(before[0]);
    expect(await s.get('T1', b.id)).toBeUndefined();
    // Listing one channel or site reads the same documents.
    expect(await s.list('T1', { channelId: 'C3' })).toEqual([before[2]]);
    await store.close();
  });

  it('matches status and content filters', () => {
    const sub = {
      id: 'x',
      workspace: 'T',
      channelId: 'C',
      siteId: 'AB12',
      statuses: ['DM600' as const],
      content: 'ep-*',
      mode: 'all' as const,
      createdBy: 'U',
      createdAt: '',
    };
    expect(subscriptionMatches(sub, 'DM600', 'ep-1')).toBe(true);
    expect(subscriptionMatches(sub, 'DM500', 'ep-1')).toBe(false);
    expect(subscriptionMatches(sub, 'DM600', 'movie')).toBe(false);
  });
});

describe('classifyDeliveryError', () => {
  it('recognises our errors and @slack/web-api shapes', () => {
    expect(classifyDeliveryError(new DeliveryError('ratelimited', { retryAfterMs: 3000 }))).toEqual({
      type: 'rate',
      retryAfterMs: 3000,
    });
    expect(classifyDeliveryError({ code: 'slack_webapi_rate_limited_error', retryAfter: 9 })).toEqual({
      type: 'rate',
      retryAfterMs: 9000,
    });
    expect(
      classifyDeliveryError({ code: 'slack_webapi_platform_error', data: { error: 'channel_not_found' } }),
    ).toEqual({ type: 'permanent', code: 'channel_not_found' });
    expect(classifyDeliveryError({ code: 'slack_webapi_http_error', statusCode: 502 }).type).toBe(
      'transient',
    );
    expect(classifyDeliveryError(new DeliveryError('invalid_blocks')).type).toBe('rejected');
    expect(classifyDeliveryError(new Error('boom')).type).toBe('unknown');
  });

  it('formats Slack ts', () => {
    expect(toSlackTs(1_700_000_000_123)).toBe('1700000000.123000');
  });
});

describe('reading a stored subscription without zod', () => {
  it('property: the quick reader gives what subscriptionSchema gives, for usual and unusual documents', () => {
    const word = fc.string({ minLength: 1, maxLength: 6 });
    const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
    const statuses = fc.array(fc.constantFrom('DM000', 'DM001', 'DM500', 'DM600'));
    // Documents as this code writes them (the quick path) ...
    const usual = fc.record(
      {
        id: word,
        workspace: word,
        channelId: word,
        siteId: word,
        statuses,
        content: maybe(word),
        mode: fc.constantFrom('all', 'failures'),
        createdBy: fc.string({ maxLength: 6 }),
        createdAt: fc.string({ maxLength: 6 }),
        updatedAt: maybe(word),
        paused: maybe(fc.record({ reason: word, code: word, at: word, by: maybe(word) })),
      },
      {
        requiredKeys: [
          'id',
          'workspace',
          'channelId',
          'siteId',
          'statuses',
          'mode',
          'createdBy',
          'createdAt',
        ],
      },
    );
    // ... and each with one field as another writer (or a corruption) might leave it: the
    // schema's path (an unknown field is dropped) or refused.
    const oddities: Array<[string, unknown]> = [
      ['mode', 'sometimes'],
      ['mode', null],
      ['id', ''],
      ['siteId', 7],
      ['workspace', null],
      ['statuses', ['DM999']],
      ['statuses', ['dm500']],
      ['statuses', 'DM500'],
      ['createdBy', 7],
      ['createdAt', null],
      ['content', null],
      ['updatedAt', 3],
      ['paused', null],
      ['paused', { reason: 'archived' }],
      ['paused', { reason: 'a', code: 'b', at: 'c', by: null }],
      ['paused', { reason: 'a', code: 'b', at: 'c', extra: 1 }],
      ['extra', { x: 1 }],
    ];
    const unusual = fc
      .tuple(usual, fc.constantFrom(...oddities))
      .map(([d, [k, v]]) => ({ ...d, [k]: v }) as Record<string, unknown>);
    let quick = 0;
    fc.assert(
      fc.property(fc.oneof(usual, unusual), (raw) => {
        // As a document comes back from the store: JSON (no undefined members).
        const stored = JSON.parse(JSON.stringify(raw)) as unknown;
        const viaSchema = subscriptionSchema.safeParse(stored);
        const read = readSubscription(stored);
        if (read === stored) quick++;
        expect(read).toEqual(viaSchema.success ? viaSchema.data : undefined);
      }),
      { numRuns: 2000 },
    );
    // Both paths were taken.
    expect(quick).toBeGreaterThan(100);
    expect(quick).toBeLessThan(2000);
  });
});
