// The loop delay of chosen stretches only: the time between two stretches is not counted as a delay (Node's own
// monitor, disabled and enabled again, counts it), and a block inside a stretch is. Each bound is far from what a
// busy machine could make of it: an 80 ms block is at least 79 ms late, and a 20 ms stretch is not 3 s late.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { loopDelay } from '../src/loop-delay.js';

const block = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // the event loop held
  }
};

describe('loopDelay', () => {
  it('counts a block inside a stretch, and not the 3 s between two stretches', async () => {
    const delay = loopDelay();
    delay.start();
    await sleep(20);
    delay.stop();
    await sleep(3_000);
    delay.start();
    await sleep(5);
    block(80);
    await sleep(20);
    delay.stop();
    expect(delay.maxMs()).toBeGreaterThanOrEqual(79);
    expect(delay.maxMs()).toBeLessThan(3_000);
  });

  it('has no figure before a stretch has run', () => {
    expect(loopDelay().p99Ms()).toBeNaN();
    expect(loopDelay().maxMs()).toBeNaN();
  });
});
