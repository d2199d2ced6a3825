import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import fp from 'fastify-plugin';
import type { GatewayLimit } from '@cls-api/spec';
import type { GatewayBuckets } from '../limits/gateway-buckets.js';
import { pathOf } from '../request.js';

export interface GatewayRateLimitOptions extends Record<string, unknown> {
  /** Every gateway limit of info.x-limits (`/v3/`, `/v3/mcp/`), with the rates the configuration may raise. */
  tiers: readonly GatewayLimit[];
  /** In this process, or in Redis for every instance (src/limits/gateway-buckets.ts). */
  buckets: GatewayBuckets;
}

/**
 * The gateway speed limit: per source IP address (`request.ip`, which honours TRUSTED_PROXIES), summed across
 * keys and areas, before authentication. A request must find a token in every bucket whose prefix it falls
 * under, and takes one from each only when all have one. Its 429 carries no Retry-After and no X-RateLimit-*.
 */
/** The message of the gateway's 429 (and of the sandbox's forced one, which answers as it). */
export const GATEWAY_LIMIT_MESSAGE = 'Too many requests. Slow down and retry with backoff.';

/** The path prefix of the sandbox's helpers (spec/sandbox/openapi.yaml). */
export const SANDBOX_PREFIX = '/sandbox/';

export const gatewayRateLimit = fp<GatewayRateLimitOptions>(
  async (app: FastifyInstance, { tiers, buckets }) => {
    app.addHook('onRequest', async function takeGatewayToken(request) {
      // The sandbox's helpers (/sandbox/, DECISIONS G31) are limited as the service's own paths are (`/v3/`).
      const raw = pathOf(request.url);
      const path = raw.startsWith(SANDBOX_PREFIX) ? `/v3/${raw.slice(SANDBOX_PREFIX.length)}` : raw;
      const applicable: number[] = [];
      tiers.forEach((t, i) => {
        if (path.startsWith(t.appliesTo)) applicable.push(i);
      });
      if (applicable.length === 0) return;
      if (!(await buckets.take(request.ip, applicable, request.now.getTime()))) {
        throw new ApiError('RATE_LIMIT_EXCEEDED', GATEWAY_LIMIT_MESSAGE);
      }
    });
  },
  { name: 'gateway-rate-limit', fastify: '5.x', dependencies: ['cors'] },
);
