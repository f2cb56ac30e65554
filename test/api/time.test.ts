import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatServiceTime, normalizeTimeZone, parseServiceTime } from '../../src/api/time.js';

describe('times', () => {
  it('parses local time in the given offset', () => {
    expect(parseServiceTime('2026-03-01T09:00:00', '+09:00').epochMs).toBe(
      Date.parse('2026-03-01T00:00:00Z'),
    );
    expect(parseServiceTime('2026-03-01T09:00:00', '-05:30').epochMs).toBe(
      Date.parse('2026-03-01T14:30:00Z'),
    );
    expect(parseServiceTime('2026-03-01 09:00:00').epochMs).toBe(Date.parse('2026-03-01T09:00:00Z'));
  });
  it('parses the compact license-list shape and dates', () => {
    expect(parseServiceTime('20260301090000').epochMs).toBe(Date.parse('2026-03-01T09:00:00Z'));
    expect(parseServiceTime('2026-03-01').epochMs).toBe(Date.parse('2026-03-01T00:00:00Z'));
  });
  it('an explicit offset in the string wins', () => {
    expect(parseServiceTime('2026-03-01T09:00:00Z', '+09:00').epochMs).toBe(
      Date.parse('2026-03-01T09:00:00Z'),
    );
    expect(parseServiceTime('2026-03-01T09:00:00.250+01:00').epochMs).toBe(
      Date.parse('2026-03-01T08:00:00.250Z'),
    );
  });
  it('reads slashes for dashes, offsets +09 / +0900 / +09:00, and Unix seconds or milliseconds', () => {
    const at = Date.parse('2026-11-27T01:02:03Z');
    expect(parseServiceTime('2026/11/27 10:02:03', '+09:00').epochMs).toBe(at);
    expect(parseServiceTime('2026/11/27T01:02:03').epochMs).toBe(at);
    for (const off of ['+09', '+0900', '+09:00']) {
      expect(parseServiceTime(`2026-11-27T10:02:03${off}`).epochMs).toBe(at);
    }
    expect(parseServiceTime('2026-11-26T23:02:03-02').epochMs).toBe(at);
    expect(parseServiceTime('1795741323', '+09:00').epochMs).toBe(Date.parse('2026-11-27T01:02:03Z'));
    expect(parseServiceTime('1795741323250').epochMs).toBe(Date.parse('2026-11-27T01:02:03.250Z'));
    // other digit counts are not guessed at
    expect(parseServiceTime('179574132').epochMs).toBeNull();
  });
  it('keeps the raw text and gives null for junk or impossible dates', () => {
    expect(parseServiceTime('yesterday')).toEqual({ raw: 'yesterday', epochMs: null });
    expect(parseServiceTime('2026-02-30T00:00:00').epochMs).toBeNull();
    expect(parseServiceTime('')).toEqual({ raw: '', epochMs: null });
    expect(parseServiceTime(null).epochMs).toBeNull();
  });
  it('normalises offsets', () => {
    expect(normalizeTimeZone('09:00')).toBe('+09:00');
    expect(normalizeTimeZone('+0900')).toBe('+09:00');
    expect(normalizeTimeZone('-3:30')).toBe('-03:30');
    expect(normalizeTimeZone(' 09:00')).toBe('+09:00');
    expect(normalizeTimeZone('Z')).toBe('+00:00');
    expect(normalizeTimeZone('+25:00')).toBeNull();
    expect(normalizeTimeZone('Asia/Seoul')).toBeNull();
  });
  it('formats back to local time', () => {
    expect(formatServiceTime(Date.parse('2026-03-01T00:00:00Z'), '+09:00')).toBe('2026-03-01T09:00:00');
  });

  it('the allocation-light common shape agrees with the general parser (impossible dates included)', () => {
    const d2 = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0')),
        d2(13),
        d2(32),
        fc.constantFrom('T', ' '),
        d2(24),
        d2(60),
        d2(60),
        fc.constantFrom('+00:00', '+09:00', '-05:30', '09:00', 'Z'),
        (y, mo, d, sep, h, mi, s, tz) => {
          const text = `${y}-${mo}-${d}${sep}${h}:${mi}:${s}`;
          // A fraction of .0 takes the general (regex) path for the same instant.
          expect(parseServiceTime(text, tz).epochMs).toBe(parseServiceTime(`${text}.0`, tz).epochMs);
        },
      ),
      { numRuns: 3000 },
    );
    expect(parseServiceTime('2024-02-29T12:00:00').epochMs).toBe(Date.parse('2024-02-29T12:00:00Z'));
    expect(parseServiceTime('2023-02-29T12:00:00').epochMs).toBeNull();
    expect(parseServiceTime('2026-03-01T09:0a:00').epochMs).toBeNull();
  });
});
