// The loop delay of chosen stretches only: the time between two stretches is not counted as a delay (Node's own
// monitor, disabled and enabled again, counts it), and a block inside a stretch is. Time is the test's own: a fake
// timer queue and a clock it moves, so an 80 ms block makes one turn 80 ms late whatever the machine is doing (the
// histogram keeps three significant digits).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loopDelay } from '../src/loop-delay.js';

let now = 0;
const clock = { now: () => now };

/** `ms` milliseconds in which the loop is free: the clock and the timers move together. */
const free = (ms: number) => {
  for (let i = 0; i < ms; i++) {
    now += 1;
    vi.advanceTimersByTime(1);
  }
};

/** `ms` milliseconds in which the loop is held: the clock moves and no timer can run. */
const block = (ms: number) => {
  now += ms;
};

beforeEach(() => {
  now = 0;
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('loopDelay', () => {
  it('counts a block inside a stretch, and not the 3 s between two stretches', () => {
    const delay = loopDelay(clock);
    delay.start();
    free(20);
    delay.stop();
    expect(delay.maxMs()).toBeLessThan(0.001);
    block(3_000);
    free(3_000);
    delay.start();
    free(5);
    block(80);
    free(20);
    delay.stop();
    expect(delay.maxMs()).toBeCloseTo(80, 1);
    // 45 turns, one of them late: the 99th percentile is the late one.
    expect(delay.p99Ms()).toBeCloseTo(80, 1);
  });

  it('a late turn counts how late it came, and the turns on time keep the 99th percentile low', () => {
    const delay = loopDelay(clock);
    delay.start();
    free(200);
    block(10);
    free(1);
    delay.stop();
    expect(delay.maxMs()).toBeCloseTo(10, 1);
    // 201 turns, one of them late: the 99th percentile is on time.
    expect(delay.p99Ms()).toBeLessThan(0.001);
  });

  it('stops taking turns when stopped, and starting twice is one stretch', () => {
    const delay = loopDelay(clock);
    delay.start();
    delay.start();
    free(10);
    delay.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('has no figure before a stretch has run', () => {
    expect(loopDelay(clock).p99Ms()).toBeNaN();
    expect(loopDelay(clock).maxMs()).toBeNaN();
  });
});
