import type { ApiKeyIdentity } from '../store/interface.js';

/**
 * API keys already looked up, each for at most `ttlMs` of service time. Every keyed request needs its key's
 * account, area, environment and paid state, and reading them from the database was a large share of a GET's CPU
 * (BENCHMARKS.md). A revocation or an ended subscription written by any process (the operator's CLI, another
 * instance on the same database) is therefore honoured within `ttlMs` (API_KEY_CACHE_MS, at most one second).
 *
 * Unknown keys are not remembered: a key issued a moment after someone guessed it must work at once, and a flood of
 * made-up keys is the gateway limit's to stop.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { identity: ApiKeyIdentity; expiresMs: number }>();

  constructor(
    readonly ttlMs: number,
    /** The most keys remembered at once; the oldest lookup goes first. */
    readonly capacity = 10_000,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  async lookup(
    apiKey: string,
    nowMs: number,
    load: (apiKey: string) => Promise<ApiKeyIdentity | undefined>,
  ): Promise<ApiKeyIdentity | undefined> {
    const known = this.entries.get(apiKey);
    // A clock that went back (a test's, or the host's) must not stretch an entry's life past ttlMs either.
    if (known && nowMs < known.expiresMs && nowMs >= known.expiresMs - this.ttlMs) return known.identity;
    if (known) this.entries.delete(apiKey);
    const identity = await load(apiKey);
    if (identity && this.ttlMs > 0) {
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(apiKey, { identity, expiresMs: nowMs + this.ttlMs });
    }
    return identity;
  }
}
