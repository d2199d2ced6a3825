import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OperationInfo } from '@cls-api/spec';
import fp from 'fastify-plugin';
import { pathOf } from '../request.js';

export interface CorsOptions extends Record<string, unknown> {
  /** CORS_ORIGINS: `*`, or the origins allowed to call the API from a browser page. */
  origins: '*' | string[];
  operations: ReadonlyMap<string, OperationInfo>;
  /** Headers that carry a credential, from the contract's security schemes (`X-API-Key`, `Authorization`). */
  credentialHeaders: readonly string[];
  /** Response headers the contract declares (`Retry-After`, `X-RateLimit-*`): a page must be able to read them. */
  declaredResponseHeaders: readonly string[];
}

/** The header every response carries for support requests (src/server.ts). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

interface PathMethods {
  pattern: RegExp;
  /** Literal segments: where two templates match a path, the more literal one is the route (`/orders/draft`). */
  literals: number;
  methods: Set<string>;
}

/** The methods each path of the contract answers: `/v3/wms/orders/{order_no}` → GET, PATCH. */
function pathTable(operations: ReadonlyMap<string, OperationInfo>): PathMethods[] {
  const byPath = new Map<string, Set<string>>();
  for (const op of operations.values()) {
    const methods = byPath.get(op.path) ?? new Set<string>();
    methods.add(op.method.toUpperCase());
    byPath.set(op.path, methods);
  }
  return [...byPath]
    .map(([path, methods]) => {
      const segments = path.split('/');
      const pattern = new RegExp(
        `^${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`,
      );
      return { pattern, literals: segments.filter((s) => !s.startsWith('{')).length, methods };
    })
    .sort((a, b) => b.literals - a.literals);
}

/**
 * Cross-origin calls from browser pages (`@fastify/cors`). A preflight (`OPTIONS` with Origin and
 * Access-Control-Request-Method) for a method that a path of the contract has is answered 204 before anything
 * else runs: it needs no credential and is counted by neither the gateway limit nor the monthly quota. Any other
 * OPTIONS request is 404 NOT_FOUND in the envelope, like every method the contract does not have. Requests from an
 * allowed origin may send the credential headers and `Content-Type`/`Accept`, and may read the contract's response
 * headers and `X-Request-Id`, so that a page can tell the gateway's 429 (no Retry-After) from the quota's.
 */
export const cors = fp<CorsOptions>(
  async (app: FastifyInstance, options) => {
    const paths = pathTable(options.operations);
    const allowedHeaders = [...options.credentialHeaders, 'Content-Type', 'Accept'];
    const exposedHeaders = [...options.declaredResponseHeaders, REQUEST_ID_HEADER];
    const origin = options.origins;

    const methodsOf = (request: FastifyRequest): string[] | undefined => {
      const path = pathOf(request.url);
      const found = paths.find((p) => p.pattern.test(path));
      return found && [...found.methods];
    };

    const decide = (request: FastifyRequest): FastifyCorsOptions => {
      // Without an Origin header the request is not a browser's cross-origin call: no CORS headers at all.
      if (request.headers.origin === undefined) return { origin: false };
      if (request.method !== 'OPTIONS') return { origin, exposedHeaders, preflight: false };
      const asked = request.headers['access-control-request-method'];
      const methods = methodsOf(request);
      if (typeof asked !== 'string' || !methods?.includes(asked.toUpperCase())) return { origin: false };
      return {
        origin,
        methods,
        allowedHeaders,
        exposedHeaders,
        maxAge: PREFLIGHT_MAX_AGE_SECONDS,
        strictPreflight: false,
      };
    };

    await app.register(fastifyCors, {
      hook: 'onRequest',
      delegator: (request: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void) =>
        callback(null, decide(request)),
    });
  },
  { name: 'cors', fastify: '5.x' },
);
