import { limits } from '../generated/contract.js';
import { realTimers, type Timers } from './timers.js';
import { relativePath, type TransportLayer } from './transport.js';

/** One gateway speed limit: requests whose path starts with `appliesTo` share `ratePerSecond`, with `burst`. */
export interface GatewayBucket {
  name: string;
  appliesTo: string;
  ratePerSecond: number;
  burst: number;
}

/** The contract's gateway limits (`info.x-limits`): 30/s burst 50 on /v3/, and 10/s burst 10 on /v3/mcp/. */
export const contractGatewayBuckets: readonly GatewayBucket[] = limits.gateway.map((b) => ({ ...b }));

export interface PacerOptions {
  /** The buckets to pace by. Default: the contract's gateway limits. */
  buckets?: readonly GatewayBucket[];
  timers?: Timers;
}

interface BucketState extends GatewayBucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets that keep a client under the gateway's speed limits instead of bouncing off them. A request takes a
 * token from every bucket whose prefix it matches (an MCP call counts against both the general and the MCP limit);
 * when one is empty it waits until the bucket refills. Waiters are served in arrival order.
 *
 * The gateway counts per source IP address, across keys and areas, so clients that share an address should share
 * one pacer: `const pacer = createPacer(); createClient({ ..., pacing: pacer })`.
 */
export class Pacer {
  readonly #buckets: BucketState[];
  readonly #timers: Timers;
  #queue: Promise<void> = Promise.resolve();

  constructor(options: PacerOptions = {}) {
    this.#timers = options.timers ?? realTimers;
    const now = this.#timers.now();
    this.#buckets = (options.buckets ?? contractGatewayBuckets).map((b) => {
      if (!(b.ratePerSecond > 0) || !(b.burst >= 1)) {
        throw new TypeError(`pacing bucket ${b.name} needs ratePerSecond > 0 and burst >= 1`);
      }
      return { ...b, tokens: b.burst, updatedAt: now };
    });
  }

  /** The buckets as configured. */
  get buckets(): GatewayBucket[] {
    return this.#buckets.map(({ name, appliesTo, ratePerSecond, burst }) => ({
      name,
      appliesTo,
      ratePerSecond,
      burst,
    }));
  }

  /** Waits for a token for a request to `path` (relative to the base URL, `/v3/...`). */
  acquire(path: string, signal?: AbortSignal): Promise<void> {
    const turn = this.#queue.then(() => this.#take(path, signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #take(path: string, signal: AbortSignal | undefined): Promise<void> {
    const buckets = this.#buckets.filter((b) => path.startsWith(b.appliesTo));
    for (;;) {
      if (signal?.aborted) throw signal.reason;
      const now = this.#timers.now();
      let waitMs = 0;
      for (const b of buckets) {
        b.tokens = Math.min(b.burst, b.tokens + ((now - b.updatedAt) / 1000) * b.ratePerSecond);
        b.updatedAt = now;
        // A hair below 1 is float noise from the refill arithmetic, not a missing token.
        if (b.tokens < 1 - 1e-9) waitMs = Math.max(waitMs, ((1 - b.tokens) / b.ratePerSecond) * 1000);
      }
      if (waitMs === 0) {
        for (const b of buckets) b.tokens = Math.max(0, b.tokens - 1);
        return;
      }
      await this.#timers.sleep(Math.ceil(waitMs), signal);
    }
  }
}

export function createPacer(options?: PacerOptions): Pacer {
  return new Pacer(options);
}

/** Takes a token for every attempt on the wire, retries included. */
export function pacingLayer(pacer: Pacer, baseUrl: string): TransportLayer {
  return (next) => async (request) => {
    await pacer.acquire(relativePath(request.url, baseUrl), request.signal);
    return next(request);
  };
}
