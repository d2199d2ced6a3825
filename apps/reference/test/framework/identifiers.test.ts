// Identifiers are any non-empty text without control characters (spec/DECISIONS.md G25): dots, spaces, slashes
// and Hangul included, percent-encoded as UTF-8 in a path. Over real HTTP, so the router's decoding is what is tested.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MALFORMED_PATH_ESCAPE_MESSAGE, malformedQueryMessage } from '@cls-api/server';
import { loadSpec } from '@cls-api/spec';
import { LIMITS_OFF, startTestServer, type TestResponse, type TestServer } from '../support/server.js';

// The designed bound of an Identifier, read from the contract (the server enforces it: it is our design).
const MAX = (loadSpec().components!.schemas!.Identifier as { maxLength: number }).maxLength;
const CODES = ['SKU.001', '셔츠-01', 'A/B 01', 'a%2F', '50% off', 'x?y#z', '...', 'ü'.repeat(MAX), '셔'.repeat(MAX)];

let s: TestServer;
let wms: string;
let manager: string;
const codeOf = (r: TestResponse) => [r.status, r.body.error?.code];
const enc = encodeURIComponent;

beforeAll(async () => {
  s = await startTestServer({ env: LIMITS_OFF });
  const seller = await s.account();
  wms = await s.key(seller, 'wms');
  manager = await s.key(seller, 'manager');
});
afterAll(() => s.close());

describe('open identifiers', () => {
  it('products with dots, spaces, slashes, % and Hangul are created, read back by their encoded path and listed', async () => {
    for (const code of CODES) {
      const created = await s.post(
        '/v3/wms/products',
        { product_code: code, product_name: `Product ${code.slice(0, 20)}`, price: 1000, stock_quantity: 5 },
        { apiKey: wms },
      );
      expect(created.status, code).toBe(200);
      expect(created.body.data.product_code).toBe(code);
      for (const [path, key] of [
        [`/v3/wms/products/${enc(code)}`, wms],
        [`/v3/manager/products/${enc(code)}`, manager],
      ] as const) {
        const read = await s.get(path, { apiKey: key });
        expect([read.status, read.body.data?.product_code], path).toEqual([200, code]);
      }
      const stock = await s.get(`/v3/wms/inventory?product_code=${enc(code)}`, { apiKey: wms });
      expect(stock.body.data.map((x: { product_code: string }) => x.product_code)).toEqual([code]);
    }
    const listed = await s.get('/v3/wms/products?size=100', { apiKey: wms });
    expect(listed.body.data.map((p: { product_code: string }) => p.product_code)).toEqual(CODES);
    // `%2F` is a slash inside the value, `%252F` the three characters `%2F`: two different products.
    expect((await s.get(`/v3/wms/products/a${enc('/')}`, { apiKey: wms })).status).toBe(404);
    expect((await s.get('/v3/wms/products/a%252F', { apiKey: wms })).body.data.product_code).toBe('a%2F');
  });

  it('options, orders and returns take open identifiers too, in bodies and in paths', async () => {
    const product = 'A/B 01';
    const option = '흰색 / M.1';
    const added = await s.post(
      `/v3/wms/products/${enc(product)}/options`,
      { options: [{ option_code: option, option_name: 'White M', stock_quantity: 3 }] },
      { apiKey: wms },
    );
    expect(added.body.data.options[0]).toMatchObject({ option_code: option, success: true });
    for (const path of [
      `/v3/wms/products/${enc(product)}/options/${enc(option)}`,
      `/v3/manager/products/${enc(product)}/options/${enc(option)}`,
    ]) {
      const read = await s.get(path, { apiKey: path.startsWith('/v3/manager') ? manager : wms });
      expect([read.status, read.body.data?.option_code], path).toEqual([200, option]);
    }
    const options = await s.get(`/v3/wms/products/${enc(product)}/options`, { apiKey: wms });
    expect(options.body.data.map((o: { option_code: string }) => o.option_code)).toEqual([option]);

    const mallOrderNo = '몰/주문 No.1';
    const row = {
      mall_order_no: mallOrderNo,
      mall_product_name: '셔츠',
      product_code: product,
      option_code: option,
      quantity: 1,
      receiver_name: 'Kim',
      receiver_phone: '010-1111-2222',
      receiver_address: 'Seoul',
    };
    const order = await s.post('/v3/wms/orders', { orders: [row] }, { apiKey: wms });
    expect(order.body.data.results[0]).toMatchObject({ mall_order_no: mallOrderNo, success: true });
    const orderNo = order.body.data.results[0].order_no as string;
    expect((await s.get(`/v3/wms/orders/${enc(orderNo)}`, { apiKey: wms })).body.data).toMatchObject({
      mall_order_no: mallOrderNo,
      product_code: product,
      option_code: option,
    });
    const draft = await s.post('/v3/wms/orders/draft', { orders: [row] }, { apiKey: wms });
    expect(draft.body.data.drafts[0]).toMatchObject({ mall_order_no: mallOrderNo, success: true, status: 'open' });
    const ret = await s.post('/v3/wms/returns', { order_no: orderNo, reason: 'Too small' }, { apiKey: wms });
    expect((await s.get(`/v3/wms/returns/${enc(ret.body.data.return_no)}`, { apiKey: wms })).status).toBe(200);
  });

  it('an unknown identifier in a path is 404 with its not-found code, never 400', async () => {
    for (const path of [
      '/v3/wms/products/SKU.404',
      '/v3/wms/products/%EC%85%94%EC%B8%A0',
      '/v3/wms/products/SKU%2F404',
      '/v3/wms/products/%20',
      '/v3/manager/products/SKU.404',
    ]) {
      expect(codeOf(await s.get(path, { apiKey: path.startsWith('/v3/manager') ? manager : wms })), path).toEqual([
        404,
        'PRODUCT_NOT_FOUND',
      ]);
    }
    expect(codeOf(await s.get('/v3/wms/products/SKU.001/options/%EC%85%94', { apiKey: wms }))).toEqual([
      404,
      'OPTION_NOT_FOUND',
    ]);
    expect(codeOf(await s.get('/v3/wms/orders/ORD.404%2F1', { apiKey: wms }))).toEqual([404, 'ORDER_NOT_FOUND']);
    expect(codeOf(await s.get('/v3/manager/orders/%EC%A3%BC%EB%AC%B8', { apiKey: manager }))).toEqual([
      404,
      'ORDER_NOT_FOUND',
    ]);
    expect(
      codeOf(await s.get('/v3/cam/invoices/INV%2F1/videos', { apiKey: await s.key(await s.account(), 'cam') })),
    ).toEqual([404, 'CAM_INVOICE_NOT_FOUND']);
  });

  it('a malformed percent escape in a path is 400 INVALID_PARAMETER in the envelope, never 500', async () => {
    for (const bad of ['%FF', '%', '%zz', '%E0%A4', 'A%2', '%C0%AF']) {
      for (const path of [
        `/v3/wms/products/${bad}`,
        `/v3/wms/orders/${bad}`,
        `/v3/manager/products/${bad}/options/X`,
      ]) {
        const r = await s.get(path, { apiKey: wms });
        expect(codeOf(r), path).toEqual([400, 'INVALID_PARAMETER']);
        expect(r.text.startsWith('{"success":false,"error":{')).toBe(true);
        expect(r.body.error.message, path).toBe(MALFORMED_PATH_ESCAPE_MESSAGE);
      }
    }
  });

  it('a malformed percent escape in a query is 400 INVALID_PARAMETER naming the parameter, as a path is refused', async () => {
    // Read as it came, `%FF` was the product code "%FF": 404 PRODUCT_NOT_FOUND for a product never named.
    for (const bad of ['%FF', '%', '%zz', '50%OFF', '%E0%A4', '%ED%A0%80']) {
      const r = await s.get(`/v3/wms/inventory?page=1&product_code=${bad}`, { apiKey: wms });
      expect(codeOf(r), bad).toEqual([400, 'INVALID_PARAMETER']);
      expect(r.body.error.message, bad).toBe(malformedQueryMessage(`product_code=${bad}`));
    }
    // As the path's: before authentication, and after the route is found.
    expect(codeOf(await s.get('/v3/manager/orders?date_from=%'))).toEqual([400, 'INVALID_PARAMETER']);
    expect(codeOf(await s.get('/v3/wms/nothing?x=%', { apiKey: wms }))).toEqual([404, 'NOT_FOUND']);
    // An escaped % is text like any other.
    const r = await s.get(`/v3/wms/inventory?product_code=${enc('50% off')}`, { apiKey: wms });
    expect([r.status, r.body.data?.[0]?.product_code]).toEqual([200, '50% off']);
  });

  it('the designed bounds hold: more than the maximum length or a control character is 400 INVALID_PARAMETER', async () => {
    const long = 'x'.repeat(MAX + 1);
    expect(
      codeOf(await s.post('/v3/wms/products', { product_code: long, product_name: 'Long', price: 1 }, { apiKey: wms })),
    ).toEqual([400, 'INVALID_PARAMETER']);
    for (const path of [
      `/v3/wms/products/${long}`,
      `/v3/wms/products/${enc('셔'.repeat(MAX + 1))}`,
      `/v3/wms/products/${'x'.repeat(10 * MAX)}`,
      '/v3/wms/products/a%0Ab',
      '/v3/wms/products/%00',
      '/v3/wms/products/%C2%85',
    ]) {
      expect(codeOf(await s.get(path, { apiKey: wms })), path.slice(0, 60)).toEqual([400, 'INVALID_PARAMETER']);
    }
    expect(
      codeOf(
        await s.post('/v3/wms/products', { product_code: 'tab\there', product_name: 'Tab', price: 1 }, { apiKey: wms }),
      ),
    ).toEqual([400, 'INVALID_PARAMETER']);
  });
});
