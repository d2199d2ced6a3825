import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contractModel } from '@cls-api/spec';
import { ownerOf } from '../../src/environment.js';
import { domainParts } from '../../src/domain/index.js';
import { orderLifecycle } from '../../src/domain/orders.js';
import type { Param, SqlEngine } from '../../src/store/sql.js';
import { SqlDomainStore } from '../../src/store/sql-domain.js';
import {
  NOW,
  SELLER_A,
  SELLER_B,
  call,
  count,
  ctx,
  domainOnStore,
  expectApiError,
  freshDomain,
  type Harness,
  orderRow,
  product,
  registerOne,
  spec,
  stockOf,
  closeDomains,
  ENGINES,
  TIME_ZONE,
  blindToMallOrderNos,
} from './support.js';

// The same suite on each storage engine (test/support/engines.ts).
describe.each(ENGINES)('on %s', (engine) => {
  afterEach(closeDomains);
  let h: Harness;
  beforeEach(async () => {
    h = await freshDomain(engine);
    await product(h, SELLER_A, 'SHIRT', 0, [
      ['WHITE-M', 5],
      ['WHITE-L', 2],
    ]);
    await product(h, SELLER_A, 'SCARF', 3);
  });

  describe('registerOrders: bulk, per row, in request order', () => {
    it('a row whose mall_order_no another instance committed meanwhile fails on the unique key, and gives its stock back', async () => {
      await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'RACED', option_code: 'WHITE-M' }));
      const racing = domainOnStore(blindToMallOrderNos(h.storage.domain));
      const result = await call(
        racing,
        'registerOrders',
        {
          body: {
            orders: [
              orderRow({ mall_order_no: 'RACED', option_code: 'WHITE-M', quantity: 2 }),
              orderRow({ mall_order_no: 'FRESH', option_code: 'WHITE-M' }),
            ],
          },
        },
        ctx(SELLER_A, NOW),
      );
      expect(result.data.results.map((r) => [r.success, r.result_message])).toEqual([
        [false, 'An order with mall_order_no RACED already exists.'],
        [true, ''],
      ]);
      expect(await count(h, 'orders')).toBe(2);
      // 5 at first: one for the first RACED, one for FRESH; the two the losing row took are back.
      expect(await stockOf(h, SELLER_A, 'SHIRT', 'WHITE-M')).toBe(3);
    });

    it('reports each row of a mixed body in order, with exact counts', async () => {
      await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'MALL-OLD', product_code: 'SCARF' }));
      const result = await call(
        h,
        'registerOrders',
        {
          body: {
            orders: [
              orderRow({ mall_order_no: 'MALL-1', option_code: 'WHITE-M', quantity: 2 }),
              orderRow({ mall_order_no: 'MALL-OLD', product_code: 'SCARF' }), // used by an earlier request
              orderRow({ mall_order_no: 'MALL-2', product_code: 'SOCKS' }), // unknown product
              orderRow({ mall_order_no: 'MALL-3', option_code: 'RED-XL' }), // unknown option
              orderRow({ mall_order_no: 'MALL-4', option_code: 'WHITE-L', quantity: 3 }), // 2 in stock
              orderRow({ mall_order_no: 'MALL-5', product_code: 'SCARF', quantity: 2, memo: 'Ring twice' }),
              orderRow({ mall_order_no: 'MALL-1', option_code: 'WHITE-M' }), // repeats row 0 of this request
            ],
          },
        },
        ctx(SELLER_A, NOW),
      );
      const { created_count, failed_count, results } = result.data;
      expect(results.map((r) => r.mall_order_no)).toEqual([
        'MALL-1',
        'MALL-OLD',
        'MALL-2',
        'MALL-3',
        'MALL-4',
        'MALL-5',
        'MALL-1',
      ]);
      expect(results.map((r) => r.success)).toEqual([true, false, false, false, false, true, false]);
      expect(created_count).toBe(2);
      expect(failed_count).toBe(5);
      expect(results[1]!.result_message).toMatch(/MALL-OLD already exists/);
      expect(results[2]!.result_message).toBe('Product SOCKS was not found.');
      expect(results[3]!.result_message).toMatch(/Option RED-XL of product SHIRT was not found/);
      expect(results[4]!.result_message).toMatch(/Insufficient stock.*WHITE-L.*3 requested, 2 available/);
      expect(results[6]!.result_message).toMatch(/MALL-1 repeats orders\[0\]/);
      for (const r of results) {
        if (r.success) {
          expect(r.order_no).toMatch(/^ORD-20261120-\d{4}$/);
          expect(r.created_at).toBe('2026-11-20 10:00:00');
          expect(r.result_message).toBe('');
        } else {
          expect(r.order_no).toBe('');
          expect(r.created_at).toBe('');
          expect(r.result_message.length).toBeGreaterThan(0);
        }
      }
      // Only the accepted rows took stock.
      expect(await stockOf(h, SELLER_A, 'SHIRT', 'WHITE-M')).toBe(3);
      expect(await stockOf(h, SELLER_A, 'SHIRT', 'WHITE-L')).toBe(2);
      expect(await stockOf(h, SELLER_A, 'SCARF', null)).toBe(0);
      expect(await count(h, 'orders')).toBe(3);
    });

    it('assigns unique order numbers per service-time day', async () => {
      const a = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'M-1', option_code: 'WHITE-M' }));
      const b = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'M-2', option_code: 'WHITE-M' }));
      // 2026-11-20T15:30Z is already 2026-11-21 00:30 in Seoul.
      const c = await registerOne(
        h,
        SELLER_A,
        orderRow({ mall_order_no: 'M-3', option_code: 'WHITE-M' }),
        '2026-11-20T15:30:00Z',
      );
      expect([a, b, c]).toEqual(['ORD-20261120-0001', 'ORD-20261120-0002', 'ORD-20261121-0001']);
    });

    it('fails a repeated mall_order_no even when its earlier row failed', async () => {
      const result = await call(
        h,
        'registerOrders',
        {
          body: {
            orders: [
              orderRow({ mall_order_no: 'M-9', product_code: 'NOPE' }),
              orderRow({ mall_order_no: 'M-9', product_code: 'SCARF' }),
            ],
          },
        },
        ctx(SELLER_A, NOW),
      );
      expect(result.data.results.map((r) => r.success)).toEqual([false, false]);
      expect(result.data.failed_count).toBe(2);
    });

    it('sums stock over the rows of one request: later rows see what earlier rows took', async () => {
      const result = await call(
        h,
        'registerOrders',
        {
          body: {
            orders: [
              orderRow({ mall_order_no: 'S-1', product_code: 'SCARF', quantity: 2 }),
              orderRow({ mall_order_no: 'S-2', product_code: 'SCARF', quantity: 2 }),
              orderRow({ mall_order_no: 'S-3', product_code: 'SCARF', quantity: 1 }),
            ],
          },
        },
        ctx(SELLER_A, NOW),
      );
      expect(result.data.results.map((r) => r.success)).toEqual([true, false, true]);
      expect(result.data.results[1]!.result_message).toMatch(/2 requested, 1 available/);
      expect(await stockOf(h, SELLER_A, 'SCARF', null)).toBe(0);
    });

    it('allocates from the product itself when no option is given, not from its options', async () => {
      const result = await call(
        h,
        'registerOrders',
        { body: { orders: [orderRow({ mall_order_no: 'P-1', quantity: 1 })] } },
        ctx(SELLER_A, NOW),
      );
      // SHIRT's own stock is 0 although its options have stock.
      expect(result.data.results[0]!.success).toBe(false);
      expect(result.data.results[0]!.result_message).toMatch(/Insufficient stock for product SHIRT/);
    });

    it('writes nothing when storage fails part-way: the accepted rows are one transaction', async () => {
      const store = h.storage.domain;
      let inserts = 0;
      const failing = new Proxy(store, {
        get(target, prop, receiver) {
          if (prop === 'transaction') {
            return (work: (tx: unknown) => Promise<unknown>) =>
              target.transaction((tx) =>
                work(
                  new Proxy(tx, {
                    get(t, p, r) {
                      if (p === 'insertOrder') {
                        return async (...args: unknown[]) => {
                          if (++inserts === 2) throw new Error('disk failure');
                          return (t.insertOrder as (...a: unknown[]) => Promise<boolean>).apply(t, args);
                        };
                      }
                      const value = Reflect.get(t, p, r);
                      return typeof value === 'function' ? value.bind(t) : value;
                    },
                  }),
                ),
              );
          }
          const value = Reflect.get(target, prop, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const domain = domainOnStore(failing);
      await expect(
        domain.handlers.registerOrders(
          {
            params: {},
            query: {},
            body: {
              orders: [
                orderRow({ mall_order_no: 'X-1', option_code: 'WHITE-M' }),
                orderRow({ mall_order_no: 'X-2', option_code: 'WHITE-M' }),
              ],
            },
          },
          ctx(SELLER_A, NOW),
        ),
      ).rejects.toThrow('disk failure');
      expect(await count(h, 'orders')).toBe(0);
      expect(await stockOf(h, SELLER_A, 'SHIRT', 'WHITE-M')).toBe(5);
      // The order-number counter rolled back too: the next order is still the day's first.
      expect(await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'X-3', option_code: 'WHITE-M' }))).toBe(
        'ORD-20261120-0001',
      );
    });
  });

  describe('orders: read, update, ship', () => {
    it('reads an order with the full record, times in Seoul time', async () => {
      const orderNo = await registerOne(
        h,
        SELLER_A,
        orderRow({ mall_order_no: 'R-1', option_code: 'WHITE-M', quantity: 2, memo: 'Leave at the door' }),
      );
      const { data } = await call(h, 'getWmsOrder', { params: { order_no: orderNo } }, ctx(SELLER_A, NOW));
      expect(data).toMatchObject({
        order_no: orderNo,
        mall_order_no: 'R-1',
        product_code: 'SHIRT',
        option_code: 'WHITE-M',
        quantity: 2,
        memo: 'Leave at the door',
        order_status_code: 10,
        invoice_no: null,
        registered_date: '2026-11-20 10:00:00',
        updated_at: '2026-11-20 10:00:00',
      });
      const noOption = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'R-2', product_code: 'SCARF' }));
      const read = await call(h, 'getWmsOrder', { params: { order_no: noOption } }, ctx(SELLER_A, NOW));
      expect(read.data.option_code).toBeNull();
      expect(read.data.memo).toBe('');
      await expectApiError(
        'getWmsOrder',
        h.handlers.getWmsOrder(
          { params: { order_no: 'ORD-20990101-0001' }, query: {}, body: undefined },
          ctx(SELLER_A, NOW),
        ),
        'ORDER_NOT_FOUND',
      );
    });

    it('raises the quantity from stock, lowers it back, and moves updated_at', async () => {
      const orderNo = await registerOne(
        h,
        SELLER_A,
        orderRow({ mall_order_no: 'U-1', option_code: 'WHITE-M', quantity: 1 }),
      );
      const later = '2026-11-20T02:30:00Z';
      const raised = await call(
        h,
        'updateWmsOrder',
        { params: { order_no: orderNo }, body: { quantity: 4 } },
        ctx(SELLER_A, later),
      );
      expect(raised.data.quantity).toBe(4);
      expect(raised.data.updated_at).toBe('2026-11-20 11:30:00');
      expect(raised.data.registered_date).toBe('2026-11-20 10:00:00');
      expect(await stockOf(h, SELLER_A, 'SHIRT', 'WHITE-M')).toBe(1);
      const lowered = await call(
        h,
        'updateWmsOrder',
        { params: { order_no: orderNo }, body: { quantity: 2 } },
        ctx(SELLER_A, later),
      );
      expect(lowered.data.quantity).toBe(2);
      expect(await stockOf(h, SELLER_A, 'SHIRT', 'WHITE-M')).toBe(3);
      const moved = await call(
        h,
        'updateWmsOrder',
        { params: { order_no: orderNo }, body: { receiver_address: '30 Olympic-ro, Songpa-gu, Seoul', memo: '' } },
        ctx(SELLER_A, later),
      );
      expect(moved.data).toMatchObject({
        quantity: 2,
        receiver_address: '30 Olympic-ro, Songpa-gu, Seoul',
        memo: '',
        receiver_name: 'Kim Minji',
      });
      const read = await call(h, 'getWmsOrder', { params: { order_no: orderNo } }, ctx(SELLER_A, later));
      expect(read.data).toEqual(moved.data);
    });

    it('INVENTORY_INSUFFICIENT when a raise exceeds stock, and nothing changes', async () => {
      const orderNo = await registerOne(
        h,
        SELLER_A,
        orderRow({ mall_order_no: 'U-2', option_code: 'WHITE-L', quantity: 1 }),
      );
      const before = await call(h, 'getWmsOrder', { params: { order_no: orderNo } }, ctx(SELLER_A, NOW));
      const err = await expectApiError(
        'updateWmsOrder',
        h.handlers.updateWmsOrder(
          { params: { order_no: orderNo }, query: {}, body: { quantity: 3, memo: 'changed' } },
          ctx(SELLER_A, '2026-11-20T05:00:00Z'),
        ),
        'INVENTORY_INSUFFICIENT',
      );
      expect(err.message).toMatch(/2 more requested, 1 available/);
      const after = await call(h, 'getWmsOrder', { params: { order_no: orderNo } }, ctx(SELLER_A, NOW));
      expect(after.data).toEqual(before.data);
      expect(await stockOf(h, SELLER_A, 'SHIRT', 'WHITE-L')).toBe(1);
    });

    it('a shipped order is immutable: 409 ORDER_ALREADY_SHIPPED, nothing changes', async () => {
      const orderNo = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'SH-1', product_code: 'SCARF' }));
      const shipped = await h.domain.shipOrder(SELLER_A, orderNo, new Date('2026-11-20T03:00:00Z'));
      expect(shipped.order_no).toBe(orderNo);
      expect(shipped.invoice_no).toMatch(/^[0-9]{6,20}$/);
      const before = await call(h, 'getWmsOrder', { params: { order_no: orderNo } }, ctx(SELLER_A, NOW));
      expect(before.data).toMatchObject({
        order_status_code: 30,
        invoice_no: shipped.invoice_no,
        updated_at: '2026-11-20 12:00:00',
      });
      for (const body of [{ quantity: 1 }, { memo: 'too late' }, { receiver_name: 'Someone Else' }]) {
        await expectApiError(
          'updateWmsOrder',
          h.handlers.updateWmsOrder(
            { params: { order_no: orderNo }, query: {}, body },
            ctx(SELLER_A, '2026-11-20T04:00:00Z'),
          ),
          'ORDER_ALREADY_SHIPPED',
        );
      }
      const after = await call(h, 'getWmsOrder', { params: { order_no: orderNo } }, ctx(SELLER_A, NOW));
      expect(after.data).toEqual(before.data);
      // Shipping twice is refused as well, and shipping by order number alone (the operator's CLI) finds the order.
      await expect(h.domain.shipOrder(null, orderNo, new Date(NOW))).rejects.toMatchObject({
        code: 'ORDER_ALREADY_SHIPPED',
      });
      await expect(h.domain.shipOrder(null, 'ORD-20990101-0001', new Date(NOW))).rejects.toMatchObject({
        code: 'ORDER_NOT_FOUND',
      });
      await expect(h.domain.shipOrder(SELLER_B, orderNo, new Date(NOW))).rejects.toMatchObject({
        code: 'ORDER_NOT_FOUND',
      });
    });

    it("the warehouse's own steps go 10 → 20 and 30 → 40 only, each from its one starting status", async () => {
      // The seed's steps (src/domain/seed.ts): no operation of the contract moves an order on its own.
      const lifecycle = orderLifecycle(domainParts(h.storage.domain, { timeZone: TIME_ZONE }, contractModel(spec)));
      const owner = ownerOf(ctx(SELLER_A, NOW));
      const orderNo = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'STEPS', product_code: 'SCARF' }));
      const status = async () =>
        (await call(h, 'getWmsOrder', { params: { order_no: orderNo } }, ctx(SELLER_A, NOW))).data.order_status_code;
      const at = new Date('2026-11-20T02:00:00Z');
      await expect(lifecycle.deliver(owner, orderNo, at)).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
      await lifecycle.prepare(owner, orderNo, at);
      expect(await status()).toBe(20);
      await expect(lifecycle.prepare(owner, orderNo, at)).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
      await expect(lifecycle.deliver(owner, orderNo, at)).rejects.toMatchObject({ code: 'INVALID_PARAMETER' });
      await lifecycle.ship(SELLER_A, orderNo, at);
      await lifecycle.deliver(owner, orderNo, at);
      expect(await status()).toBe(40);
      await expect(lifecycle.prepare(owner, 'ORD-20990101-0001', at)).rejects.toMatchObject({
        code: 'ORDER_NOT_FOUND',
      });
    });

    it('a delivered order (40) is immutable too', async () => {
      const orderNo = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'DL-1', product_code: 'SCARF' }));
      await h.domain.shipOrder(null, orderNo, new Date(NOW));
      await h.sql('UPDATE orders SET order_status_code = 40 WHERE order_no = ?', orderNo);
      await expectApiError(
        'updateWmsOrder',
        h.handlers.updateWmsOrder(
          { params: { order_no: orderNo }, query: {}, body: { memo: 'x' } },
          ctx(SELLER_A, NOW),
        ),
        'ORDER_ALREADY_SHIPPED',
      );
    });

    it('a cancelled order (90) cannot be modified: 400 INVALID_PARAMETER', async () => {
      const orderNo = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'C-1', product_code: 'SCARF' }));
      await h.sql('UPDATE orders SET order_status_code = 90 WHERE order_no = ?', orderNo);
      await expectApiError(
        'updateWmsOrder',
        h.handlers.updateWmsOrder(
          { params: { order_no: orderNo }, query: {}, body: { memo: 'x' } },
          ctx(SELLER_A, NOW),
        ),
        'INVALID_PARAMETER',
      );
      await expect(h.domain.shipOrder(null, orderNo, new Date(NOW))).rejects.toMatchObject({
        code: 'INVALID_PARAMETER',
      });
    });
  });

  describe('order lists', () => {
    /** Registers `n` orders one minute apart from 2026-11-18 10:00 Seoul time. */
    async function many(n: number): Promise<string[]> {
      await product(h, SELLER_A, 'BULK', 1000);
      const out: string[] = [];
      for (let i = 0; i < n; i++) {
        const at = new Date(Date.parse('2026-11-18T01:00:00Z') + i * 60_000).toISOString();
        out.push(await registerOne(h, SELLER_A, orderRow({ mall_order_no: `L-${i}`, product_code: 'BULK' }), at));
      }
      return out;
    }

    it('pages newest first with exact pagination arithmetic', async () => {
      const orderNos = await many(23);
      const newestFirst = [...orderNos].reverse();
      const seen: string[] = [];
      for (const page of [1, 2, 3]) {
        const result = await call(h, 'listWmsOrders', { query: { page, size: 10 } }, ctx(SELLER_A, NOW));
        expect(result.pagination).toEqual({ page, size: 10, total: 23, total_pages: 3, has_next: page < 3 });
        seen.push(...result.data.map((o) => o.order_no));
      }
      expect(seen).toEqual(newestFirst);
      const beyond = await call(h, 'listWmsOrders', { query: { page: 4, size: 10 } }, ctx(SELLER_A, NOW));
      expect(beyond.data).toEqual([]);
      expect(beyond.pagination).toEqual({ page: 4, size: 10, total: 23, total_pages: 3, has_next: false });
      const exact = await call(h, 'listWmsOrders', { query: { page: 1, size: 23 } }, ctx(SELLER_A, NOW));
      expect(exact.pagination).toMatchObject({ total_pages: 1, has_next: false });
      const defaults = await call(h, 'listWmsOrders', {}, ctx(SELLER_A, NOW));
      expect(defaults.pagination).toMatchObject({ page: 1, size: 10 });
      expect(defaults.data).toHaveLength(10);
    });

    it('a page and its total are one snapshot: an order committed between two reads is in both or in neither', async () => {
      await many(3);
      // Another request commits an order right after the list's first statement returns.
      const engine = h.storage.sql;
      let committed = false;
      const meanwhile = async () => {
        if (committed) return;
        committed = true;
        await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'MEANWHILE', product_code: 'BULK' }));
      };
      const interleaved: SqlEngine = Object.assign(Object.create(engine) as SqlEngine, {
        async get<T>(sql: string, params?: readonly Param[]) {
          const row = await engine.get<T>(sql, params);
          await meanwhile();
          return row;
        },
        async all<T>(sql: string, params?: readonly Param[]) {
          const rows = await engine.all<T>(sql, params);
          await meanwhile();
          return rows;
        },
        async page<T>(sql: string, params?: readonly Param[]) {
          const page = await engine.page<T>(sql, params);
          await meanwhile();
          return page;
        },
      });
      const list = await call(
        domainOnStore(new SqlDomainStore(interleaved)),
        'listWmsOrders',
        { query: { page: 1, size: 10 } },
        ctx(SELLER_A, NOW),
      );
      expect(committed).toBe(true);
      expect(list.pagination.total).toBe(list.data.length);
      // The next read sees it.
      expect((await call(h, 'listWmsOrders', {}, ctx(SELLER_A, NOW))).pagination.total).toBe(4);
    });

    it('an empty list has total 0, total_pages 0, has_next false', async () => {
      const result = await call(h, 'listManagerOrders', {}, ctx(SELLER_B, NOW, 'manager'));
      expect(result).toEqual({
        data: [],
        pagination: { page: 1, size: 10, total: 0, total_pages: 0, has_next: false },
      });
    });

    it('updated_after is strictly after, date_from is on or after the Seoul date', async () => {
      const orderNos = await many(3); // 10:00, 10:01, 10:02 on 2026-11-18
      const after = await call(
        h,
        'listWmsOrders',
        { query: { updated_after: '2026-11-18 10:01:00' } },
        ctx(SELLER_A, NOW),
      );
      expect(after.data.map((o) => o.order_no)).toEqual([orderNos[2]]);
      // An update moves an order back into the incremental-sync window.
      await call(
        h,
        'updateWmsOrder',
        { params: { order_no: orderNos[0]! }, body: { memo: 'changed' } },
        ctx(SELLER_A, '2026-11-19T00:00:00Z'),
      );
      const synced = await call(
        h,
        'listWmsOrders',
        { query: { updated_after: '2026-11-18 10:01:00' } },
        ctx(SELLER_A, NOW),
      );
      expect(synced.data.map((o) => o.order_no).sort()).toEqual([orderNos[0], orderNos[2]].sort());

      // 2026-11-19T15:30Z is 2026-11-20 00:30 in Seoul: registered "on 2026-11-20" although it is the 19th in UTC.
      const late = await registerOne(
        h,
        SELLER_A,
        orderRow({ mall_order_no: 'L-late', product_code: 'BULK' }),
        '2026-11-19T15:30:00Z',
      );
      const fromDay = await call(h, 'listWmsOrders', { query: { date_from: '2026-11-20' } }, ctx(SELLER_A, NOW));
      expect(fromDay.data.map((o) => o.order_no)).toEqual([late]);
      const fromEarlier = await call(
        h,
        'listManagerOrders',
        { query: { date_from: '2026-11-18' } },
        ctx(SELLER_A, NOW, 'manager'),
      );
      expect(fromEarlier.pagination.total).toBe(4);
    });

    it('filters by order_status_code', async () => {
      const orderNos = await many(3);
      await h.domain.shipOrder(SELLER_A, orderNos[1]!, new Date(NOW));
      const shipped = await call(h, 'listWmsOrders', { query: { order_status_code: 30 } }, ctx(SELLER_A, NOW));
      expect(shipped.data.map((o) => o.order_no)).toEqual([orderNos[1]]);
      expect(shipped.data[0]!.invoice_no).toMatch(/^[0-9]+$/);
      const registered = await call(h, 'listWmsOrders', { query: { order_status_code: 10 } }, ctx(SELLER_A, NOW));
      expect(registered.pagination.total).toBe(2);
    });

    it('rejects a time or date that matches the pattern but does not exist', async () => {
      await expectApiError(
        'listWmsOrders',
        h.handlers.listWmsOrders(
          { params: {}, query: { page: 1, size: 10, updated_after: '2026-02-30 10:00:00' }, body: undefined },
          ctx(SELLER_A, NOW),
        ),
        'INVALID_PARAMETER',
      );
      await expectApiError(
        'listManagerOrders',
        h.handlers.listManagerOrders(
          { params: {}, query: { page: 1, size: 10, date_from: '2026-04-31' }, body: undefined },
          ctx(SELLER_A, NOW, 'manager'),
        ),
        'INVALID_PARAMETER',
      );
    });

    it('WMS and manager see the same orders of the seller', async () => {
      const orderNos = await many(2);
      const wms = await call(h, 'listWmsOrders', {}, ctx(SELLER_A, NOW));
      const manager = await call(h, 'listManagerOrders', {}, ctx(SELLER_A, NOW, 'manager'));
      expect(manager.data).toEqual(
        wms.data.map((o) => ({
          order_no: o.order_no,
          mall_product_name: o.mall_product_name,
          order_status_code: o.order_status_code,
          registered_date: o.registered_date,
        })),
      );
      expect(manager.pagination).toEqual(wms.pagination);
      const one = await call(
        h,
        'getManagerOrder',
        { params: { order_no: orderNos[0]! } },
        ctx(SELLER_A, NOW, 'manager'),
      );
      const same = await call(h, 'getWmsOrder', { params: { order_no: orderNos[0]! } }, ctx(SELLER_A, NOW));
      expect(one.data).toEqual(same.data);
    });
  });

  describe('seller isolation (DECISIONS G9)', () => {
    it("another seller's order is 404 ORDER_NOT_FOUND on every area, never 403, and never listed", async () => {
      const orderNo = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'ISO-1', product_code: 'SCARF' }));
      const asB = ctx(SELLER_B, NOW);
      await expectApiError(
        'getWmsOrder',
        h.handlers.getWmsOrder({ params: { order_no: orderNo }, query: {}, body: undefined }, asB),
        'ORDER_NOT_FOUND',
      );
      await expectApiError(
        'getManagerOrder',
        h.handlers.getManagerOrder(
          { params: { order_no: orderNo }, query: {}, body: undefined },
          ctx(SELLER_B, NOW, 'manager'),
        ),
        'ORDER_NOT_FOUND',
      );
      await expectApiError(
        'updateWmsOrder',
        h.handlers.updateWmsOrder({ params: { order_no: orderNo }, query: {}, body: { memo: 'mine now' } }, asB),
        'ORDER_NOT_FOUND',
      );
      expect((await call(h, 'listWmsOrders', {}, asB)).data).toEqual([]);
      expect((await call(h, 'listManagerOrders', {}, ctx(SELLER_B, NOW, 'manager'))).data).toEqual([]);
    });

    it("mall order numbers and product codes are per seller: B may reuse A's", async () => {
      await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'SAME-1', product_code: 'SCARF' }));
      // B has no product SCARF: the row fails on the product, not as a duplicate of A's mall order number.
      const missing = await call(
        h,
        'registerOrders',
        { body: { orders: [orderRow({ mall_order_no: 'SAME-1', product_code: 'SCARF' })] } },
        ctx(SELLER_B, NOW),
      );
      expect(missing.data.results[0]!.result_message).toBe('Product SCARF was not found.');
      await product(h, SELLER_B, 'SCARF', 1);
      await registerOne(h, SELLER_B, orderRow({ mall_order_no: 'SAME-1', product_code: 'SCARF' }));
      expect(await stockOf(h, SELLER_A, 'SCARF', null)).toBe(2);
      expect(await stockOf(h, SELLER_B, 'SCARF', null)).toBe(0);
    });
  });

  describe('the open sets of the contract (DECISIONS G24)', () => {
    it('the domain refuses to start when the contract knows a status code it gives no meaning, or not the draft status it writes', async () => {
      const edited = structuredClone(spec);
      const statuses = edited.components!.schemas!.OrderStatusCode as Record<string, unknown[]>;
      statuses['x-known-values'] = [...statuses['x-known-values']!, 50];
      await expect(freshDomain(engine, { spec: edited })).rejects.toThrow(/OrderStatusCode/);
      const drafts = structuredClone(spec);
      (drafts.components!.schemas!.DraftOrder as { properties: Record<string, Record<string, unknown>> }).properties
        .status!['x-known-values'] = ['pending'];
      await expect(freshDomain(engine, { spec: drafts })).rejects.toThrow(/DraftOrder.status/);
      await expect(freshDomain(engine, { spec })).resolves.toBeDefined();
    });

    it('which codes mean shipped is read from the contract (x-shipped-values): a contract that adds 20 makes a preparing order unmodifiable', async () => {
      // An order the warehouse is preparing (20), then a change to it, on a domain of the given contract.
      const updatePreparing = async (harness: Harness, contract: typeof spec, mallOrderNo: string) => {
        const orderNo = await registerOne(
          harness,
          SELLER_A,
          orderRow({ mall_order_no: mallOrderNo, product_code: 'SCARF' }),
        );
        const lifecycle = orderLifecycle(
          domainParts(harness.storage.domain, { timeZone: TIME_ZONE }, contractModel(contract)),
        );
        await lifecycle.prepare(ownerOf(ctx(SELLER_A, NOW)), orderNo, new Date(NOW));
        const body = { memo: 'gift wrap' };
        return harness.handlers.updateWmsOrder({ params: { order_no: orderNo }, query: {}, body }, ctx(SELLER_A, NOW));
      };
      await expect(updatePreparing(h, spec, 'PREP-1')).resolves.toMatchObject({ data: { order_status_code: 20 } });
      const edited = structuredClone(spec);
      (edited.components!.schemas!.OrderStatusCode as Record<string, unknown>)['x-shipped-values'] = [20, 30, 40];
      const following = await freshDomain(engine, { spec: edited });
      await product(following, SELLER_A, 'SCARF', 3);
      await expectApiError('updateWmsOrder', updatePreparing(following, edited, 'PREP-2'), 'ORDER_ALREADY_SHIPPED');
    });

    it('refuses to start when a status this server ships or delivers with is not a shipped one in the contract', async () => {
      const edited = structuredClone(spec);
      (edited.components!.schemas!.OrderStatusCode as Record<string, unknown>)['x-shipped-values'] = [30];
      await expect(freshDomain(engine, { spec: edited })).rejects.toThrow(/x-shipped-values/);
    });
  });
});
