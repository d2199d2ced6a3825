import { describe, expect, it } from 'vitest';
import { median, percentile, percentileOfSorted, ratio, Samples } from '../src/stats.js';

describe('median', () => {
  it('is the middle value, or the mean of the two middle values', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });
  it('refuses no values', () => {
    expect(() => median([])).toThrow();
  });
});

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted on purpose
  it('reads the samples themselves', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 0)).toBe(1);
  });
  it('is the slowest sample when there are fewer than 100', () => {
    expect(percentile([3, 9, 1, 4], 99)).toBe(9);
  });
  it('refuses a percentile outside 0 to 100 and no samples', () => {
    expect(() => percentileOfSorted([1], 101)).toThrow();
    expect(() => percentileOfSorted([], 50)).toThrow();
  });
});

describe('ratio', () => {
  it('divides, and is NaN when the divisor is not positive', () => {
    expect(ratio(3, 4)).toBe(0.75);
    expect(ratio(3, 0)).toBeNaN();
    expect(ratio(Number.NaN, 2)).toBeNaN();
  });
});

describe('Samples', () => {
  it('keeps every value past its first capacity and sorts them', () => {
    const s = new Samples();
    for (let i = 10_000; i > 0; i--) s.push(i / 10);
    expect(s.length).toBe(10_000);
    const sorted = s.sorted();
    expect(sorted[0]).toBe(0.1);
    expect(sorted[9_999]).toBe(1000);
    expect(percentileOfSorted(sorted, 50)).toBe(500);
  });
});
