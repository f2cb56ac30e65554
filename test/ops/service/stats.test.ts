import { describe, expect, it } from 'vitest';
import {
  delta,
  getStatsComparison,
  parseStatsDate,
  previousMonthDate,
} from '../../../src/ops/service/stats.js';
import { FakeServiceClient } from '../../support/fake-service.js';

describe('parseStatsDate', () => {
  const now = () => Date.parse('2026-03-31T20:00:00Z');
  it('keeps yyyy-MM-dd, turns yyyy-MM into the first day', () => {
    expect(parseStatsDate('2026-02-14')).toBe('2026-02-14');
    expect(parseStatsDate('2026-02')).toBe('2026-02-01');
  });
  it('defaults to this month in the user zone', () => {
    expect(parseStatsDate(undefined, { now, timeZone: 'UTC' })).toBe('2026-03-01');
    // 20:00 UTC on March 31 is already April 1 in Seoul.
    expect(parseStatsDate('', { now, timeZone: 'Asia/Seoul' })).toBe('2026-04-01');
  });
  it('refuses invalid dates and zones', () => {
    expect(() => parseStatsDate('2026-13')).toThrow(/not a real month/);
    expect(() => parseStatsDate('2026-02-30')).toThrow(/yyyy-MM-dd/);
    expect(() => parseStatsDate('March')).toThrow(/yyyy-MM/);
    expect(() => parseStatsDate(undefined, { timeZone: 'Mars/Base' })).toThrow(/not a time zone/);
  });
  it('previous month clamps the day', () => {
    expect(previousMonthDate('2026-03-31')).toBe('2026-02-28');
    expect(previousMonthDate('2026-01-01')).toBe('2025-12-01');
  });
});

describe('delta', () => {
  it('absolute and percent, null percent with a zero previous month', () => {
    expect(delta(150, 100)).toEqual({ current: 150, previous: 100, change: 50, percent: 50 });
    expect(delta(2, 3)).toEqual({ current: 2, previous: 3, change: -1, percent: -33.3 });
    expect(delta(5, 0)).toEqual({ current: 5, previous: 0, change: 5, percent: null });
  });
});

describe('getStatsComparison', () => {
  it('fetches this and the previous month and computes deltas', async () => {
    const c = new FakeServiceClient();
    c.stats.set('2026-02-01', { licenseCount: 120, userCount: 40, deviceCount: 0, targetDate: '2026-02-01' });
    c.stats.set('2026-01-01', { licenseCount: 100, userCount: 50, deviceCount: 0, targetDate: '2026-01-01' });
    const r = await getStatsComparison(c, 'AB12', '2026-02');
    expect(r.targetDate).toBe('2026-02-01');
    expect(r.previousDate).toBe('2026-01-01');
    expect(r.licenses).toEqual({ current: 120, previous: 100, change: 20, percent: 20 });
    expect(r.users).toEqual({ current: 40, previous: 50, change: -10, percent: -20 });
    expect(r.devices.percent).toBeNull();
    expect(c.callsOf('getMonthlyStats').map((x) => x.args)).toEqual([
      ['AB12', '2026-02-01'],
      ['AB12', '2026-01-01'],
    ]);
  });
});
