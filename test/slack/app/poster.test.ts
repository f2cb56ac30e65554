/** The Slack ChannelPoster against the fake Slack: metadata, broadcasts, lookups, error mapping. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../../dev/fakeslack/index.js';
import { createLogger } from '../../../src/log.js';
import { backgroundClient, createPoster, toDeliveryError } from '../../../src/slack/poster.js';
import { classifyDeliveryError } from '../../../src/watch/index.js';
import { DELIVERY_EVENT_TYPE, DeliveryError, type PostOptions } from '../../../src/watch/types.js';

const TEAM = 'T0POSTER';
const TOKEN = 'xoxb-poster-test-0000000000';
const CH = 'C0POSTER';
let fake: FakeSlack;

const meta = (key: string): PostOptions => ({
  metadata: { event_type: DELIVERY_EVENT_TYPE, event_payload: { key } },
});

function poster() {
  const logger = createLogger({ level: 'silent', destination: { write: () => undefined } });
  const client = backgroundClient({ config: { slack: { apiUrl: fake.apiUrl } } as never, logger }, TOKEN);
  return createPoster(async () => client);
}

beforeAll(async () => {
  fake = await FakeSlack.start();
  fake.addWorkspace({
    teamId: TEAM,
    botToken: TOKEN,
    users: [{ id: 'U0ONE' }],
    channels: [
      { id: CH, name: 'poster' },
      { id: 'C0NOTIN', name: 'not-in', botIsMember: false },
    ],
  });
});
afterAll(async () => {
  await fake?.close();
});

describe('ChannelPoster over the Web API', () => {
  it('posts with metadata, replies with reply_broadcast, updates in place', async () => {
    const p = poster();
    const { ts } = await p.post(
      CH,
      { text: 'card', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }] },
      meta('k-card'),
    );
    const reply = await p.post(CH, { text: 'final' }, { ...meta('k-final'), threadTs: ts, broadcast: true });
    await p.update(CH, ts, { text: 'card v2' });
    const msgs = fake.messages(CH);
    const card = msgs.find((m) => m.ts === ts);
    expect(card?.metadata).toEqual({ event_type: DELIVERY_EVENT_TYPE, event_payload: { key: 'k-card' } });
    expect(card?.edited).toBe(true);
    expect(card?.text).toBe('card v2');
    const r = msgs.find((m) => m.ts === reply.ts);
    expect(r).toMatchObject({ threadTs: ts, replyBroadcast: true });
  });

  it('finds a delivery by its key at top level and in a thread, across pages', async () => {
    const p = poster();
    const since = '0';
    const parent = await p.post(CH, { text: 'parent' }, meta('k-parent'));
    const inThread = await p.post(CH, { text: 't' }, { ...meta('k-thread'), threadTs: parent.ts });
    for (let i = 0; i < 230; i++) await p.post(CH, { text: `filler ${i}` }, meta(`k-filler-${i}`));
    expect(await p.findByMetadata(CH, 'k-parent', since)).toEqual({ ts: parent.ts });
    expect(await p.findByMetadata(CH, 'k-thread', since, parent.ts)).toEqual({ ts: inThread.ts });
    // a thread-only reply is not in the channel history; unknown keys are not found
    expect(await p.findByMetadata(CH, 'k-thread', since)).toBeUndefined();
    expect(await p.findByMetadata(CH, 'k-nope', since)).toBeUndefined();
    // the window: nothing posted after a later ts
    expect(await p.findByMetadata(CH, 'k-parent', String(Number(parent.ts) + 1))).toBeUndefined();
    const pages = fake.calls('conversations.history').filter((c) => c.args.include_all_metadata);
    expect(pages.length).toBeGreaterThan(1);
  });

  it('maps Slack failures to DeliveryError the core classifies', async () => {
    const p = poster();
    fake.fail('chat.postMessage', { status: 429, retryAfterSeconds: 7 });
    const rate = await p.post(CH, { text: 'x' }, meta('k1')).catch((e: unknown) => e);
    expect(rate).toBeInstanceOf(DeliveryError);
    expect(classifyDeliveryError(rate)).toEqual({ type: 'rate', retryAfterMs: 7000 });

    fake.fail('chat.postMessage', { status: 503 });
    const down = await p.post(CH, { text: 'x' }, meta('k2')).catch((e: unknown) => e);
    expect(classifyDeliveryError(down)).toMatchObject({ type: 'transient' });

    const notIn = await p.post('C0NOTIN', { text: 'x' }, meta('k3')).catch((e: unknown) => e);
    expect(classifyDeliveryError(notIn)).toEqual({ type: 'permanent', code: 'not_in_channel' });

    fake.archiveChannel(TEAM, CH);
    const archived = await p.update(CH, '1.000001', { text: 'x' }).catch((e: unknown) => e);
    fake.archiveChannel(TEAM, CH, false);
    expect(classifyDeliveryError(archived)).toEqual({ type: 'permanent', code: 'is_archived' });

    const bad = await p
      .post(CH, { text: 'x', blocks: [{ type: 'nope' }] }, meta('k4'))
      .catch((e: unknown) => e);
    expect(classifyDeliveryError(bad)).toEqual({ type: 'rejected', code: 'invalid_blocks' });
    // no SDK retry happened behind the core's back
    expect(fake.calls('chat.postMessage').filter((c) => c.status === 429)).toHaveLength(1);
  });

  it('an error of unknown shape stays unknown: the core keeps the entry for the metadata check', () => {
    const boom = new Error('socket hang up, maybe after posting');
    expect(toDeliveryError(boom)).toBe(boom);
    expect(classifyDeliveryError(toDeliveryError(boom))).toEqual({ type: 'unknown' });
    expect((toDeliveryError({ code: 'slack_webapi_request_error' }) as DeliveryError).code).toBe('network');
  });
});

describe('a least-privilege install (no history scope)', () => {
  it('the lookup after a crash answers "not found" (the notification is posted again) and says why once per call', async () => {
    const logger = createLogger({ level: 'silent', destination: { write: () => undefined } });
    const client = backgroundClient({ config: { slack: { apiUrl: fake.apiUrl } } as never, logger }, TOKEN);
    const told: string[] = [];
    const p = createPoster(async () => client, { onNoHistoryScope: (ch) => told.push(ch) });
    fake.fail('conversations.history', { error: 'missing_scope' });
    await expect(p.findByMetadata(CH, 'k-no-scope', '0')).resolves.toBeUndefined();
    expect(told).toEqual([CH]);
    // Other refusals still surface (the core classifies them).
    fake.fail('conversations.history', { error: 'channel_not_found' });
    await expect(p.findByMetadata(CH, 'k-other', '0')).rejects.toMatchObject({ code: 'channel_not_found' });
  });
});
