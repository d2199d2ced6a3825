// Test and live are separate data (spec/DECISIONS.md G20, G21): every record belongs to one account and one
// environment, and a key or JWT reaches only its own environment's records, over real HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DemoSummary } from '../../src/domain/index.js';
import { TestClock } from '../support/clock.js';
import { LIMITS_OFF, startTestServer, type TestResponse, type TestServer } from '../support/server.js';

const clock = new TestClock('2026-11-20T01:00:00Z'); // 10:00 in Seoul
let s: TestServer;
let seller: string;
let keys: Record<'test' | 'live', { wms: string; manager: string; cam: string }>;

beforeEach(async () => {
  clock.set('2026-11-20T01:00:00Z');
  s = await startTestServer({ clock: clock.now, env: LIMITS_OFF });
  seller = await s.account({ paid: true });
  keys = {
    test: {
      wms: await s.key(seller, 'wms', 'test'),
      manager: await s.key(seller, 'manager', 'test'),
      cam: await s.key(seller, 'cam', 'test'),
    },
    live: {
      wms: await s.key(seller, 'wms', 'live'),
      manager: await s.key(seller, 'manager', 'live'),
      cam: await s.key(seller, 'cam', 'live'),
    },
  };
});
afterEach(() => s.close());

const codeOf = (r: TestResponse) => [r.status, r.body.error?.code];
const other = (env: 'test' | 'live') => (env === 'test' ? 'live' : 'test');

function row(mallOrderNo: string, productCode: string) {
  return {
    mall_order_no: mallOrderNo,
    mall_product_name: 'Shirt',
    product_code: productCode,
    quantity: 1,
    receiver_name: 'Kim',
    receiver_phone: '010-1111-2222',
    receiver_address: 'Seoul',
  };
}

describe('test and live are separate data', () => {
  for (const env of ['test', 'live'] as const) {
    it(`a product created with a ${env} key is 404 with the ${other(env)} key of the same account and not in its lists`, async () => {
      const mine = keys[env];
      const theirs = keys[other(env)];
      const created = await s.post(
        '/v3/wms/products',
        { product_code: 'ONE-WORLD', product_name: `Only ${env}`, price: 1000, stock_quantity: 3 },
        { apiKey: mine.wms },
      );
      expect(created.status).toBe(200);
      expect((await s.get('/v3/wms/products/ONE-WORLD', { apiKey: mine.wms })).body.data.product_name).toBe(
        `Only ${env}`,
      );
      expect(codeOf(await s.get('/v3/wms/products/ONE-WORLD', { apiKey: theirs.wms }))).toEqual([
        404,
        'PRODUCT_NOT_FOUND',
      ]);
      expect(codeOf(await s.get('/v3/manager/products/ONE-WORLD', { apiKey: theirs.manager }))).toEqual([
        404,
        'PRODUCT_NOT_FOUND',
      ]);
      expect((await s.get('/v3/wms/products', { apiKey: theirs.wms })).body.data).toEqual([]);
      expect((await s.get('/v3/manager/products', { apiKey: theirs.manager })).body.data).toEqual([]);
      expect((await s.get('/v3/wms/inventory', { apiKey: theirs.wms })).body.data).toEqual([]);
      expect(codeOf(await s.get('/v3/wms/inventory?product_code=ONE-WORLD', { apiKey: theirs.wms }))).toEqual([
        404,
        'PRODUCT_NOT_FOUND',
      ]);
      expect(
        codeOf(
          await s.post(
            '/v3/wms/products/ONE-WORLD/options',
            { options: [{ option_code: 'O', option_name: 'O' }] },
            { apiKey: theirs.wms },
          ),
        ),
      ).toEqual([404, 'PRODUCT_NOT_FOUND']);
      // An order row of the other world cannot use the product either.
      const order = await s.post('/v3/wms/orders', { orders: [row('M-1', 'ONE-WORLD')] }, { apiKey: theirs.wms });
      expect(order.body.data.results[0]).toMatchObject({
        success: false,
        result_message: 'Product ONE-WORLD was not found.',
      });
      // The other world may use the same code, and the same mall order number, for records of its own.
      expect(
        (
          await s.post(
            '/v3/wms/products',
            { product_code: 'ONE-WORLD', product_name: `Also ${other(env)}`, price: 5, stock_quantity: 1 },
            { apiKey: theirs.wms },
          )
        ).status,
      ).toBe(200);
      expect(
        (await s.post('/v3/wms/orders', { orders: [row('M-1', 'ONE-WORLD')] }, { apiKey: theirs.wms })).body.data
          .created_count,
      ).toBe(1);
      expect(
        (await s.post('/v3/wms/orders', { orders: [row('M-1', 'ONE-WORLD')] }, { apiKey: mine.wms })).body.data
          .created_count,
      ).toBe(1);
      expect((await s.get('/v3/wms/products/ONE-WORLD', { apiKey: mine.wms })).body.data).toMatchObject({
        product_name: `Only ${env}`,
        price: 1000,
      });
    });
  }

  it('every kind of record stays in its environment: orders, drafts, products, options, stock, suppliers, returns, deposits, videos', async () => {
    const seeded = (await s.app.domain.seedDemo({
      owners: [{ accountId: seller, environment: 'test' }],
      now: clock.now(),
    })) as DemoSummary;
    const test = seeded.accounts[0]!;
    expect(test.environment).toBe('test');
    const [orderNo] = test.order_nos;
    const live = keys.live;
    const liveToken = await s.token(seller, 'live');
    const testToken = await s.token(seller, 'test');
    const deposits = '/v3/pay/deposits?date_from=2026-01-01&date_to=2026-12-31&size=100';

    // The test world has every kind of record …
    expect((await s.get('/v3/wms/orders', { apiKey: keys.test.wms })).body.pagination.total).toBe(
      test.order_nos.length,
    );
    expect((await s.get('/v3/wms/suppliers', { apiKey: keys.test.wms })).body.data.length).toBeGreaterThan(0);
    expect((await s.get(deposits, { bearer: testToken })).body.data.length).toBeGreaterThan(0);
    expect((await s.get(`/v3/cam/invoices/${test.invoice_nos[0]}/videos`, { apiKey: keys.test.cam })).status).toBe(200);

    // … and the live world of the same account sees none of them.
    for (const path of ['/v3/wms/orders', '/v3/wms/products', '/v3/wms/inventory', '/v3/wms/suppliers']) {
      const r = await s.get(path, { apiKey: live.wms });
      expect([r.body.data, r.body.pagination.total], path).toEqual([[], 0]);
    }
    for (const path of ['/v3/manager/orders', '/v3/manager/products']) {
      expect((await s.get(path, { apiKey: live.manager })).body.data, path).toEqual([]);
      expect((await s.get(path, { bearer: liveToken })).body.data, path).toEqual([]);
    }
    expect((await s.get(deposits, { bearer: liveToken })).body.data).toEqual([]);
    expect(codeOf(await s.get(`/v3/wms/orders/${orderNo}`, { apiKey: live.wms }))).toEqual([404, 'ORDER_NOT_FOUND']);
    expect(codeOf(await s.get(`/v3/manager/orders/${orderNo}`, { bearer: liveToken }))).toEqual([
      404,
      'ORDER_NOT_FOUND',
    ]);
    expect(
      codeOf(await s.request('PATCH', `/v3/wms/orders/${orderNo}`, { apiKey: live.wms, body: { memo: 'from live' } })),
    ).toEqual([404, 'ORDER_NOT_FOUND']);
    expect(codeOf(await s.get(`/v3/wms/orders/draft/${test.draft_ids[0]}`, { apiKey: live.wms }))).toEqual([
      404,
      'ORDER_DRAFT_NOT_FOUND',
    ]);
    expect(codeOf(await s.get(`/v3/wms/products/SHIRT-LINEN-01/options/WHITE-M`, { apiKey: live.wms }))).toEqual([
      404,
      'PRODUCT_NOT_FOUND',
    ]);
    expect(codeOf(await s.get(`/v3/wms/returns/${test.return_nos[0]}`, { apiKey: live.wms }))).toEqual([
      404,
      'NOT_FOUND',
    ]);
    expect(
      codeOf(await s.post(`/v3/wms/returns/${test.return_nos[1]}/cancel`, undefined, { apiKey: live.wms })),
    ).toEqual([404, 'NOT_FOUND']);
    expect(
      codeOf(await s.post('/v3/wms/returns', { order_no: orderNo, reason: 'from live' }, { apiKey: live.wms })),
    ).toEqual([404, 'ORDER_NOT_FOUND']);
    for (const invoiceNo of test.invoice_nos) {
      expect(codeOf(await s.get(`/v3/cam/invoices/${invoiceNo}/videos`, { apiKey: live.cam }))).toEqual([
        404,
        'CAM_INVOICE_NOT_FOUND',
      ]);
    }
    // Nothing the live calls tried changed the test world.
    expect((await s.get(`/v3/wms/orders/${orderNo}`, { apiKey: keys.test.wms })).body.data.memo).not.toBe('from live');
    expect((await s.get(`/v3/wms/returns/${test.return_nos[1]}`, { apiKey: keys.test.wms })).body.data.status).toBe(
      'requested',
    );

    // The live world gets data of its own: the same codes, its own records and numbers.
    const liveSeeded = (
      (await s.app.domain.seedDemo({
        owners: [{ accountId: seller, environment: 'live' }],
        now: clock.now(),
      })) as DemoSummary
    ).accounts[0]!;
    expect(liveSeeded.product_codes).toEqual(test.product_codes);
    expect(liveSeeded.order_nos.filter((n) => test.order_nos.includes(n))).toEqual([]);
    const liveOrders = (await s.get('/v3/manager/orders?size=100', { bearer: liveToken })).body.data.map(
      (o: { order_no: string }) => o.order_no,
    );
    expect(liveOrders.sort()).toEqual([...liveSeeded.order_nos].sort());
    const testOrders = (await s.get('/v3/manager/orders?size=100', { bearer: testToken })).body.data.map(
      (o: { order_no: string }) => o.order_no,
    );
    expect(testOrders.sort()).toEqual([...test.order_nos].sort());
  });

  it('the MCP area acts in the environment of the key used', async () => {
    const orderNos: Record<string, string> = {};
    for (const env of ['test', 'live'] as const) {
      await s.post(
        '/v3/wms/products',
        { product_code: 'MCP-P', product_name: env, price: 1, stock_quantity: 1 },
        { apiKey: keys[env].wms },
      );
      orderNos[env] = (
        await s.post('/v3/wms/orders', { orders: [row(`MCP-${env}`, 'MCP-P')] }, { apiKey: keys[env].wms })
      ).body.data.results[0].order_no;
    }
    for (const env of ['test', 'live'] as const) {
      const r = await s.post('/v3/mcp/tools/wms_list_orders/call', { arguments: {} }, { apiKey: keys[env].wms });
      expect(r.body.data.result.map((o: { mall_order_no: string }) => o.mall_order_no)).toEqual([`MCP-${env}`]);
      const miss = await s.post(
        '/v3/mcp/tools/wms_get_order/call',
        { arguments: { order_no: orderNos[other(env)] } },
        { apiKey: keys[env].wms },
      );
      expect(codeOf(miss)).toEqual([404, 'ORDER_NOT_FOUND']);
    }
  });

  it('the quota rules do not change: test keys are metered, live keys counted, JWT calls neither', async () => {
    const month = '2026-11';
    const usage = async () => [
      await s.app.accounts.usage(seller, month, 'test'),
      await s.app.accounts.usage(seller, month, 'live'),
    ];
    const before = await usage();
    const testCall = await s.get('/v3/wms/products', { apiKey: keys.test.wms });
    expect(testCall.headers['x-ratelimit-remaining']).toBeDefined();
    const liveCall = await s.get('/v3/wms/products', { apiKey: keys.live.wms });
    expect(liveCall.headers['x-ratelimit-remaining']).toBeUndefined();
    await s.get('/v3/manager/products', { bearer: await s.token(seller, 'live') });
    await s.get('/v3/manager/products', { bearer: await s.token(seller, 'test') });
    // Live calls are written together (LIVE_USAGE_FLUSH_MS); test-key calls at once.
    s.app.usageMeter.flushLive();
    await s.app.usageMeter.settled();
    expect(await usage()).toEqual([before[0]! + 1, before[1]! + 1]);
  });
});
