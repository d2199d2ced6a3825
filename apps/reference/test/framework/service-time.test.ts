import { describe, expect, it } from 'vitest';
import { monthKey, startOfNextMonth, zonedParts, zonedTimeToInstant } from '@cls-api/spec';

describe('service time zone calendar', () => {
  it('the quota month and its reset follow the service time zone, not UTC', () => {
    const lateNovemberUtc = new Date('2026-11-30T16:00:00Z'); // already 1 December in Seoul
    expect(monthKey(lateNovemberUtc, 'Asia/Seoul')).toBe('2026-12');
    expect(monthKey(lateNovemberUtc, 'UTC')).toBe('2026-11');
    expect(startOfNextMonth(lateNovemberUtc, 'Asia/Seoul').toISOString()).toBe('2026-12-31T15:00:00.000Z');
    expect(startOfNextMonth(new Date('2026-12-15T00:00:00Z'), 'Asia/Seoul').toISOString()).toBe(
      '2026-12-31T15:00:00.000Z',
    );
    expect(startOfNextMonth(new Date('2026-12-31T15:00:00Z'), 'Asia/Seoul').toISOString()).toBe(
      '2027-01-31T15:00:00.000Z',
    );
  });

  it('handles daylight-saving zones', () => {
    // New York: EDT (-4) until 1 November 2026, EST (-5) after.
    expect(startOfNextMonth(new Date('2026-10-10T12:00:00Z'), 'America/New_York').toISOString()).toBe(
      '2026-11-01T04:00:00.000Z',
    );
    expect(startOfNextMonth(new Date('2026-11-10T12:00:00Z'), 'America/New_York').toISOString()).toBe(
      '2026-12-01T05:00:00.000Z',
    );
    expect(zonedTimeToInstant(2026, 3, 1, 'Europe/Berlin').toISOString()).toBe('2026-02-28T23:00:00.000Z');
    expect(zonedTimeToInstant(2026, 4, 1, 'Europe/Berlin').toISOString()).toBe('2026-03-31T22:00:00.000Z');
  });
});

describe('zonedParts remembers readings per zone and second', () => {
  // An independent reading, uncached and by another route than the calendar's own formatter: the Swedish locale
  // writes `YYYY-MM-DD HH:MM:SS`, which every remembered reading must equal.
  function intl(instant: Date, timeZone: string) {
    const shown = instant.toLocaleString('sv-SE', { timeZone, hour12: false });
    const [year, month, day, hour, minute, second] = shown.split(/[- :]/).map(Number);
    return { year, month, day, hour, minute, second };
  }

  it('a remembered reading equals Intl, for the same second asked again, in another zone, and across the clearing', () => {
    const zones = ['Asia/Seoul', 'UTC', 'America/New_York', 'Europe/Berlin'];
    // Deterministic instants around daylight-saving changes, before 1970, and within one second (ms differ).
    const base = [
      Date.UTC(2026, 2, 8, 6, 59, 59, 999),
      Date.UTC(2026, 9, 25, 0, 30),
      Date.UTC(1969, 11, 31, 23, 59, 59, 500),
      Date.UTC(2026, 10, 20, 8, 59, 59, 1),
    ];
    const instants = base.flatMap((t) => [t, t + 1, t + 998, t + 1000, t - 1000]);
    for (let round = 0; round < 2; round++) {
      for (const timeZone of zones) {
        for (const t of instants) expect(zonedParts(new Date(t), timeZone)).toEqual(intl(new Date(t), timeZone));
      }
    }
    // More distinct seconds than one zone remembers, then the first ones again.
    for (let s = 0; s < 10_050; s++) zonedParts(new Date(Date.UTC(2026, 0, 1) + s * 1000), 'Asia/Seoul');
    for (const t of instants) expect(zonedParts(new Date(t), 'Asia/Seoul')).toEqual(intl(new Date(t), 'Asia/Seoul'));
  });
});
