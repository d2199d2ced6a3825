// Long work in slices of the event loop: once a slice has run its length, a turn for the other requests. Used by the
// large-body parser (json-slices.ts) and by long SQLite transactions (store/sqlite-engine.ts).
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long long work runs before it lets the event loop serve others. */
export const SLICE_MS = 2;

export class Slices {
  private since = performance.now();
  private readonly started = this.since;

  constructor(private readonly sliceMs: number) {}

  /** A turn of the event loop for others, once the current slice has run `sliceMs`. */
  async maybe(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await nextTurn();
    this.since = performance.now();
  }

  /** Whether the whole work has run longer than one slice. */
  get long(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }
}
