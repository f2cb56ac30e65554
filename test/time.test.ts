import { formatInTimeZone } from 'date-fns-tz';
import { describe, expect, it } from 'vitest';
import { doubledWaitMs, formatTime, knownZone } from '../src/time.js';

describe('formatTime (one cached Intl formatter per zone)', () => {
  it('gives exactly what date-fns-tz gives, across DST changes and odd offsets', () => {
    const zones = [
      'UTC',
      'Asia/Seoul',
      'America/New_York',
      'Europe/London',
      'Australia/Lord_Howe',
      'Asia/Kolkata',
    ];
    for (let t = Date.UTC(2024, 0, 1); t < Date.UTC(2027, 0, 1); t += 29 * 3_600_000 + 13 * 60_000) {
      for (const z of zones)
        expect(formatTime(t, z)).toBe(`${formatInTimeZone(t, z, 'yyyy-MM-dd HH:mm')} ${z}`);
    }
  });

  it('an unknown zone falls back to UTC, named', () => {
    expect(formatTime(0, 'Not/AZone')).toBe('1970-01-01 00:00 UTC');
  });
});

describe('doubledWaitMs', () => {
  it('doubles the base per step and stops at the cap', () => {
    expect([0, 1, 2, 3].map((n) => doubledWaitMs(1000, n, 5000))).toEqual([1000, 2000, 4000, 5000]);
    expect(doubledWaitMs(1000, 2000, 15 * 60_000)).toBe(15 * 60_000);
  });
});

describe('knownZone', () => {
  it('keeps a zone Intl knows and reads anything else as UTC', () => {
    expect(knownZone('Asia/Seoul')).toBe('Asia/Seoul');
    expect(knownZone('Not/AZone')).toBe('UTC');
    expect(knownZone('')).toBe('UTC');
    expect(knownZone(undefined)).toBe('UTC');
  });
});
