/**
 * The clock and the sleep the client waits with. Injectable so that tests (and hosts with their own scheduling)
 * control time; the defaults use `Date.now` and `setTimeout`, so fake timers that patch those work too.
 */
export interface Timers {
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

// The waits on one signal, behind one listener of its own. Many calls may share a caller's signal and wait at the
// same time (retry backoff, pacing): a listener each would pile up on it, and Node warns from the eleventh
// (MaxListenersExceededWarning). The listener goes when the last wait on the signal ends.
const waitsBySignal = new WeakMap<AbortSignal, Set<() => void>>();

function fireWaits(this: AbortSignal): void {
  const waits = waitsBySignal.get(this);
  waitsBySignal.delete(this);
  for (const wake of waits ?? []) wake();
}

/** Calls `onAbort` once when `signal` aborts; returns the function that stops waiting. */
export function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  let waits = waitsBySignal.get(signal);
  if (waits === undefined) {
    waits = new Set();
    waitsBySignal.set(signal, waits);
    signal.addEventListener('abort', fireWaits, { once: true });
  }
  waits.add(onAbort);
  const mine = waits;
  return () => {
    if (!mine.delete(onAbort) || mine.size > 0 || waitsBySignal.get(signal) !== mine) return;
    waitsBySignal.delete(signal);
    signal.removeEventListener('abort', fireWaits);
  };
}

export const realTimers: Timers = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal === undefined) {
        setTimeout(resolve, ms);
        return;
      }
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const stop = whenAborted(signal, () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
      const timer = setTimeout(() => {
        stop();
        resolve();
      }, ms);
    }),
};
