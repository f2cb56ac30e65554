/**
 * The watcher's fetch path against an emulator that deviates from the specs (each behaviour
 * alone, then all at once): a job that starts and finishes is announced exactly once, with the
 * right id and status; a job in a status the specs do not list is never announced as finished.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_BEHAVIOURS, bigId, type EmulatorBehaviours } from '../../dev/emulator/index.js';
import type { Watcher } from '../../src/watch/index.js';
import { type Harness, SITE, startHarness, WS } from '../watch/support/harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const CASES: Array<[string, EmulatorBehaviours]> = [
  ['no deviation', {}],
  ['optional fields left out', { omitEmptyFields: true }],
  ['unknown codes', { unknownCodes: true }],
  ['big ids as strings', { bigIds: true }],
  ['server clock 10 minutes ahead', { clockSkewMs: 10 * 60_000 }],
  ['another duplicate code', { duplicateCode: 'DUP-01' }],
  ['time_zone "Asia/Seoul"', { timeZoneText: 'Asia/Seoul' }],
  ['time_zone "GMT+09:00"', { timeZoneText: 'GMT+09:00' }],
  ['time_zone ""', { timeZoneText: '' }],
  ['all at once', ALL_BEHAVIOURS],
  ['pages capped at one item', { pageCap: 1 }],
  ['pages capped at one item, no total_count', { pageCap: 1, omitTotalCount: true }],
];

async function cycle(w: Watcher) {
  h.tick();
  return w.pollOnce(WS, SITE);
}

describe.each(CASES)('watcher with %s', (_name, behaviours) => {
  it('announces a finished job once with its id and status; an unknown in-flight status is not final', async () => {
    h = await startHarness();
    h.emu.setBehaviours(behaviours);
    const w = h.watcher();
    await w.subscriptions.create(WS, {
      channelId: 'C1',
      siteId: SITE,
      filters: { statuses: [], mode: 'all' },
      createdBy: 'U123',
    });
    const first = await w.pollOnce(WS, SITE);
    expect(first.cycle?.baseline).toBe(true);

    const done = h.emu.createJob(SITE, 'finishes', [{ recipient: 'alice' }, { recipient: 'bob' }]);
    const stuck = h.emu.createJob(SITE, 'keeps-moving', [{ recipient: 'carol' }]);
    await cycle(w);
    h.emu.setJobStatus(SITE, done, 'DM001');
    h.emu.setJobStatus(SITE, stuck, 'DM001'); // DM002 on the wire with unknown codes
    await cycle(w);
    h.emu.finishJob(SITE, done);
    for (let i = 0; i < 3; i++) {
      const out = await cycle(w);
      expect(out.error).toBeUndefined();
    }

    const id = (n: number) => (behaviours.bigIds ? bigId(n) : String(n));
    const finals = h.poster.messages.filter((m) => m.text.includes('COMPLETED'));
    expect(finals.map((m) => m.text.match(/Job `(\d+)`/)?.[1])).toEqual([id(done)]);
    expect(
      h.poster.messages.some((m) => m.text.includes(`\`${id(stuck)}\``) && /COMPLETED|ERROR/.test(m.text)),
    ).toBe(false);
    expect(h.poster.duplicateKeys()).toEqual([]);
  });
});
