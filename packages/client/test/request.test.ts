// openapi-fetch builds a CallRequest, not an undici Request, for each call (src/request.ts): only fetch builds one.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../src/index.js';
import { CallRequest } from '../src/request.js';
import { BASE, json, orderRow, page } from './support.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

const ok = () => json(200, page([], 1, 0));
const draftBody = { orders: [orderRow()] };

/** A client whose custom fetch keeps every Request it is given and answers an empty page. */
function recording() {
  const seen: Request[] = [];
  const client = createClient({
    baseUrl: BASE,
    apiKey: 'wms_test_k',
    pacing: false,
    fetch: async (request) => {
      seen.push(request);
      return ok();
    },
  });
  return { seen, client };
}

describe('the request openapi-fetch builds', () => {
  it("goes to the platform's fetch as a URL and init, so that fetch builds the only Request", async () => {
    const calls: unknown[][] = [];
    vi.stubGlobal('fetch', async (...args: unknown[]) => {
      calls.push(args);
      return ok();
    });
    const client = createClient({ baseUrl: BASE, apiKey: 'wms_test_k', pacing: false });
    await client.POST('/v3/wms/orders/draft', { body: draftBody });
    expect(calls).toHaveLength(1);
    const [url, init] = calls[0] as [string, RequestInit];
    expect(url).toBe(`${BASE}/v3/wms/orders/draft`);
    expect(init.method).toBe('POST');
    expect(new Headers(init.headers).get('X-API-Key')).toBe('wms_test_k');
    expect(JSON.parse(init.body as string)).toEqual(draftBody);
  });

  it('reaches a custom fetch as a real Request', async () => {
    const { seen, client } = recording();
    await client.POST('/v3/wms/orders/draft', { body: draftBody });
    expect(Object.getPrototypeOf(seen[0])).toBe(Request.prototype);
    expect(await seen[0]!.json()).toEqual(draftBody);
  });

  it('looks like a Request to middleware, which may also hand back a Request of its own', async () => {
    const sent: Request[] = [];
    const client = createClient({
      baseUrl: BASE,
      apiKey: 'wms_test_k',
      pacing: false,
      fetch: async (request) => {
        sent.push(request);
        return ok();
      },
    });
    const bodies: unknown[] = [];
    client.use({
      async onRequest({ request }) {
        expect((request as unknown) instanceof CallRequest).toBe(true);
        bodies.push(await new Response(request.body).json());
        bodies.push(await request.clone().json());
        const own = new Request(request.url, {
          method: request.method,
          headers: request.headers,
          body: await request.text(),
        });
        own.headers.set('X-Trace', 'abc');
        return own;
      },
    });
    await client.POST('/v3/wms/orders/draft', { body: draftBody });
    expect(bodies).toEqual([draftBody, draftBody]);
    expect(sent[0]!.headers.get('X-Trace')).toBe('abc');
  });

  it('clones with headers of its own', () => {
    const original = new CallRequest(`${BASE}/v3/x`, { headers: { A: '1' }, body: 'text', method: 'post' });
    const copy = original.clone();
    copy.headers.set('A', '2');
    expect(original.headers.get('A')).toBe('1');
    expect(original.method).toBe('POST');
    expect(original.hasBody && copy.hasBody).toBe(true);
    expect(new CallRequest(`${BASE}/v3/x`).body).toBeNull();
  });
});

describe('a parameter no URL can carry', () => {
  it('is refused before sending, naming the call and the parameter, in the path, the query or a list of values', async () => {
    const { seen, client } = recording();
    const half = 'holds half of a surrogate pair without the other half, which is not Unicode text';
    await expect(
      client.GET('/v3/wms/orders/{order_no}', { params: { path: { order_no: 'ORD-\ud800' } } }),
    ).rejects.toThrow(
      new TypeError(
        `GET /v3/wms/orders/{order_no}: params.path.order_no ${half} and cannot be put in a URL; nothing was sent`,
      ),
    );
    await expect(
      client.request('get', '/v3/wms/orders', { params: { query: { date_from: '2026-\udc00' } } }),
    ).rejects.toThrow(`GET /v3/wms/orders: params.query.date_from ${half}`);
    await expect(
      client.GET('/v3/wms/orders', { params: { query: { date_from: ['2026-11-20', '\ud83d'] } } as never }),
    ).rejects.toThrow(`params.query.date_from ${half}`);
    expect(seen).toHaveLength(0);
    // A whole pair is text like any other.
    await client.GET('/v3/wms/orders/{order_no}', { params: { path: { order_no: 'ORD-😀' } } });
    expect(seen.map((r) => new URL(r.url).pathname)).toEqual(['/v3/wms/orders/ORD-%F0%9F%98%80']);
  });
});
