import { describe, expect, it } from 'vitest';
import { cacheKindOf, createClient, defaultCacheTtls, isFromCache, type CachedResponse } from '../src/index.js';
import { operations } from '../generated/contract.js';
import { BASE, VirtualClock, apiError, fakeFetch, json, page, testClient } from './support.js';

const product = {
  product_code: 'SHIRT-LINEN-01',
  product_name: 'Linen shirt',
  price: 39000,
  supplier_code: null,
  option_count: 2,
  created_at: '2026-11-01 10:00:00',
  updated_at: '2026-11-01 10:00:00',
};
const okPage = () => json(200, page([product], 1, 1));

describe('cache policy', () => {
  it('follows the source: products, options and suppliers 30-60 min, order lists 30-60 s', () => {
    expect(defaultCacheTtls.products).toBe(30 * 60_000);
    expect(defaultCacheTtls.options).toBe(30 * 60_000);
    expect(defaultCacheTtls.suppliers).toBe(30 * 60_000);
    expect(defaultCacheTtls.orderLists).toBe(30_000);
    expect(cacheKindOf('GET', '/v3/wms/products')).toBe('products');
    expect(cacheKindOf('GET', '/v3/wms/products/{product_code}')).toBe('products');
    expect(cacheKindOf('GET', '/v3/manager/products')).toBe('products');
    expect(cacheKindOf('GET', '/v3/wms/products/{product_code}/options')).toBe('options');
    expect(cacheKindOf('GET', '/v3/wms/products/{product_code}/options/{option_code}')).toBe('options');
    expect(cacheKindOf('GET', '/v3/wms/suppliers')).toBe('suppliers');
    expect(cacheKindOf('GET', '/v3/wms/orders')).toBe('orderLists');
    expect(cacheKindOf('GET', '/v3/manager/orders')).toBe('orderLists');
  });

  it('never caches stock, single orders, writes, payments or anything else', () => {
    expect(cacheKindOf('GET', '/v3/wms/inventory')).toBeUndefined();
    expect(cacheKindOf('GET', '/v3/wms/orders/{order_no}')).toBeUndefined();
    expect(cacheKindOf('POST', '/v3/wms/products')).toBeUndefined();
    expect(cacheKindOf('GET', '/v3/pay/deposits')).toBeUndefined();
    // Whatever the path: no operation whose response carries a stock quantity is cacheable.
    const stock = operations.filter((op) => op.carriesStock);
    expect(stock.map((op) => op.path)).toContain('/v3/wms/inventory');
    for (const op of stock) expect(cacheKindOf(op.method, op.path)).toBeUndefined();
  });

  it('refuses a TTL for stock or any kind it does not know', () => {
    expect(() => createClient({ baseUrl: BASE, cache: { ttl: { stock: 1000 } as never } })).toThrow(
      /stock is never cached/,
    );
    expect(() => createClient({ baseUrl: BASE, cache: { ttl: { products: -1 } } })).toThrow(/products/);
  });
});

describe('cache', () => {
  it('is off by default', async () => {
    const { client, sent } = testClient(okPage);
    await client.GET('/v3/wms/products');
    await client.GET('/v3/wms/products');
    expect(sent).toHaveLength(2);
  });

  it('serves products from memory for 30 minutes, then asks again', async () => {
    const { client, sent, clock } = testClient(okPage, { cache: true });
    const first = await client.GET('/v3/wms/products', { params: { query: { page: 1 } } });
    const second = await client.GET('/v3/wms/products', { params: { query: { page: 1 } } });
    expect(sent).toHaveLength(1);
    expect(second.data).toEqual(first.data);
    expect(isFromCache(second.response)).toBe(true);
    expect(isFromCache(first.response)).toBe(false);
    clock.advance(30 * 60_000 - 1);
    await client.GET('/v3/wms/products', { params: { query: { page: 1 } } });
    expect(sent).toHaveLength(1);
    clock.advance(1);
    await client.GET('/v3/wms/products', { params: { query: { page: 1 } } });
    expect(sent).toHaveLength(2);
  });

  it('keys entries by the full URL', async () => {
    const { client, sent } = testClient(okPage, { cache: true });
    await client.GET('/v3/wms/products', { params: { query: { page: 1 } } });
    await client.GET('/v3/wms/products', { params: { query: { page: 2 } } });
    expect(sent).toHaveLength(2);
  });

  it('keeps order lists for 30 seconds', async () => {
    const { client, sent, clock } = testClient(() => json(200, page([], 1, 0)), { cache: true });
    await client.GET('/v3/manager/orders');
    clock.advance(29_999);
    await client.GET('/v3/manager/orders');
    expect(sent).toHaveLength(1);
    clock.advance(1);
    await client.GET('/v3/manager/orders');
    expect(sent).toHaveLength(2);
  });

  it('never caches stock quantities, whatever the TTLs', async () => {
    const { client, sent } = testClient(() => json(200, page([], 1, 0)), {
      cache: { ttl: { products: 3_600_000, options: 3_600_000, suppliers: 3_600_000, orderLists: 60_000 } },
    });
    await client.GET('/v3/wms/inventory');
    await client.GET('/v3/wms/inventory');
    await client.GET('/v3/wms/inventory', { params: { query: { product_code: 'SHIRT-LINEN-01' } } });
    await client.GET('/v3/wms/inventory', { params: { query: { product_code: 'SHIRT-LINEN-01' } } });
    expect(sent).toHaveLength(4);
  });

  it('honours the TTLs given, within the kinds; 0 turns a kind off', async () => {
    const { client, sent, clock } = testClient(okPage, { cache: { ttl: { products: 60 * 60_000, orderLists: 0 } } });
    await client.GET('/v3/wms/products');
    clock.advance(59 * 60_000);
    await client.GET('/v3/wms/products');
    expect(sent).toHaveLength(1);
    await client.GET('/v3/manager/orders');
    await client.GET('/v3/manager/orders');
    expect(sent).toHaveLength(3);
  });

  it('does not cache error responses', async () => {
    let n = 0;
    const { client, sent } = testClient(() => (n++ === 0 ? apiError(500, 'INTERNAL_ERROR') : okPage()), {
      cache: true,
    });
    await client.GET('/v3/wms/products');
    const { data } = await client.GET('/v3/wms/products');
    expect(data?.success).toBe(true);
    expect(sent).toHaveLength(2);
  });

  it("is keyed per credential: clients sharing a store never see each other's entries", async () => {
    const store = new Map<string, CachedResponse>();
    const clock = new VirtualClock();
    const net = fakeFetch(okPage, clock);
    const base = { baseUrl: BASE, fetch: net.fetch, timers: clock, pacing: false as const, cache: { store } };
    const a = createClient({ ...base, apiKey: 'wms_test_AAAA' });
    const b = createClient({ ...base, apiKey: 'wms_test_BBBB' });
    await a.GET('/v3/wms/products');
    await b.GET('/v3/wms/products');
    expect(net.sent).toHaveLength(2);
    await a.GET('/v3/wms/products');
    await b.GET('/v3/wms/products');
    expect(net.sent).toHaveLength(2);
    expect(store.size).toBe(2);
    // The key names the credential by a fingerprint, never by the key itself.
    for (const key of store.keys()) expect(key).not.toMatch(/AAAA|BBBB/);
  });

  it("a successful write drops the writer's entries, so a read after a write is fresh", async () => {
    const { client, sent } = testClient(
      (s) =>
        s.method === 'POST'
          ? json(200, { success: true, data: { added_count: 1, failed_count: 0, options: [] } })
          : okPage(),
      { cache: true },
    );
    await client.GET('/v3/wms/products/{product_code}/options', {
      params: { path: { product_code: 'SHIRT-LINEN-01' } },
    });
    await client.POST('/v3/wms/products/{product_code}/options', {
      params: { path: { product_code: 'SHIRT-LINEN-01' } },
      body: { options: [{ option_code: 'RED-L', option_name: 'Red, L' }] },
    });
    await client.GET('/v3/wms/products/{product_code}/options', {
      params: { path: { product_code: 'SHIRT-LINEN-01' } },
    });
    expect(sent.map((s) => s.method)).toEqual(['GET', 'POST', 'GET']);
  });

  it('clearCache empties it', async () => {
    const { client, sent } = testClient(okPage, { cache: true });
    await client.GET('/v3/wms/suppliers');
    client.clearCache();
    await client.GET('/v3/wms/suppliers');
    expect(sent).toHaveLength(2);
  });
});
