// The client against the reference server (apps/reference), run the way an integrator runs it (`startReference` of @cls-api/test-servers).
// Nothing here is faked: these are the server's real rules meeting the client's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, CredentialError, apiErrorOf, createClient, type BulkRow } from '../src/index.js';
import { keyOf, startReference, type DemoAccount, type ReferenceServer } from '@cls-api/test-servers';

let reference: ReferenceServer;
let baseUrl: string;
let seller: DemoAccount;
let other: DemoAccount;

beforeAll(async () => {
  reference = await startReference({ from: import.meta.url, env: { JWT_TTL_SECONDS: '60' } });
  baseUrl = reference.baseUrl;
  [seller, other] = reference.accounts as [DemoAccount, DemoAccount];
}, 300_000);

afterAll(async () => {
  await reference?.close();
});

describe('the client against the reference server', () => {
  it('walks every page of the manager order list and sees exactly the total the server reports', async () => {
    const client = createClient({ baseUrl, apiKey: keyOf(seller, 'manager') });
    const first = await client.GET('/v3/manager/orders', { params: { query: { page: 1, size: 2 } } });
    expect(first.error).toBeUndefined();
    const total = first.data!.pagination.total;
    expect(total).toBeGreaterThan(2);
    const seen: string[] = [];
    for await (const order of client.items('/v3/manager/orders', { params: { query: { size: 2 } } }))
      seen.push(order.order_no);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
  });

  it('tracks the monthly quota the server reports for a test key', async () => {
    const client = createClient({ baseUrl, apiKey: keyOf(seller, 'wms') });
    const r = await client.GET('/v3/wms/suppliers', {});
    expect(r.error).toBeUndefined();
    expect(client.quota?.limit).toBe(1000);
    expect(client.quota?.remaining).toBeLessThan(1000);
    expect(client.quota?.resetAt).toBeInstanceOf(Date);
  });

  it('one quota picture per account: after a burst through three clients, each reads the latest answer', async () => {
    const [wms, manager, alsoWms] = (['wms', 'manager', 'wms'] as const).map((area) =>
      createClient({ baseUrl, apiKey: keyOf(other, area), account: 'other' }),
    ) as [ReturnType<typeof createClient>, ReturnType<typeof createClient>, ReturnType<typeof createClient>];
    expect(alsoWms.quota).toBeUndefined();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 2 === 0
          ? wms.GET('/v3/wms/suppliers', {})
          : manager.GET('/v3/manager/orders', { params: { query: { size: 1 } } }),
      ),
    );
    const last = await manager.GET('/v3/manager/orders', { params: { query: { size: 1 } } });
    const remaining = Number(last.response.headers.get('X-RateLimit-Remaining'));
    expect(remaining).toBeLessThanOrEqual(1000 - 31);
    for (const client of [wms, manager, alsoWms]) expect(client.quota?.remaining).toBe(remaining);
  });

  it("carries the server's X-Request-Id on results, on errors and in the 500 report", async () => {
    const client = createClient({ baseUrl, apiKey: keyOf(seller, 'wms') });
    const ok = await client.GET('/v3/wms/suppliers', {});
    expect(ok.requestId).toEqual(expect.any(String));
    expect(ok.requestId).toBe(ok.response.headers.get('X-Request-Id'));
    const missing = await client.GET('/v3/wms/orders/{order_no}', {
      params: { path: { order_no: 'ORD-19990101-0001' } },
    });
    expect(missing.requestId).toEqual(expect.any(String));
    expect(missing.requestId).not.toBe(ok.requestId);
    const err = apiErrorOf(missing.response)!;
    expect(err.requestId).toBe(missing.requestId);
    expect(err.stack).toContain(`(request id ${missing.requestId})`);
    expect(err.report().text).toContain(`Request id: ${missing.requestId}`);
  });

  it('registers 2,500 draft rows in chunks of 1,000 with the results merged in submission order', async () => {
    const client = createClient({ baseUrl, apiKey: keyOf(seller, 'wms') });
    const products = await client.GET('/v3/wms/products', { params: { query: { size: 1 } } });
    const productCode = products.data!.data[0]!.product_code;
    const rows: BulkRow<'registerDraftOrders'>[] = Array.from({ length: 2500 }, (_, i) => ({
      mall_order_no: `CLIENT-IT-${i}`,
      mall_product_name: 'Integration row',
      product_code: i === 1234 ? 'NO-SUCH-PRODUCT' : productCode,
      quantity: 1,
      receiver_name: 'Kim Minji',
      receiver_phone: '010-1234-5678',
      receiver_address: '12 Teheran-ro, Seoul',
    }));
    const progress: number[] = [];
    const result = await client.bulk.registerDraftOrders(rows, { onProgress: (p) => progress.push(p.rowsSent) });
    expect(progress).toEqual([1000, 2000, 2500]);
    expect(result.created_count).toBe(2499);
    expect(result.failed_count).toBe(1);
    expect(result.drafts.map((d) => d.mall_order_no)).toEqual(rows.map((r) => r.mall_order_no));
    expect(result.drafts[1234]!.success).toBe(false);
    const read = await client.GET('/v3/wms/orders/draft/{draft_id}', {
      params: { path: { draft_id: result.drafts[2499]!.draft_id } },
    });
    expect(read.data?.data.mall_order_no).toBe('CLIENT-IT-2499');
  });

  it('types the contract errors: a shipped order cannot be modified, and another seller sees no such order', async () => {
    const client = createClient({ baseUrl, apiKey: keyOf(seller, 'wms'), throwOnError: true });
    const shipped = await client.GET('/v3/wms/orders', { params: { query: { order_status_code: 30, size: 1 } } });
    const orderNo = shipped.data!.data[0]!.order_no;
    const refused = await client
      .PATCH('/v3/wms/orders/{order_no}', { params: { path: { order_no: orderNo } }, body: { memo: 'too late' } })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(409);
    expect((refused as ApiError).code).toBe('ORDER_ALREADY_SHIPPED');

    const stranger = createClient({ baseUrl, apiKey: keyOf(other, 'manager') });
    const hidden = await stranger.GET('/v3/manager/orders/{order_no}', { params: { path: { order_no: orderNo } } });
    expect(hidden.response.status).toBe(404);
    expect(hidden.error?.error.code).toBe('ORDER_NOT_FOUND');
  });

  it('reads the manager area with a JWT from client credentials: the orders the test key sees, unmetered', async () => {
    const withKey = createClient({ baseUrl, apiKey: keyOf(seller, 'manager') });
    // An account of its own for the quota picture, so that only these two clients' answers make it.
    const withJwt = createClient({
      baseUrl,
      jwt: { clientId: seller.client_id, clientSecret: seller.client_secret },
      account: 'jwt-only',
    });
    expect(seller.client_id).toMatch(/^cli_test_/);
    const query = { params: { query: { page: 1, size: 5 } } };
    const byKey = await withKey.GET('/v3/manager/orders', query);
    const byJwt = await withJwt.GET('/v3/manager/orders', query);
    expect(byJwt.error).toBeUndefined();
    expect(byJwt.data!.pagination.total).toBe(byKey.data!.pagination.total);
    expect(byJwt.data!.data.map((o) => o.order_no)).toEqual(byKey.data!.data.map((o) => o.order_no));
    // A JWT call is not metered: no X-RateLimit-* headers, so no quota to report.
    expect(byJwt.response.headers.has('X-RateLimit-Limit')).toBe(false);
    expect(withJwt.quota).toBeUndefined();
  });

  it('gets a JWT with client credentials for /v3/pay/, and refuses an API key there before any request', async () => {
    const jwtClient = createClient({
      baseUrl,
      jwt: { clientId: seller.client_id, clientSecret: seller.client_secret },
    });
    const deposits = await jwtClient.GET('/v3/pay/deposits', {
      params: { query: { date_from: '2000-01-01', date_to: '2000-01-31' } },
    });
    expect(deposits.response.status).toBe(200);
    expect(deposits.data?.data).toEqual([]);

    const keyOnly = createClient({ baseUrl, apiKey: keyOf(seller, 'wms') });
    await expect(
      keyOnly.GET('/v3/pay/deposits', { params: { query: { date_from: '2026-01-01', date_to: '2026-01-31' } } }),
    ).rejects.toBeInstanceOf(CredentialError);
  });
});
