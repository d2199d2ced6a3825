import { afterEach, describe, expect, it } from 'vitest';
import { createDomain } from '../../src/domain/index.js';
import { ApiError } from '../../src/errors.js';
import type { DomainFactory } from '../../src/server.js';
import { loadSpec } from '@cls-api/spec';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** The real domain with some handlers replaced. */
function domainWith(overrides: Record<string, (...args: never[]) => Promise<unknown>>): DomainFactory {
  return (db, options) => {
    const domain = createDomain(db, options);
    return { ...domain, handlers: { ...domain.handlers, ...overrides } as typeof domain.handlers };
  };
}

const validRow = (i: number) => ({
  mall_order_no: `MALL-${i}`,
  mall_product_name: 'Linen shirt',
  product_code: 'SHIRT-1',
  quantity: 1,
  receiver_name: 'Kim Minji',
  receiver_phone: '010-1234-5678',
  receiver_address: '12 Teheran-ro, Seoul',
});

describe('the envelope', () => {
  it('every body starts with success; successes carry data, errors carry error', async () => {
    s = await startTestServer();
    const wms = await s.key(await s.account(), 'wms');
    const ok = await s.get('/v3/wms/suppliers', { apiKey: wms });
    expect(ok.text.startsWith('{"success":true,"data":')).toBe(true);
    const err = await s.get('/v3/wms/suppliers');
    expect(err.text).toBe(
      '{"success":false,"error":{"code":"AUTH_MISSING_TOKEN","message":"Send your API key in the X-API-Key header."}}',
    );
    expect(ok.headers['content-type']).toMatch(/^application\/json/);
  });

  it('success comes first even when a handler puts it last or not at all', async () => {
    s = await startTestServer({
      createDomain: domainWith({
        listSuppliers: async () => ({
          data: [],
          pagination: { page: 1, size: 10, total: 0, total_pages: 0, has_next: false },
          success: false,
        }),
      }),
    });
    const r = await s.get('/v3/wms/suppliers', { apiKey: await s.key(await s.account(), 'wms') });
    expect(r.text.startsWith('{"success":true,')).toBe(true);
  });

  it('an unknown route or method is 404 NOT_FOUND in the envelope', async () => {
    s = await startTestServer();
    for (const [method, path] of [
      ['GET', '/v3/nothing'],
      ['GET', '/v4/wms/orders'],
      ['DELETE', '/v3/wms/orders'],
      ['PUT', '/v3/auth/token'],
      ['GET', '/v3/wms/orders/'],
      ['GET', '/'],
    ] as const) {
      const r = await s.request(method, path);
      expect([r.status, r.body.error.code], `${method} ${path}`).toEqual([404, 'NOT_FOUND']);
    }
    const head = await s.request('HEAD', '/v3/wms/orders', { unchecked: true });
    expect(head.status).toBe(404);
    // A method the path does not have names the ones it has (the mock answers in the same words).
    expect((await s.request('PUT', '/v3/wms/orders/ORD-1')).body.error.message).toBe(
      'PUT is not an operation of /v3/wms/orders/ORD-1: it has GET, PATCH.',
    );
    expect((await s.request('GET', '/v3/nothing')).body.error.message).toBe('No operation GET /v3/nothing.');
  });
});

describe('request validation against the contract', () => {
  it('a missing required item is REQUIRED_PARAMETER, naming the row', async () => {
    s = await startTestServer();
    const wms = await s.key(await s.account(), 'wms');
    const rows = [validRow(0), validRow(1), { ...validRow(2), receiver_name: undefined }];
    const r = await s.post('/v3/wms/orders', { orders: rows }, { apiKey: wms });
    expect([r.status, r.body.error.code]).toEqual([400, 'REQUIRED_PARAMETER']);
    expect(r.body.error.message).toContain('orders[2].receiver_name');
    expect(r.headers['x-ratelimit-remaining']).toBeDefined();
  });

  it('a wrong format is INVALID_PARAMETER, naming the item', async () => {
    s = await startTestServer();
    const wms = await s.key(await s.account(), 'wms');
    const r = await s.post(
      '/v3/wms/orders',
      { orders: [validRow(0), { ...validRow(1), quantity: 0 }] },
      { apiKey: wms },
    );
    expect([r.status, r.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(r.body.error.message).toContain('orders[1].quantity');
    const extra = await s.post('/v3/wms/orders', { orders: [{ ...validRow(0), colour: 'red' }] }, { apiKey: wms });
    expect([extra.status, extra.body.error.code, extra.body.error.message]).toEqual([
      400,
      'INVALID_PARAMETER',
      'orders[0].colour is not allowed.',
    ]);
    const query = await s.get('/v3/wms/orders?size=abc', { apiKey: wms });
    expect([query.status, query.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(query.body.error.message).toContain('size');
    // Order numbers are Identifiers up to 100 characters (DECISIONS G25); the server enforces that design.
    const path = await s.get(`/v3/wms/orders/${'x'.repeat(101)}`, { apiKey: wms });
    expect([path.status, path.body.error.code]).toEqual([400, 'INVALID_PARAMETER']);
    expect(path.body.error.message).toContain('order_no');
  });

  it('a required query parameter that is missing is REQUIRED_PARAMETER', async () => {
    s = await startTestServer();
    const client = await s.app.accounts.createClient(await s.account(), 'test', new Date());
    const token = (await s.post('/v3/auth/token', client)).body.data.access_token;
    const r = await s.get('/v3/pay/deposits?date_from=2026-11-01', { bearer: token });
    expect([r.status, r.body.error.code]).toEqual([400, 'REQUIRED_PARAMETER']);
    expect(r.body.error.message).toContain('date_to');
  });

  it('an update that names no field, or has no body, is REQUIRED_PARAMETER and changes nothing (DECISIONS G27)', async () => {
    // 3.0 answered INVALID_PARAMETER; 3.1 documents REQUIRED_PARAMETER for PATCH /v3/wms/orders/{order_no}.
    s = await startTestServer();
    const wms = await s.key(await s.account(), 'wms');
    await s.post(
      '/v3/wms/products',
      { product_code: 'SHIRT-1', product_name: 'Linen shirt', price: 1000, stock_quantity: 5 },
      { apiKey: wms },
    );
    const orderNo = (await s.post('/v3/wms/orders', { orders: [validRow(0)] }, { apiKey: wms })).body.data.results[0]
      .order_no as string;
    const before = (await s.get(`/v3/wms/orders/${orderNo}`, { apiKey: wms })).body.data;
    const empty = await s.request('PATCH', `/v3/wms/orders/${orderNo}`, { apiKey: wms, body: {} });
    expect([empty.status, empty.body.error.code]).toEqual([400, 'REQUIRED_PARAMETER']);
    expect(empty.body.error.message).toMatch(/quantity, receiver_name, receiver_phone, receiver_address, memo/);
    const none = await s.request('PATCH', `/v3/wms/orders/${orderNo}`, { apiKey: wms });
    expect([none.status, none.body.error.code]).toEqual([400, 'REQUIRED_PARAMETER']);
    const unknown = await s.request('PATCH', '/v3/wms/orders/ORD-NONE', { apiKey: wms, body: {} });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'REQUIRED_PARAMETER']);
    expect((await s.get(`/v3/wms/orders/${orderNo}`, { apiKey: wms })).body.data).toEqual(before);
    // The contract's own example of this case gives the same outcome.
    const requestBody = loadSpec().paths!['/v3/wms/orders/{order_no}']!.patch!.requestBody as Record<string, unknown>;
    const example = (
      requestBody['x-invalid-examples'] as Record<
        string,
        { value: unknown; expected: { status: number; code: string } }
      >
    ).no_field_to_change!;
    const sent = await s.request('PATCH', `/v3/wms/orders/${orderNo}`, { apiKey: wms, body: example.value });
    expect([sent.status, sent.body.error.code]).toEqual([example.expected.status, example.expected.code]);
  });

  it('malformed JSON, a wrong content type, an empty or too large body are 400 in the envelope', async () => {
    s = await startTestServer({ env: { BODY_LIMIT_BYTES: '2048' } });
    const wms = await s.key(await s.account(), 'wms');
    const cases: Array<[string, Record<string, string>, string]> = [
      ['{"orders": [', {}, 'INVALID_PARAMETER'],
      ['orders=1', { 'content-type': 'application/x-www-form-urlencoded' }, 'INVALID_PARAMETER'],
      ['hello', { 'content-type': 'text/plain' }, 'INVALID_PARAMETER'],
      ['', { 'content-type': 'application/json' }, 'REQUIRED_PARAMETER'],
      [JSON.stringify({ orders: Array.from({ length: 20 }, (_, i) => validRow(i)) }), {}, 'INVALID_PARAMETER'],
      ['{"__proto__": {"x": 1}, "orders": []}', {}, 'INVALID_PARAMETER'],
      ['[]', {}, 'INVALID_PARAMETER'],
    ];
    for (const [body, headers, code] of cases) {
      const r = await s.request('POST', '/v3/wms/orders', { apiKey: wms, body, headers });
      expect([r.status, r.body.error.code], body.slice(0, 30)).toEqual([400, code]);
    }
  });

  it('params and query arrive coerced and defaulted as the contract says', async () => {
    let seen: unknown;
    s = await startTestServer({
      createDomain: domainWith({
        listSuppliers: async (input: { query: unknown }) => {
          seen = input.query;
          return { data: [], pagination: { page: 1, size: 10, total: 0, total_pages: 0, has_next: false } };
        },
      }),
    });
    const wms = await s.key(await s.account(), 'wms');
    await s.get('/v3/wms/suppliers', { apiKey: wms });
    expect(seen).toEqual({ page: 1, size: 10 });
    await s.get('/v3/wms/suppliers?page=3&size=100&unknown=1', { apiKey: wms });
    expect(seen).toMatchObject({ page: 3, size: 100 });
  });
});

describe('error mapping', () => {
  it("an ApiError takes its status from the contract's catalogue", async () => {
    s = await startTestServer({
      createDomain: domainWith({
        getWmsOrder: async () => {
          throw new ApiError('ORDER_NOT_FOUND', 'Order X was not found.');
        },
      }),
    });
    const r = await s.get('/v3/wms/orders/ORD-1', { apiKey: await s.key(await s.account(), 'wms') });
    expect([r.status, r.body.error]).toEqual([404, { code: 'ORDER_NOT_FOUND', message: 'Order X was not found.' }]);
  });

  it('an unexpected failure is 500 INTERNAL_ERROR with a generic message; the details are only in the log', async () => {
    s = await startTestServer({
      createDomain: domainWith({
        listSuppliers: async () => {
          throw new Error('SQLITE_ERROR: no such column: secret_column in SELECT * FROM suppliers');
        },
      }),
    });
    const r = await s.get('/v3/wms/suppliers', { apiKey: await s.key(await s.account(), 'wms') });
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('INTERNAL_ERROR');
    expect(r.text).not.toMatch(/SQLITE|secret_column|SELECT|at .*\.ts/);
    const requestId = r.headers['x-request-id'];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const logged = s.logs.find((l) => l.level === 50 && l.reqId === requestId);
    expect(logged).toBeDefined();
    expect(JSON.stringify(logged)).toContain('secret_column');
  });

  it('strict-contract mode: a code the operation does not list for its status is a bug, answered 500 and recorded', async () => {
    s = await startTestServer({
      createDomain: domainWith({
        listSuppliers: async () => {
          throw new ApiError('ORDER_ALREADY_SHIPPED', 'not an outcome of this operation');
        },
      }),
    });
    const r = await s.get('/v3/wms/suppliers', { apiKey: await s.key(await s.account(), 'wms') });
    expect([r.status, r.body.error.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(s.app.contractViolations).toEqual([
      'listSuppliers answered 409 ORDER_ALREADY_SHIPPED, which its x-error-codes do not list for 409',
    ]);
    s.app.contractViolations.length = 0;
  });

  it('strict-contract mode: a success body the contract does not describe is answered 500 and recorded', async () => {
    s = await startTestServer({
      createDomain: domainWith({ listSuppliers: async () => ({ data: [{ supplier_code: 'S1' }] }) }),
    });
    const r = await s.get('/v3/wms/suppliers', { apiKey: await s.key(await s.account(), 'wms') });
    expect([r.status, r.body.error.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(s.app.contractViolations).toHaveLength(1);
    expect(s.app.contractViolations[0]).toMatch(/^listSuppliers 200: /);
    s.app.contractViolations.length = 0;
  });
});
