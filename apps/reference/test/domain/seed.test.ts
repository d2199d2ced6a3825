import { afterEach, describe, expect, it } from 'vitest';
import {
  SELLER_A,
  SELLER_B,
  call,
  closeDomains,
  ctx,
  ENGINES,
  type EngineName,
  expectApiError,
  freshDomain,
  type Harness,
  operation,
} from './support.js';

// Seeded at 10:00 Seoul time, so today's return is still withdrawable.
const SEEDED_AT = '2026-11-20T01:00:00Z';
const LATER = '2026-11-20T02:00:00Z';

async function seeded(
  engine: EngineName,
): Promise<{ h: Harness; summary: Awaited<ReturnType<Harness['domain']['seedDemo']>> }> {
  const h = await freshDomain(engine);
  const summary = await h.domain.seedDemo({
    owners: [
      { accountId: SELLER_A, environment: 'test' },
      { accountId: SELLER_B, environment: 'test' },
    ],
    now: new Date(SEEDED_AT),
  });
  return { h, summary };
}

/** Everything the seller can read, through the handlers. */
async function everything(h: Harness, accountId: string) {
  const c = ctx(accountId, LATER);
  return {
    orders: (await call(h, 'listWmsOrders', { query: { size: 100 } }, c)).data,
    products: (await call(h, 'listWmsProducts', { query: { size: 100 } }, c)).data,
    stock: (await call(h, 'listInventory', { query: { size: 100 } }, c)).data,
    suppliers: (await call(h, 'listSuppliers', { query: { size: 100 } }, c)).data,
    deposits: (
      await call(
        h,
        'listDeposits',
        { query: { date_from: '2026-01-01', date_to: '2026-12-31', size: 100 } },
        ctx(accountId, LATER, null),
      )
    ).data,
  };
}

// The same suite on each storage engine (test/support/engines.ts).
describe.each(ENGINES)('on %s', (engine) => {
  afterEach(closeDomains);
  describe('seedDemo', () => {
    it('is deterministic for a given clock', async () => {
      const first = await seeded(engine);
      const second = await seeded(engine);
      expect(second.summary).toEqual(first.summary);
      expect(await everything(second.h, SELLER_A)).toEqual(await everything(first.h, SELLER_A));
      expect(await everything(second.h, SELLER_B)).toEqual(await everything(first.h, SELLER_B));
    });

    it('gives the first account orders in every status, shipped ones with invoice numbers and videos', async () => {
      const { h, summary } = await seeded(engine);
      const { orders } = await everything(h, SELLER_A);
      expect(orders.length).toBeGreaterThan(10); // more than one page at the default size
      expect(new Set(orders.map((o) => o.order_status_code))).toEqual(new Set([10, 20, 30, 40, 90]));
      const shipped = orders.filter((o) => o.order_status_code === 30 || o.order_status_code === 40);
      expect(shipped.length).toBeGreaterThan(0);
      for (const o of orders) expect(o.invoice_no === null).toBe(!shipped.includes(o));
      expect(shipped.map((o) => o.invoice_no).sort()).toEqual([...summary.accounts[0]!.invoice_nos].sort());
      for (const o of shipped) {
        const videos = await call(
          h,
          'listInvoiceVideos',
          { params: { invoice_no: o.invoice_no! } },
          ctx(SELLER_A, LATER, 'cam'),
        );
        expect(videos.data.length).toBeGreaterThan(0);
      }
      // Orders took their stock: the seeded stock equals the initial stock minus the live (not cancelled) orders.
      const { stock } = await everything(h, SELLER_A);
      expect(stock.find((s) => s.product_code === 'SCARF-WOOL-02')!.quantity).toBe(40 - 5);
      expect(stock.find((s) => s.product_code === 'BOWL-CERAMIC-11')!.quantity).toBe(3);
      expect(stock.find((s) => s.option_code === 'WHITE-M')!.quantity).toBe(60 - 4);
    });

    it('has a return registered today that can be withdrawn and one from yesterday that cannot', async () => {
      const { h, summary } = await seeded(engine);
      const [yesterday, today] = summary.accounts[0]!.return_nos;
      const old = await call(h, 'getReturn', { params: { return_no: yesterday! } }, ctx(SELLER_A, LATER));
      expect(old.data).toMatchObject({
        status: 'requested',
        registered_at: '2026-11-19 11:00:00',
        cancellable_until: '2026-11-19 18:00:00',
      });
      await expectApiError(
        'cancelReturn',
        h.handlers.cancelReturn(
          { params: { return_no: yesterday! }, query: {}, body: undefined },
          ctx(SELLER_A, LATER),
        ),
        'RETURN_CANCEL_EXPIRED',
      );
      const fresh = await call(h, 'getReturn', { params: { return_no: today! } }, ctx(SELLER_A, LATER));
      expect(fresh.data).toMatchObject({
        status: 'requested',
        registered_at: '2026-11-20 10:00:00',
        cancellable_until: '2026-11-20 18:00:00',
      });
      const withdrawn = await call(h, 'cancelReturn', { params: { return_no: today! } }, ctx(SELLER_A, LATER));
      expect(withdrawn.data.status).toBe('withdrawn');
    });

    it('has drafts, suppliers, products with options, and weekly deposits over the last weeks', async () => {
      const { h, summary } = await seeded(engine);
      const a = await everything(h, SELLER_A);
      expect(a.suppliers.length).toBeGreaterThanOrEqual(2);
      expect(a.products.some((p) => p.option_count > 0)).toBe(true);
      expect(a.deposits.length).toBeGreaterThanOrEqual(4);
      expect(a.deposits.every((d) => d.deposited_at < '2026-11-20 10:00:00')).toBe(true);
      expect(summary.accounts[0]!.draft_ids.length).toBeGreaterThan(0);
      for (const draftId of summary.accounts[0]!.draft_ids) {
        const draft = await call(h, 'getDraftOrder', { params: { draft_id: draftId } }, ctx(SELLER_A, LATER));
        expect(draft.data.status).toBe('open');
      }
    });

    it('keeps the sellers apart: the second, small account sees none of the first one’s data', async () => {
      const { h, summary } = await seeded(engine);
      const a = await everything(h, SELLER_A);
      const b = await everything(h, SELLER_B);
      expect(b.orders.length).toBeGreaterThan(0);
      expect(b.orders.length).toBeLessThan(a.orders.length);
      const aOrders = new Set(a.orders.map((o) => o.order_no));
      expect(b.orders.some((o) => aOrders.has(o.order_no))).toBe(false);
      // Both sellers have a product SHIRT-LINEN-01, each its own.
      const aShirt = a.products.find((p) => p.product_code === 'SHIRT-LINEN-01')!;
      const bShirt = b.products.find((p) => p.product_code === 'SHIRT-LINEN-01')!;
      expect(bShirt.product_name).not.toBe(aShirt.product_name);
      for (const orderNo of summary.accounts[0]!.order_nos.slice(0, 3)) {
        await expectApiError(
          'getManagerOrder',
          h.handlers.getManagerOrder(
            { params: { order_no: orderNo }, query: {}, body: undefined },
            ctx(SELLER_B, LATER, 'manager'),
          ),
          'ORDER_NOT_FOUND',
        );
      }
      for (const invoiceNo of summary.accounts[0]!.invoice_nos) {
        await expectApiError(
          'listInvoiceVideos',
          h.handlers.listInvoiceVideos(
            { params: { invoice_no: invoiceNo }, query: {}, body: undefined },
            ctx(SELLER_B, LATER, 'cam'),
          ),
          'CAM_INVOICE_NOT_FOUND',
        );
      }
    });

    it('refuses to seed an account that already has data, writing nothing', async () => {
      const { h } = await seeded(engine);
      const before = await everything(h, SELLER_A);
      await expect(
        h.domain.seedDemo({
          owners: [
            { accountId: 'acc_new', environment: 'test' },
            { accountId: SELLER_A, environment: 'test' },
          ],
          now: new Date(SEEDED_AT),
        }),
      ).rejects.toThrow(/already has test products/);
      expect(await everything(h, SELLER_A)).toEqual(before);
      expect((await call(h, 'listWmsProducts', {}, ctx('acc_new', LATER))).data).toEqual([]);
    });
  });

  describe('demo data and the contract examples', () => {
    /** The example request body and the documented outcome (the 200 example `partial_failure`) of a bulk operation. */
    function example(operationId: string, requestName: string) {
      const op = operation(operationId);
      const request = op.requestBody!.examples[requestName]!.value;
      const response = op.responses['200']!.examples.partial_failure!.value as { data: Record<string, unknown> };
      return { request, documented: response.data };
    }

    /** The rows without the fields the service assigns anew on every run. */
    const comparable = (rows: unknown) =>
      (rows as Array<Record<string, unknown>>).map(({ order_no: _o, draft_id: _d, created_at: _c, ...rest }) => rest);

    it('each bulk example, sent to the demo data, gets the row outcomes its documented response shows', async () => {
      const { h } = await seeded(engine);
      const c = ctx(SELLER_A, LATER);
      for (const [operationId, requestName, rowsField] of [
        ['registerOrders', 'two_orders', 'results'],
        ['registerDraftOrders', 'mixed_rows', 'drafts'],
        ['addProductOptions', 'two_options', 'options'],
      ] as const) {
        const { request, documented } = example(operationId, requestName);
        const params = (operationId === 'addProductOptions' ? { product_code: 'SHIRT-LINEN-01' } : {}) as never;
        const result = (await call(h, operationId, { params, body: request as never }, c)) as {
          data: Record<string, unknown>;
        };
        const { [rowsField]: rows, ...counts } = result.data;
        const { [rowsField]: documentedRows, ...documentedCounts } = documented;
        expect(counts, operationId).toEqual(documentedCounts);
        expect(comparable(rows), operationId).toEqual(comparable(documentedRows));
      }
    });

    it('the createProduct example creates its product on the demo data', async () => {
      const { h } = await seeded(engine);
      const op = operation('createProduct');
      const body = op.requestBody!.examples.new_product!.value as { product_code: string };
      const created = await call(h, 'createProduct', { body: body as never }, ctx(SELLER_A, LATER));
      const {
        created_at: _c,
        updated_at: _u,
        ...shown
      } = (op.responses['200']!.examples.product_created!.value as { data: Record<string, unknown> }).data;
      expect(created.data).toMatchObject(shown);
    });
  });
});
