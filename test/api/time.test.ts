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
});
