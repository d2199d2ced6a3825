// The delay of this process's event loop during chosen stretches only (a scenario's phases). Node's own monitor
// (monitorEventLoopDelay), disabled and enabled again, counts the whole time it was off as one delay, and its
// histograms cannot be merged; so a 1 ms timer records, while a stretch runs, how late each of its turns came.
import { createHistogram, performance } from 'node:perf_hooks';

export interface LoopDelay {
  start(): void;
  stop(): void;
  p99Ms(): number;
  maxMs(): number;
}

const TICK_MS = 1;

/** Where the current time is read; a test passes its own to move time itself. */
export interface LoopClock {
  now(): number;
}

export function loopDelay(clock: LoopClock = performance): LoopDelay {
  const lateness = createHistogram();
  let timer: NodeJS.Timeout | undefined;
  const tick = (due: number) => {
    const now = clock.now();
    // The histogram takes positive integers: nanoseconds late, at least one.
    lateness.record(Math.max(1, Math.round((now - due) * 1e6)));
    timer = setTimeout(tick, TICK_MS, now + TICK_MS);
  };
  return {
    start() {
      if (timer) return;
      timer = setTimeout(tick, TICK_MS, clock.now() + TICK_MS);
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
    p99Ms: () => (lateness.count ? lateness.percentile(99) / 1e6 : Number.NaN),
    maxMs: () => (lateness.count ? lateness.max / 1e6 : Number.NaN),
  };
}
