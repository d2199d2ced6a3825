import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import fp from 'fastify-plugin';
import { pathOf } from '../request.js';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** One token bucket per source IP address. */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private sinceSweep = 0;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
  ) {}

  private refill(ip: string, nowMs: number): Bucket {
    let bucket = this.buckets.get(ip);
    if (!bucket) {
      bucket = { tokens: this.burst, updatedMs: nowMs };
      this.buckets.set(ip, bucket);
      return bucket;
    }
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    bucket.tokens = Math.min(this.burst, bucket.tokens + elapsed * this.ratePerSecond);
    bucket.updatedMs = Math.max(bucket.updatedMs, nowMs);
    return bucket;
  }

  hasToken(ip: string, nowMs: number): boolean {
    return this.refill(ip, nowMs).tokens >= 1;
  }

  take(ip: string, nowMs: number): void {
    this.refill(ip, nowMs).tokens -= 1;
    // A full bucket holds no information: forget it now and then so that idle addresses do not pile up.
    if (++this.sinceSweep >= 1000) {
      this.sinceSweep = 0;
      for (const key of this.buckets.keys()) {
        if (key !== ip && this.refill(key, nowMs).tokens >= this.burst) this.buckets.delete(key);
      }
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

export interface GatewayLimit {
  /** Path prefix (`/v3/`, `/v3/mcp/`), from info.x-limits. */
  appliesTo: string;
  ratePerSecond: number;
  burst: number;
}

export interface GatewayRateLimitOptions extends Record<string, unknown> {
  limits: GatewayLimit[];
}

/**
 * The gateway speed limit: per source IP address (`request.ip`, which honours TRUSTED_PROXIES), summed across
 * keys and areas, before authentication. A request must find a token in every bucket whose prefix it falls
 * under, and takes one from each only when all have one. Its 429 carries no Retry-After and no X-RateLimit-*.
 */
export const gatewayRateLimit = fp<GatewayRateLimitOptions>(
  async (app: FastifyInstance, options) => {
    const tiers = options.limits.map((limit) => ({
      prefix: limit.appliesTo,
      buckets: new TokenBuckets(limit.ratePerSecond, limit.burst),
    }));

    app.addHook('onRequest', async function takeGatewayToken(request) {
      const path = pathOf(request.url);
      const applicable = tiers.filter((t) => path.startsWith(t.prefix));
      if (applicable.length === 0) return;
      const nowMs = request.now.getTime();
      if (!applicable.every((t) => t.buckets.hasToken(request.ip, nowMs))) {
        throw new ApiError('RATE_LIMIT_EXCEEDED', 'Too many requests. Slow down and retry with backoff.');
      }
      for (const t of applicable) t.buckets.take(request.ip, nowMs);
    });
  },
  { name: 'gateway-rate-limit', fastify: '5.x', dependencies: ['cors'] },
);
