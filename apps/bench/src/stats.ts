// Small, exact statistics: every reported number is a median over rounds, and every latency percentile is read
// from the recorded samples themselves (nearest-rank), not from a bucketed histogram.

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile (`p` from 0 to 100) of samples that are already sorted ascending. */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) throw new Error('percentile of no samples');
  if (!(p >= 0 && p <= 100)) throw new Error(`percentile must be from 0 to 100, got ${p}`);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export function percentile(values: ArrayLike<number>, p: number): number {
  return percentileOfSorted(Float64Array.from(values).sort(), p);
}

/** `a / b`, or NaN when `b` is not a positive number (a ratio that cannot be computed is shown as such). */
export function ratio(a: number, b: number): number {
  return b > 0 && Number.isFinite(a) && Number.isFinite(b) ? a / b : Number.NaN;
}

/** A growable buffer of float samples (latencies in ms), cheap enough to record every response of a round. */
export class Samples {
  private data = new Float64Array(4096);
  private n = 0;

  push(value: number): void {
    if (this.n === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.n++] = value;
  }

  get length(): number {
    return this.n;
  }

  sorted(): Float64Array {
    return this.data.slice(0, this.n).sort();
  }
}
