import { limits } from '../generated/contract.js';
import type { GatewayLimit } from './contract.js';
import { realTimers, type Timers } from './timers.js';
import { signalOf } from './request.js';
import { relativePath, type TransportLayer } from './transport.js';

/** The contract's gateway limits (`info.x-limits`): 30/s burst 50 on /v3/, and 10/s burst 10 on /v3/mcp/. */
export const contractGatewayLimits: readonly GatewayLimit[] = limits.gateway.map((b) => ({ ...b }));

export interface PacerOptions {
  /** The limits to stay under. Default: the contract's gateway limits. */
  buckets?: readonly GatewayLimit[];
  /**
   * How far under each limit to stay, as a fraction of its rate and of its burst. Default 0.2: 24/s with bursts of
   * 40 under the gateway's 30/s burst 50, and 8/s burst 8 under the MCP limit's 10/s burst 10. The gateway meters
   * requests when they arrive, the pacer when they leave: the room left over absorbs requests that left on time but
   * arrive bunched (a connection pool, a browser's six connections per host, a busy event loop). 0 paces exactly
   * at the limits.
   */
  margin?: number;
  /**
   * At most this many requests at once, whatever burst the limits allow. Default: no cap beyond the paced burst.
   * 1 spaces requests evenly at the paced rate, never a burst (the contract-test kit's pacing).
   */
  maxBurst?: number;
  timers?: Timers;
}

/** The default `margin`: see PacerOptions. */
export const defaultPacingMargin = 0.2;

interface BucketState extends GatewayLimit {
  /** The rate and burst this pacer keeps to: the limit's, less the margin. */
  pacedRate: number;
  pacedBurst: number;
  tokens: number;
  updatedAt: number;
}

/**
 * Token buckets that keep a client under the gateway's speed limits instead of bouncing off them. A request takes a
 * token from every bucket whose prefix it matches (an MCP call counts against both the general and the MCP limit);
 * when one is empty it waits until the bucket refills. Waiters are served in arrival order.
 *
 * The gateway counts per source IP address, across keys and areas, so clients that share an address should share
 * one pacer. Clients of one process with the default pacing do: they get the pacer of their base URL
 * (`sharedPacer`). A client given its own `Pacer` or `PacerOptions` paces alone.
 */
export class Pacer {
  readonly #buckets: BucketState[];
  readonly #timers: Timers;
  #queue: Promise<void> = Promise.resolve();

  constructor(options: PacerOptions = {}) {
    this.#timers = options.timers ?? realTimers;
    const margin = options.margin ?? defaultPacingMargin;
    if (!(margin >= 0 && margin < 1)) throw new TypeError(`pacing margin must be in [0, 1), got ${margin}`);
    const maxBurst = options.maxBurst ?? Number.POSITIVE_INFINITY;
    if (!(maxBurst >= 1)) throw new TypeError(`pacing maxBurst must be 1 or more, got ${maxBurst}`);
    const now = this.#timers.now();
    this.#buckets = (options.buckets ?? contractGatewayLimits).map((b) => {
      if (!(b.ratePerSecond > 0) || !(b.burst >= 1)) {
        throw new TypeError(`pacing bucket ${b.name} needs ratePerSecond > 0 and burst >= 1`);
      }
      const pacedBurst = Math.max(1, Math.min(Math.floor(maxBurst), Math.floor(b.burst * (1 - margin))));
      return { ...b, pacedRate: b.ratePerSecond * (1 - margin), pacedBurst, tokens: pacedBurst, updatedAt: now };
    });
  }

  /** The limits this pacer stays under, as configured. */
  get buckets(): GatewayLimit[] {
    return this.#buckets.map(({ name, appliesTo, ratePerSecond, burst }) => ({
      name,
      appliesTo,
      ratePerSecond,
      burst,
    }));
  }

  /** What it actually paces at: each limit less the margin. */
  get pacedBuckets(): GatewayLimit[] {
    return this.#buckets.map(({ name, appliesTo, pacedRate, pacedBurst }) => ({
      name,
      appliesTo,
      ratePerSecond: pacedRate,
      burst: pacedBurst,
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
        b.tokens = Math.min(b.pacedBurst, b.tokens + ((now - b.updatedAt) / 1000) * b.pacedRate);
        b.updatedAt = now;
        // A hair below 1 is float noise from the refill arithmetic, not a missing token.
        if (b.tokens < 1 - 1e-9) waitMs = Math.max(waitMs, ((1 - b.tokens) / b.pacedRate) * 1000);
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

// One default pacer per base URL and clock. Keyed by the clock as well, so that a client on a clock of its own (a
// test's virtual clock, a scheduler's) never waits on a pacer that counts another clock's time.
const sharedPacers = new WeakMap<Timers, Map<string, Pacer>>();

/**
 * The pacer every client of this process with the default pacing uses for `baseUrl` (`https://api.example.com`,
 * without a trailing slash): created on first use with the default options, then shared.
 */
export function sharedPacer(baseUrl: string, timers: Timers = realTimers): Pacer {
  let byUrl = sharedPacers.get(timers);
  if (byUrl === undefined) {
    byUrl = new Map();
    sharedPacers.set(timers, byUrl);
  }
  const key = baseUrl.replace(/\/+$/, '');
  let pacer = byUrl.get(key);
  if (pacer === undefined) {
    pacer = new Pacer({ timers });
    byUrl.set(key, pacer);
  }
  return pacer;
}

/** Takes a token for every attempt on the wire, retries included. */
export function pacingLayer(pacer: Pacer, baseUrl: string): TransportLayer {
  return (next) => async (request) => {
    await pacer.acquire(relativePath(request.url, baseUrl), signalOf(request));
    return next(request);
  };
}
