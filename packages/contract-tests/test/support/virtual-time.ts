// Runs the kit against a server in this process (the reference server, support/reference.ts, behind the fault proxy)
// on a clock that moves only while no request is on the wire.
//
// The reference's gateway refills its buckets by its clock, which is the test's Date, and the kit paces, backs off
// and times its probe bursts by Date.now() and setTimeout. On the real clock the outcome depends on how fast the
// machine is: a busy one cannot send a burst faster than the bucket refills, so the probe finds no limit to prove.
// Here Date and setTimeout are vitest's fake timers, and time jumps to the next timer only when every request the
// kit sent has been answered and read: a burst takes no time at all, a sleep takes exactly its length, and the
// same run gives the same answers on a machine of any speed. (A proxy started with `latencyMs` would wait forever:
// its delay is a timer that only fires between requests.)
import { setImmediate as nextTurn } from 'node:timers/promises';
import { vi } from 'vitest';
import { onPark, parkedCount } from './parking.js';

export async function onVirtualTime<T>(run: () => Promise<T>): Promise<T> {
  const realFetch = globalThis.fetch;
  const realSetTimeout = globalThis.setTimeout;
  let onTheWire = 0;
  let answered: (() => void) | undefined;
  // Counts a request until its body has been read, so that time cannot pass while the server still works on it.
  const countingFetch: typeof fetch = async (input, init) => {
    onTheWire += 1;
    try {
      const res = await realFetch(input, init);
      const body = await res.arrayBuffer();
      return new Response(body.byteLength > 0 ? body : null, {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
    } finally {
      onTheWire -= 1;
      if (onTheWire <= parkedCount()) answered?.();
    }
  };

  // Requests the proxy parked (parking.ts) wait for the clock: when they are all that is on the wire, it may move.
  const stopListening = onPark(() => {
    if (onTheWire <= parkedCount()) answered?.();
  });
  vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: Date.now() });
  vi.stubGlobal('fetch', countingFetch);
  try {
    let settled = false;
    const result = run().finally(() => {
      settled = true;
    });
    while (!settled) {
      if (onTheWire > parkedCount()) await new Promise<void>((resolve) => (answered = resolve));
      answered = undefined;
      // One turn of the event loop lets what the last answer or timer started (a new request) begin.
      await nextTurn();
      if (onTheWire > parkedCount()) continue;
      if (vi.getTimerCount() > 0) vi.advanceTimersToNextTimer();
      // Neither a request nor a timer: the kit works (files, CPU); wait for it without spinning.
      else await new Promise((resolve) => realSetTimeout(resolve, 1));
    }
    return await result;
  } finally {
    stopListening();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  }
}
