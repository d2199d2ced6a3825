// The bulk rules of the source over real HTTP: format validation of the whole body first (any bad row, or more
// rows than the body's maxItems: 400 and nothing registered), then per-row outcomes in request order with HTTP 200.
import { loadSpec, operations, referenceOf, resolvePointer } from '@cls-api/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/engines.js';
import { LIMITS_OFF, startTestServer, type TestServer } from '../support/server.js';

// The row limit comes from the contract (maxItems of each bulk body's row array, wherever along its `$ref`s the
// contract states it), not from this test.
function rowLimit(operationId: string, field: string): number {
  const doc = loadSpec();
  const follow = (node: Record<string, unknown>): Record<string, unknown> => {
    for (let next = referenceOf(node); next && node.maxItems === undefined; next = referenceOf(node))
      node = resolvePointer(doc, next.$ref) as Record<string, unknown>;
    return node;
  };
  const op = operations(doc).find((o) => o.operationId === operationId)!;
  const body = follow(op.requestBody!.schema as Record<string, unknown>) as {
    properties: Record<string, Record<string, unknown>>;
  };
  return follow(body.properties[field]!).maxItems as number;
}

let s: TestServer;
let wms: string;
let manager: string;

function row(i: number, overrides: Record<string, unknown> = {}) {
  return {
    mall_order_no: `BULK-${i}`,
    mall_product_name: 'Bulk product',
    product_code: 'BULK-P',
    quantity: 1,
    receiver_name: 'Kim Minji',
    receiver_phone: '010-1234-5678',
    receiver_address: '12 Teheran-ro, Seoul',
    ...overrides,
  };
}

async function orderCount(): Promise<number> {
  const r = await s.get('/v3/manager/orders?page=1&size=1', { apiKey: manager });
  expect(r.status).toBe(200);
  return r.body.pagination.total;
}

// Bulk requests are one transaction of the store: the same rules on each engine (test/support/engines.ts).
describe.each(ENGINES)('on %s', (engine) => {
  beforeAll(async () => {
    s = await startTestServer({ env: LIMITS_OFF, engine });
    const seller = await s.account();
    wms = await s.key(seller, 'wms');
    manager = await s.key(seller, 'manager');
    const created = await s.post(
      '/v3/wms/products',
      { product_code: 'BULK-P', product_name: 'Bulk product', price: 1000, stock_quantity: 5000 },
      { apiKey: wms },
    );
    expect(created.status).toBe(200);
  });
  afterAll(async () => {
    await s.close();
  });

  describe('bulk registration over HTTP', () => {
    it('a draft body one row over the limit is 400 and registers nothing', async () => {
      const limit = rowLimit('registerDraftOrders', 'orders');
      expect(limit).toBe(1000);
      const over = await s.post(
        '/v3/wms/orders/draft',
        { orders: Array.from({ length: limit + 1 }, (_, i) => row(i)) },
        { apiKey: wms },
      );
      expect(over.status).toBe(400);
      expect(over.body.error.code).toBe('INVALID_PARAMETER');
      // Every row of the rejected body was valid on its own: had any been stored, re-sending row 0 would now fail
      // as a duplicate instead of opening a draft.
      const again = await s.post('/v3/wms/orders/draft', { orders: [row(0)] }, { apiKey: wms });
      expect(again.body.data.drafts[0].success).toBe(true);
    });

    it('a draft body at the limit is accepted row by row', async () => {
      const limit = rowLimit('registerDraftOrders', 'orders');
      const rows = Array.from({ length: limit }, (_, i) => row(10_000 + i));
      const r = await s.post('/v3/wms/orders/draft', { orders: rows }, { apiKey: wms });
      expect(r.status).toBe(200);
      expect(r.body.data.created_count).toBe(limit);
      expect(r.body.data.failed_count).toBe(0);
      expect(r.body.data.drafts.map((d: { mall_order_no: string }) => d.mall_order_no)).toEqual(
        rows.map((x) => x.mall_order_no),
      );
    });

    it('one row with a format error rejects the whole order body with 400 and registers nothing', async () => {
      const before = await orderCount();
      const body = { orders: [row(1), row(2), row(3, { receiver_name: undefined })] };
      const r = await s.post('/v3/wms/orders', body, { apiKey: wms });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('REQUIRED_PARAMETER');
      expect(r.body.error.message).toContain('orders[2]');
      expect(await orderCount()).toBe(before);
    });

    it('a mixed body is HTTP 200 with success true, each row in request order, and exact counts', async () => {
      const before = await orderCount();
      const body = {
        orders: [
          row(101),
          row(102, { product_code: 'NO-SUCH-PRODUCT' }),
          row(103),
          row(101), // repeats the first row's mall_order_no
          row(104, { quantity: 9999 }), // more than the stock left
        ],
      };
      const r = await s.post('/v3/wms/orders', body, { apiKey: wms });
      expect(r.status).toBe(200);
      expect(r.body.success).toBe(true);
      expect(r.text.startsWith('{"success":true')).toBe(true);
      const results = r.body.data.results as Array<{
        mall_order_no: string;
        success: boolean;
        order_no: string;
        result_message: string;
      }>;
      expect(results.map((x) => x.mall_order_no)).toEqual(body.orders.map((x) => x.mall_order_no));
      expect(results.map((x) => x.success)).toEqual([true, false, true, false, false]);
      for (const failed of results.filter((x) => !x.success)) {
        expect(failed.order_no).toBe('');
        expect(failed.result_message).not.toBe('');
      }
      expect(r.body.data.created_count).toBe(2);
      expect(r.body.data.failed_count).toBe(3);
      expect(await orderCount()).toBe(before + 2);
    });

    it('result rows have the two shapes of the contract: success with id, time and status, failure with them empty (DECISIONS G7, G26)', async () => {
      const drafts = await s.post(
        '/v3/wms/orders/draft',
        { orders: [row(201), row(202, { product_code: 'NO-SUCH-PRODUCT' })] },
        { apiKey: wms },
      );
      expect(drafts.body.data.drafts).toEqual([
        {
          mall_order_no: 'BULK-201',
          mall_product_name: 'Bulk product',
          draft_id: expect.stringMatching(/^DRF-/),
          status: 'open',
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
          success: true,
          result_message: '',
        },
        {
          mall_order_no: 'BULK-202',
          mall_product_name: 'Bulk product',
          draft_id: '',
          status: '',
          created_at: '',
          success: false,
          result_message: 'Product NO-SUCH-PRODUCT was not found.',
        },
      ]);
      const orders = await s.post(
        '/v3/wms/orders',
        { orders: [row(203), row(204, { product_code: 'NO-SUCH-PRODUCT' })] },
        { apiKey: wms },
      );
      expect(orders.body.data.results).toEqual([
        {
          mall_order_no: 'BULK-203',
          mall_product_name: 'Bulk product',
          order_no: expect.stringMatching(/^ORD-/),
          created_at: expect.any(String),
          success: true,
          result_message: '',
        },
        {
          mall_order_no: 'BULK-204',
          mall_product_name: 'Bulk product',
          order_no: '',
          created_at: '',
          success: false,
          result_message: 'Product NO-SUCH-PRODUCT was not found.',
        },
      ]);
      const options = await s.post(
        '/v3/wms/products/BULK-P/options',
        {
          options: [
            { option_code: 'RED', option_name: 'Red' },
            { option_code: 'RED', option_name: 'Red again' },
          ],
        },
        { apiKey: wms },
      );
      expect(options.body.data.options).toEqual([
        { option_code: 'RED', option_name: 'Red', created_at: expect.any(String), success: true, result_message: '' },
        {
          option_code: 'RED',
          option_name: 'Red again',
          created_at: '',
          success: false,
          result_message: 'Option RED repeats options[0] of this request.',
        },
      ]);
      // The test server's strict-contract mode has checked each row against the if/then shapes as it left.
      expect(s.app.contractViolations).toEqual([]);
    });
  });
});
