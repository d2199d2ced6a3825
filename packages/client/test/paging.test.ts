import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/index.js';
import { apiError, json, managerOrder, page, testClient, type Sent } from './support.js';

/** A list of `total` orders served `size` at a time, following the query's page. */
function orders(total: number) {
  return (s: Sent) => {
    const q = new URLSearchParams(s.search);
    const p = Number(q.get('page') ?? 1);
    const size = Number(q.get('size') ?? 10);
    const totalPages = Math.ceil(total / size);
    const data = Array.from({ length: Math.max(0, Math.min(size, total - (p - 1) * size)) }, (_, i) =>
      managerOrder((p - 1) * size + i + 1),
    );
    return json(200, {
      success: true,
      data,
      pagination: { page: p, size, total, total_pages: totalPages, has_next: p < totalPages },
    });
  };
}

describe('paginate', () => {
  it('walks the pages while has_next is true, sending the same filters with every page', async () => {
    const { client, sent } = testClient(orders(25));
    const pages = [];
    for await (const p of client.paginate('/v3/manager/orders', {
      params: { query: { size: 10, updated_after: '2026-11-20 09:00:00' } },
    })) {
      pages.push(p);
    }
    expect(pages.map((p) => p.pagination.page)).toEqual([1, 2, 3]);
    expect(pages.map((p) => p.data.length)).toEqual([10, 10, 5]);
    expect(sent.map((s) => new URLSearchParams(s.search).get('page'))).toEqual(['1', '2', '3']);
    for (const s of sent) {
      expect(new URLSearchParams(s.search).get('updated_after')).toBe('2026-11-20 09:00:00');
      expect(new URLSearchParams(s.search).get('size')).toBe('10');
    }
  });

  it('stops after one request when has_next is false', async () => {
    const { client, sent } = testClient(() => json(200, page([], 1, 0)));
    const pages = [];
    for await (const p of client.paginate('/v3/wms/orders', {
      params: { query: { updated_after: '2026-11-20 09:00:00' } },
    }))
      pages.push(p);
    expect(pages).toHaveLength(1);
    expect(sent).toHaveLength(1);
  });

  it('starts at the page asked for', async () => {
    const { client, sent } = testClient(orders(30));
    const seen: number[] = [];
    for await (const p of client.paginate('/v3/manager/orders', { params: { query: { page: 2 } } }))
      seen.push(p.pagination.page);
    expect(seen).toEqual([2, 3]);
    expect(sent).toHaveLength(2);
  });

  it('reads no further than the consumer does', async () => {
    const { client, sent } = testClient(orders(100));
    for await (const p of client.paginate('/v3/manager/orders')) {
      if (p.pagination.page === 2) break;
    }
    expect(sent).toHaveLength(2);
  });

  it('throws the ApiError of a failed page, even without throwOnError', async () => {
    const { client } = testClient((s) =>
      new URLSearchParams(s.search).get('page') === '2'
        ? apiError(400, 'INVALID_PARAMETER', 'size must be at most 100')
        : orders(30)(s),
    );
    const seen: number[] = [];
    const err = await (async () => {
      for await (const p of client.paginate('/v3/manager/orders')) seen.push(p.pagination.page);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([1]);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('INVALID_PARAMETER');
    expect((err as ApiError).url).toContain('page=2');
  });

  it('refuses a path that is not a paged list', async () => {
    const { client, sent } = testClient(orders(1));
    const it = client.paginate('/v3/wms/orders/{order_no}' as never);
    await expect(it.next()).rejects.toThrow(/not a paged list/);
    expect(sent).toHaveLength(0);
  });

  it('stops a list whose has_next never advances', async () => {
    const { client } = testClient(() =>
      json(200, {
        success: true,
        data: [],
        pagination: { page: 1, size: 10, total: 99, total_pages: 10, has_next: true },
      }),
    );
    const err = await (async () => {
      for await (const _ of client.paginate('/v3/manager/orders', { params: { query: { page: 3 } } })) void _;
    })().catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/does not advance/);
  });

  it('pages the lists with required parameters too (path and query)', async () => {
    const { client, sent } = testClient(() => json(200, page([], 1, 0)));
    for await (const _ of client.paginate('/v3/wms/products/{product_code}/options', {
      params: { path: { product_code: 'SHIRT-LINEN-01' } },
    }))
      void _;
    expect(sent[0]!.path).toBe('/v3/wms/products/SHIRT-LINEN-01/options');
  });
});

describe('items', () => {
  it('yields every item of every page, in order', async () => {
    const { client, sent } = testClient(orders(23));
    const seen: string[] = [];
    for await (const order of client.items('/v3/manager/orders', { params: { query: { size: 10 } } }))
      seen.push(order.order_no);
    expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => `ORD-${i + 1}`));
    expect(sent).toHaveLength(3);
  });
});
