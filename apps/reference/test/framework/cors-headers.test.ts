// The CORS hook (src/plugins/cors.ts) computes its headers at start; it must answer exactly as @fastify/cors did with
// the per-request options it used to be given: the same status, headers (names, values, order) and body, for every
// kind of request a browser or a server sends, with CORS_ORIGINS `*` and a list.
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { contract } from '../../src/contract-facts.js';
import { cors } from '../../src/plugins/cors.js';
import { pathOf } from '../../src/request.js';

const spec = contract();
const ORIGIN = 'https://shop.example';
const apps: FastifyInstance[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** The registration the server used before: @fastify/cors with options decided per request. */
async function withLibrary(app: FastifyInstance, origins: '*' | string[]) {
  const paths = [...spec.operations.values()].reduce((m, op) => {
    const set = m.get(op.path) ?? new Set<string>();
    set.add(op.method.toUpperCase());
    return m.set(op.path, set);
  }, new Map<string, Set<string>>());
  const table = [...paths]
    .map(([path, methods]) => {
      const segments = path.split('/');
      const pattern = new RegExp(`^${segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s)).join('/')}$`);
      return { pattern, literals: segments.filter((s) => !s.startsWith('{')).length, methods };
    })
    .sort((a, b) => b.literals - a.literals);
  const allowedHeaders = [...spec.credentialHeaders, 'Content-Type', 'Accept'];
  const exposedHeaders = [...spec.declaredResponseHeaders, 'X-Request-Id'];
  const decide = (request: FastifyRequest): FastifyCorsOptions => {
    if (request.headers.origin === undefined) return { origin: false };
    if (request.method !== 'OPTIONS') return { origin: origins, exposedHeaders, preflight: false };
    const asked = request.headers['access-control-request-method'];
    const found = table.find((p) => p.pattern.test(pathOf(request.url)));
    const methods = found && [...found.methods];
    if (typeof asked !== 'string' || !methods?.includes(asked.toUpperCase())) return { origin: false };
    return { origin: origins, methods, allowedHeaders, exposedHeaders, maxAge: 600, strictPreflight: false };
  };
  await app.register(fastifyCors, {
    hook: 'onRequest',
    delegator: (request: FastifyRequest, cb: (e: Error | null, o: FastifyCorsOptions) => void) =>
      cb(null, decide(request)),
  });
}

async function appWith(register: (app: FastifyInstance) => Promise<void>) {
  const app = Fastify();
  apps.push(app);
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('X-Request-Id', 'fixed');
  });
  await register(app);
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ success: false, error: { code: 'NOT_FOUND' } });
  });
  app.get('/v3/wms/orders', async () => ({ success: true }));
  app.get('/v3/wms/orders/:order_no', async () => ({ success: true }));
  await app.ready();
  return app;
}

const REQUESTS: Array<{ method: 'GET' | 'OPTIONS'; url: string; headers: Record<string, string> }> = [
  { method: 'GET', url: '/v3/wms/orders?page=1', headers: {} },
  { method: 'GET', url: '/v3/wms/orders', headers: { origin: ORIGIN } },
  { method: 'GET', url: '/v3/wms/orders/ORD-1', headers: { origin: 'https://evil.example' } },
  { method: 'GET', url: '/v3/nothing', headers: { origin: ORIGIN } },
  { method: 'OPTIONS', url: '/v3/wms/orders', headers: {} },
  { method: 'OPTIONS', url: '/v3/wms/orders', headers: { origin: ORIGIN } },
  { method: 'OPTIONS', url: '/v3/wms/orders', headers: { origin: ORIGIN, 'access-control-request-method': 'post' } },
  {
    method: 'OPTIONS',
    url: '/v3/wms/orders/ORD-1?x=1',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': 'PATCH',
      'access-control-request-headers': 'x-api-key',
    },
  },
  {
    method: 'OPTIONS',
    url: '/v3/wms/orders/draft',
    headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
  },
  { method: 'OPTIONS', url: '/v3/wms/orders', headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE' } },
  { method: 'OPTIONS', url: '/v3/nothing', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } },
  {
    method: 'OPTIONS',
    url: '/v3/wms/orders',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
  },
];

describe.each<'*' | string[]>(['*', [ORIGIN, 'http://localhost:5173'], ['*']])('CORS_ORIGINS %j', (origins) => {
  it('answers every request as @fastify/cors with per-request options did', async () => {
    const library = await appWith((app) => withLibrary(app, origins));
    const own = await appWith(async (app) => {
      await app.register(cors, {
        origins,
        operations: spec.operations,
        credentialHeaders: spec.credentialHeaders,
        declaredResponseHeaders: spec.declaredResponseHeaders,
      });
    });
    for (const request of REQUESTS) {
      const [a, b] = await Promise.all([library.inject(request), own.inject(request)]);
      const seen = (r: typeof a) => ({
        status: r.statusCode,
        headers: Object.entries(r.headers).filter(([name]) => name !== 'date'),
        body: r.body,
      });
      expect(seen(b), `${request.method} ${request.url} ${JSON.stringify(request.headers)}`).toEqual(seen(a));
    }
  });
});
