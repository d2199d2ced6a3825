// A browser reports a CORS refusal and a lost connection as the same TypeError. The client tells them apart with a
// no-cors probe (src/cors.ts); here a page is simulated by giving the test a document and a location.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CorsError, NetworkError, createClient, type RetryEvent } from '../src/index.js';
import { BASE, VirtualClock, json, page } from './support.js';

const PAGE = 'https://shop.example';

function onPage(origin = PAGE) {
  vi.stubGlobal('document', {});
  vi.stubGlobal('location', { origin });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A network on which the API's own requests fail as a browser fails them; `serviceUp` decides the no-cors probe. */
function browserNetwork(serviceUp: boolean) {
  const sent: { method: string; mode: string; url: string }[] = [];
  const fetch = async (request: Request) => {
    sent.push({ method: request.method, mode: request.mode, url: request.url });
    if (request.mode === 'no-cors' && serviceUp) return new Response(null, { status: 200 });
    throw new TypeError('Failed to fetch');
  };
  return { fetch, sent };
}

function client(fetch: (r: Request) => Promise<Response>, retries: RetryEvent[], method: 'GET' | 'POST' = 'GET') {
  const c = createClient({
    baseUrl: BASE,
    apiKey: 'wms_test_Ab12Cd34Ef56',
    fetch,
    timers: new VirtualClock(),
    pacing: false,
    retry: { onRetry: (e) => retries.push(e) },
  });
  return method === 'GET'
    ? c.GET('/v3/wms/suppliers', {})
    : c.POST('/v3/wms/orders/draft', {
        body: {
          orders: [
            {
              mall_order_no: 'M-1',
              mall_product_name: 'P',
              product_code: 'SHIRT-LINEN-01',
              quantity: 1,
              receiver_name: 'Kim Minji',
              receiver_phone: '010-1234-5678',
              receiver_address: '12 Teheran-ro, Seoul',
            },
          ],
        },
      });
}

describe('a cross-origin call the browser blocks', () => {
  it('is a CorsError at once when the service answers a no-cors probe: one attempt, no retry', async () => {
    onPage();
    const net = browserNetwork(true);
    const retries: RetryEvent[] = [];
    const error = await client(net.fetch, retries).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorsError);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as CorsError).origin).toBe(PAGE);
    expect((error as CorsError).message).toMatch(/blocked by the browser.*https:\/\/shop\.example.*CORS/);
    expect(retries).toEqual([]);
    expect(net.sent).toEqual([
      { method: 'GET', mode: 'cors', url: `${BASE}/v3/wms/suppliers` },
      { method: 'HEAD', mode: 'no-cors', url: `${BASE}/v3/wms/suppliers` },
    ]);
  });

  it('is a CorsError for a write too, which may or may not have been written', async () => {
    onPage();
    const error = await client(browserNetwork(true).fetch, [], 'POST').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorsError);
    expect((error as CorsError).mayHaveWritten).toBe(true);
  });

  it('stays a network error, retried for a GET, when the probe gets no answer either', async () => {
    onPage();
    const net = browserNetwork(false);
    const retries: RetryEvent[] = [];
    const error = await client(net.fetch, retries).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).not.toBeInstanceOf(CorsError);
    expect(retries.map((r) => r.reason)).toEqual(Array(4).fill('network_error'));
  });

  it('is not probed on a same-origin call, nor outside a browser', async () => {
    onPage(BASE);
    const same = browserNetwork(true);
    expect(await client(same.fetch, []).catch((e: unknown) => e)).not.toBeInstanceOf(CorsError);
    expect(same.sent.every((s) => s.mode === 'cors')).toBe(true);
    vi.unstubAllGlobals();
    const node = browserNetwork(true);
    expect(await client(node.fetch, []).catch((e: unknown) => e)).not.toBeInstanceOf(CorsError);
    expect(node.sent.every((s) => s.mode === 'cors')).toBe(true);
  });

  it('passes answered calls through untouched', async () => {
    onPage();
    const r = await createClient({
      baseUrl: BASE,
      apiKey: 'k',
      pacing: false,
      fetch: async () => json(200, page([], 1, 0)),
    }).GET('/v3/wms/suppliers', {});
    expect(r.response.status).toBe(200);
  });
});
