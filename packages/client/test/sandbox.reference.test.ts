// client.sandbox and the `sandbox` option against the reference server (the sandbox integrators test against), on a
// server of this file's own: a reset here empties the demo seller's test data, which other files read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, QuotaExceededError, createClient, type BulkRow } from '../src/index.js';
import { keyOf, startReference, type DemoAccount, type ReferenceServer } from '@cls-api/test-servers';

let reference: ReferenceServer;
let seller: DemoAccount;

beforeAll(async () => {
  reference = await startReference({ from: import.meta.url });
  seller = reference.accounts[0]!;
}, 300_000);

afterAll(async () => {
  await reference?.close();
});

const row = (n: number): BulkRow<'registerOrders'> => ({
  mall_order_no: `SBX-${n}-${Date.now()}`,
  mall_product_name: 'Sandbox product',
  product_code: 'SBX-PRODUCT',
  quantity: 1,
  receiver_name: 'Kim Minji',
  receiver_phone: '010-1234-5678',
  receiver_address: '12 Teheran-ro, Seoul',
});

describe('client.sandbox against the reference server', () => {
  it('moves the test clock, which the account’s return window follows, and puts it back', async () => {
    const client = createClient({ baseUrl: reference.baseUrl, apiKey: keyOf(seller, 'wms'), throwOnError: true });
    await client.POST('/v3/wms/products', {
      body: { product_code: 'SBX-PRODUCT', product_name: 'Sandbox product', price: 1000, stock_quantity: 9 },
    });
    const ordered = await client.POST('/v3/wms/orders', { body: { orders: [row(1)] } });
    const orderNo = ordered.data.data.results[0]!.order_no!;
    const ret = (await client.POST('/v3/wms/returns', { body: { order_no: orderNo, reason: 'Wrong size' } })).data.data;

    const until = Date.parse(`${ret.cancellable_until.replace(' ', 'T')}Z`);
    const past = new Date(until + 1000).toISOString().slice(0, 19).replace('T', ' ');
    try {
      const frozen = await client.sandbox.clock.set({ at: past, frozen: true });
      expect(frozen).toMatchObject({ now: past, frozen: true });
      expect(await client.sandbox.clock.get()).toMatchObject({ now: past, frozen: true });
      // A frozen clock stands still: a minute forward is exactly a minute later, however long the calls took.
      const advanced = await client.sandbox.clock.advance(60, { frozen: true });
      const later = new Date(until + 61_000).toISOString().slice(0, 19).replace('T', ' ');
      expect(advanced).toMatchObject({ now: later, frozen: true });

      const refused = await client
        .POST('/v3/wms/returns/{return_no}/cancel', { params: { path: { return_no: ret.return_no } } })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ status: 400, code: 'RETURN_CANCEL_EXPIRED' });
    } finally {
      const real = await client.sandbox.clock.realTime();
      expect(real).toMatchObject({ offset_seconds: 0, frozen: false });
    }
  });

  it('forces the outcomes the contract declares, through the sandbox option', async () => {
    const client = createClient({ baseUrl: reference.baseUrl, apiKey: keyOf(seller, 'wms'), retry: false });
    const failed = await client.GET('/v3/wms/suppliers', { sandbox: { outcome: 'internal_error' } });
    expect(failed.response.status).toBe(500);
    expect(failed.error?.error.code).toBe('INTERNAL_ERROR');
    expect(failed.requestId).toBeTruthy();

    const quota = await client.GET('/v3/wms/suppliers', { sandbox: { outcome: 'quota_exceeded' } }).catch((e) => e);
    expect(quota).toBeInstanceOf(QuotaExceededError);
    expect((quota as QuotaExceededError).resetAt).toBeInstanceOf(Date);

    const gateway = await client.GET('/v3/wms/suppliers', { sandbox: { outcome: 'gateway_throttled' } });
    expect(gateway.response.status).toBe(429);
    expect(gateway.response.headers.get('Retry-After')).toBeNull();

    const bulk = await client.POST('/v3/wms/orders', {
      body: { orders: [row(2), row(3), row(4)] },
      sandbox: { outcome: 'bulk_failed', failedRows: [0, 2] },
    });
    expect(bulk.data?.data.results.map((r) => r.success)).toEqual([false, true, false]);

    // An outcome the operation does not declare is refused, as the sandbox document says.
    const undeclared = await client.GET('/v3/wms/suppliers', { sandbox: { outcome: 'bulk_failed' } });
    expect(undeclared.response.status).toBe(400);
    expect(undeclared.error?.error.code).toBe('INVALID_PARAMETER');
  });

  it('a JWT-only client reaches the helpers too; a live key is refused with AUTH_FORBIDDEN, nothing changed', async () => {
    const jwt = createClient({
      baseUrl: reference.baseUrl,
      jwt: { clientId: seller.client_id, clientSecret: seller.client_secret },
    });
    expect((await jwt.sandbox.clock.get()).offset_seconds).toBe(0);
    const client = createClient({ baseUrl: reference.baseUrl, apiKey: keyOf(seller, 'wms', 'live') });
    await expect(client.sandbox.reset()).rejects.toMatchObject({ status: 403, code: 'AUTH_FORBIDDEN' });
    const test = createClient({ baseUrl: reference.baseUrl, apiKey: keyOf(seller, 'wms'), throwOnError: true });
    expect((await test.GET('/v3/wms/products', {})).data.pagination.total).toBeGreaterThan(0);
  });

  it('resets the account’s test data, and loads the demo data set when asked', async () => {
    const client = createClient({ baseUrl: reference.baseUrl, apiKey: keyOf(seller, 'wms'), throwOnError: true });
    const emptied = await client.sandbox.reset();
    expect(emptied.removed.products).toBeGreaterThan(0);
    expect((await client.GET('/v3/wms/products', {})).data.pagination.total).toBe(0);
    const seeded = await client.sandbox.reset({ seed: 'demo' });
    expect(seeded).toMatchObject({ seed: 'demo', removed: { products: 0 } });
    expect(seeded.loaded!.products).toBeGreaterThan(0);
    expect((await client.GET('/v3/wms/products', {})).data.pagination.total).toBe(seeded.loaded!.products);
  });
});
