import { describe, expect, it } from 'vitest';
import { monthKey, startOfNextMonth, zonedTimeToInstant } from '../../src/service-time.js';

describe('service time zone calendar', () => {
  it('the quota month and its reset follow the service time zone, not UTC', () => {
    const lateNovemberUtc = new Date('2026-11-30T16:00:00Z'); // already 1 December in Seoul
    expect(monthKey(lateNovemberUtc, 'Asia/Seoul')).toBe('2026-12');
    expect(monthKey(lateNovemberUtc, 'UTC')).toBe('2026-11');
    expect(startOfNextMonth(lateNovemberUtc, 'Asia/Seoul').toISOString()).toBe('2026-12-31T15:00:00.000Z');
    expect(startOfNextMonth(new Date('2026-12-15T00:00:00Z'), 'Asia/Seoul').toISOString()).toBe('2026-12-31T15:00:00.000Z');
    expect(startOfNextMonth(new Date('2026-12-31T15:00:00Z'), 'Asia/Seoul').toISOString()).toBe('2027-01-31T15:00:00.000Z');
  });

  it('handles daylight-saving zones', () => {
    // New York: EDT (-4) until 1 November 2026, EST (-5) after.
    expect(startOfNextMonth(new Date('2026-10-10T12:00:00Z'), 'America/New_York').toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(startOfNextMonth(new Date('2026-11-10T12:00:00Z'), 'America/New_York').toISOString()).toBe('2026-12-01T05:00:00.000Z');
    expect(zonedTimeToInstant(2026, 3, 1, 'Europe/Berlin').toISOString()).toBe('2026-02-28T23:00:00.000Z');
    expect(zonedTimeToInstant(2026, 4, 1, 'Europe/Berlin').toISOString()).toBe('2026-03-31T22:00:00.000Z');
  });
});
