import type { FastifyInstance, FastifyReply } from 'fastify';
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
  /**
   * The sandbox's helpers (spec/sandbox/openapi.yaml): its paths answer preflights like the contract's, and a page
   * may send its request headers (`X-Sandbox-Outcome`, `X-Sandbox-Failed-Rows`).
   */
  sandbox?: { operations: ReadonlyMap<string, OperationInfo>; requestHeaders: readonly string[] };
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

declare module 'fastify' {
  interface FastifyRequest {
    /** This OPTIONS request is a preflight the CORS hook answered (the OPTIONS route then has nothing to do). */
    corsPreflight: boolean;
  }
}

/** Adds a name to the response's Vary header unless it is there already (or Vary is `*`). */
function addVary(reply: FastifyReply, name: string): void {
  const current = reply.getHeader('vary');
  if (current === undefined) {
    reply.header('Vary', name);
    return;
  }
  const value = Array.isArray(current) ? current.join(', ') : String(current);
  const names = value.split(',').map((v) => v.trim().toLowerCase());
  if (names.includes('*') || names.includes(name.toLowerCase())) return;
  reply.header('Vary', `${value}, ${name}`);
}

/**
 * Cross-origin calls from browser pages. A preflight (`OPTIONS` with Origin and Access-Control-Request-Method) for a
 * method that a path of the contract has is answered 204 before anything else runs: it needs no credential and is
 * counted by neither the gateway limit nor the monthly quota. Any other OPTIONS request is 404 NOT_FOUND in the
 * envelope, like every method the contract does not have. Requests from an allowed origin may send the credential
 * headers and `Content-Type`/`Accept`, and may read the contract's response headers and `X-Request-Id`, so that a
 * page can tell the gateway's 429 (no Retry-After) from the quota's.
 *
 * The headers are @fastify/cors's, with the same names, values and order (test/framework/cors-headers.test.ts compares
 * them), but every header value is computed at start: the library's delegator built and merged its options for
 * every request, a visible share of a GET's CPU. Every response says `Vary: Origin`.
 */
export const cors = fp<CorsOptions>(
  async (app: FastifyInstance, options) => {
    const operations = new Map([...options.operations, ...(options.sandbox?.operations ?? [])]);
    const paths = pathTable(operations).map((p) => ({ ...p, allowMethods: [...p.methods].join(', ') }));
    const allowHeaders = [
      ...options.credentialHeaders,
      ...(options.sandbox?.requestHeaders ?? []),
      'Content-Type',
      'Accept',
    ].join(', ');
    const exposeHeaders = [...options.declaredResponseHeaders, REQUEST_ID_HEADER].join(', ');
    const origins = options.origins;
    const anyOrigin = origins === '*' || origins.includes('*');
    const maxAge = String(PREFLIGHT_MAX_AGE_SECONDS);

    app.decorateRequest('corsPreflight', false);

    app.addHook('onRequest', (request, reply, done) => {
      addVary(reply, 'Origin');
      const origin = request.headers.origin;
      // Without an Origin header the request is not a browser's cross-origin call: no CORS headers at all.
      if (origin === undefined) return done();
      let preflightMethods: string | undefined;
      if (request.method === 'OPTIONS') {
        const asked = request.headers['access-control-request-method'];
        const path = pathOf(request.url);
        const found = paths.find((p) => p.pattern.test(path));
        if (typeof asked !== 'string' || !found?.methods.has(asked.toUpperCase())) return done();
        preflightMethods = found.allowMethods;
      }
      // An origin not allowed gets no Access-Control-Allow-Origin; the rest is said all the same.
      const allowOrigin = anyOrigin ? '*' : (origins as string[]).includes(origin) ? origin : undefined;
      if (allowOrigin !== undefined) reply.header('Access-Control-Allow-Origin', allowOrigin);
      reply.header('Access-Control-Expose-Headers', exposeHeaders);
      if (preflightMethods === undefined) return done();
      request.corsPreflight = true;
      reply.header('Access-Control-Allow-Methods', preflightMethods);
      reply.header('Access-Control-Allow-Headers', allowHeaders);
      reply.header('Access-Control-Max-Age', maxAge);
      // Answered here, so that nothing after this hook counts or refuses it; Safari waits for a body without the length.
      reply.code(204).header('Content-Length', '0').send();
    });
  },
  { name: 'cors', fastify: '5.x' },
);

/**
 * The route every OPTIONS request has, so that one that is not an answered preflight is the not-found answer. A
 * plugin of its own, registered after error-mapping: a route keeps the error handler there was when it was added,
 * and an OPTIONS request refused on its way (the gateway's 429) must be answered in the envelope like any other.
 */
export const corsOptionsRoute = fp(
  async (app: FastifyInstance) => {
    app.options('*', (request, reply) => {
      if (!request.corsPreflight) {
        reply.callNotFound();
        return;
      }
      reply.send();
    });
  },
  { name: 'cors-options-route', fastify: '5.x', dependencies: ['cors', 'error-mapping'] },
);
