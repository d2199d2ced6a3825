import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  NOW,
  SELLER_A,
  SELLER_B,
  call,
  ctx,
  expectApiError,
  freshDomain,
  type Harness,
  orderRow,
  product,
  registerOne,
  closeDomains,
  ENGINES,
} from './support.js';

// The same suite on each storage engine (test/support/engines.ts).
describe.each(ENGINES)('on %s', (engine) => {
  afterEach(closeDomains);
  let h: Harness;
  beforeEach(async () => {
    h = await freshDomain(engine);
  });

  /** Writes deposits straight into the store: no operation creates them. */
  async function deposit(accountId: string, id: string, depositedAtUtc: string, amount = 1000): Promise<void> {
    await h.sql(
      "INSERT INTO deposits (account_id, environment, deposit_id, amount, depositor_name, deposited_at) VALUES (?, 'test', ?, ?, ?, ?)",
      accountId,
      id,
      amount,
      'Commerce Settlement',
      Date.parse(depositedAtUtc) / 1000,
    );
  }

  const pay = (accountId: string) => ctx(accountId, NOW, null);

  describe('listDeposits', () => {
    beforeEach(async () => {
      await deposit(SELLER_A, 'DEP-BEFORE', '2026-11-12T14:59:59Z'); // 2026-11-12 23:59:59 Seoul
      await deposit(SELLER_A, 'DEP-FIRST-DAY', '2026-11-12T15:00:00Z'); // 2026-11-13 00:00:00 Seoul
      await deposit(SELLER_A, 'DEP-MIDDLE', '2026-11-15T21:00:00Z'); // 2026-11-16 06:00 Seoul
      await deposit(SELLER_A, 'DEP-LAST-DAY', '2026-11-20T14:59:59Z'); // 2026-11-20 23:59:59 Seoul
      await deposit(SELLER_A, 'DEP-AFTER', '2026-11-20T15:00:00Z'); // 2026-11-21 00:00 Seoul
      await deposit(SELLER_B, 'DEP-OF-B', '2026-11-16T00:00:00Z');
    });

    it('date_from..date_to are whole Seoul days, inclusive; newest first', async () => {
      const { data, pagination } = await call(
        h,
        'listDeposits',
        { query: { date_from: '2026-11-13', date_to: '2026-11-20' } },
        pay(SELLER_A),
      );
      expect(data.map((d) => d.deposit_id)).toEqual(['DEP-LAST-DAY', 'DEP-MIDDLE', 'DEP-FIRST-DAY']);
      expect(data[0]).toEqual({
        deposit_id: 'DEP-LAST-DAY',
        amount: 1000,
        depositor_name: 'Commerce Settlement',
        deposited_at: '2026-11-20 23:59:59',
      });
      expect(pagination).toEqual({ page: 1, size: 10, total: 3, total_pages: 1, has_next: false });
      const oneDay = await call(
        h,
        'listDeposits',
        { query: { date_from: '2026-11-16', date_to: '2026-11-16' } },
        pay(SELLER_A),
      );
      expect(oneDay.data.map((d) => d.deposit_id)).toEqual(['DEP-MIDDLE']);
      const paged = await call(
        h,
        'listDeposits',
        { query: { date_from: '2026-11-01', date_to: '2026-11-30', page: 2, size: 2 } },
        pay(SELLER_A),
      );
      expect(paged.data.map((d) => d.deposit_id)).toEqual(['DEP-MIDDLE', 'DEP-FIRST-DAY']);
      expect(paged.pagination).toEqual({ page: 2, size: 2, total: 5, total_pages: 3, has_next: true });
    });

    it('no match is data [] with total 0, never 404', async () => {
      const none = await call(
        h,
        'listDeposits',
        { query: { date_from: '2025-01-01', date_to: '2025-01-31' } },
        pay(SELLER_A),
      );
      expect(none).toEqual({ data: [], pagination: { page: 1, size: 10, total: 0, total_pages: 0, has_next: false } });
      const stranger = await call(
        h,
        'listDeposits',
        { query: { date_from: '2026-11-01', date_to: '2026-11-30' } },
        pay('acc_nobody'),
      );
      expect(stranger.data).toEqual([]);
    });

    it('the widest period the Date pattern allows, 0000-02-29 to 9999-12-31, holds every deposit', async () => {
      // Year 0 is a leap year, and 9999-12-31 has a last day although no date names the day after it.
      const all = await call(
        h,
        'listDeposits',
        { query: { date_from: '0000-02-29', date_to: '9999-12-31' } },
        pay(SELLER_A),
      );
      expect(all.data.map((d) => d.deposit_id)).toEqual([
        'DEP-AFTER',
        'DEP-LAST-DAY',
        'DEP-MIDDLE',
        'DEP-FIRST-DAY',
        'DEP-BEFORE',
      ]);
      const early = await call(
        h,
        'listDeposits',
        { query: { date_from: '0000-02-29', date_to: '0099-12-31' } },
        pay(SELLER_A),
      );
      expect(early.data).toEqual([]);
    });

    it('a seller sees only its own deposits', async () => {
      const b = await call(
        h,
        'listDeposits',
        { query: { date_from: '2026-11-01', date_to: '2026-11-30' } },
        pay(SELLER_B),
      );
      expect(b.data.map((d) => d.deposit_id)).toEqual(['DEP-OF-B']);
    });

    it('date_to before date_from is 400 INVALID_PARAMETER; a date that does not exist too', async () => {
      const list = (date_from: string, date_to: string) =>
        h.handlers.listDeposits(
          { params: {}, query: { date_from, date_to, page: 1, size: 10 }, body: undefined },
          pay(SELLER_A),
        );
      await expectApiError('listDeposits', list('2026-11-20', '2026-11-19'), 'INVALID_PARAMETER');
      await expectApiError('listDeposits', list('2026-02-30', '2026-03-01'), 'INVALID_PARAMETER');
    });
  });

  describe('listInvoiceVideos', () => {
    it('lists the packing video recorded when the order shipped, oldest first; foreign or unknown invoices are 404 CAM_INVOICE_NOT_FOUND', async () => {
      await product(h, SELLER_A, 'SCARF', 5);
      const orderNo = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'CAM-1', product_code: 'SCARF' }));
      const shippedAt = new Date('2026-11-20T03:00:00Z'); // 12:00 Seoul
      const { invoice_no } = await h.domain.shipOrder(SELLER_A, orderNo, shippedAt);
      const cam = ctx(SELLER_A, '2026-11-20T04:00:00Z', 'cam');
      const { data } = await call(h, 'listInvoiceVideos', { params: { invoice_no } }, cam);
      expect(data).toHaveLength(1);
      const video = data[0]!;
      expect(video.invoice_no).toBe(invoice_no);
      expect(video.recorded_at <= '2026-11-20 12:00:00').toBe(true);
      expect(video.recorded_at.startsWith('2026-11-20 11:5')).toBe(true);
      const url = new URL(video.video_url);
      // The link is valid for one hour from the request.
      expect(Number(url.searchParams.get('expires'))).toBe(Date.parse('2026-11-20T05:00:00Z') / 1000);
      expect(url.pathname.endsWith(video.video_id)).toBe(true);

      const lookup = (invoiceNo: string, accountId: string) =>
        h.handlers.listInvoiceVideos(
          { params: { invoice_no: invoiceNo }, query: {}, body: undefined },
          ctx(accountId, NOW, 'cam'),
        );
      await expectApiError('listInvoiceVideos', lookup(invoice_no, SELLER_B), 'CAM_INVOICE_NOT_FOUND');
      await expectApiError('listInvoiceVideos', lookup('999999999999', SELLER_A), 'CAM_INVOICE_NOT_FOUND');
    });

    it('several videos of one invoice come oldest first', async () => {
      await product(h, SELLER_A, 'SCARF', 5);
      const orderNo = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'CAM-2', product_code: 'SCARF' }));
      const { invoice_no } = await h.domain.shipOrder(SELLER_A, orderNo, new Date('2026-11-20T03:00:00Z'));
      // A second, earlier recording (the loading dock camera), written straight into the store.
      await h.sql(
        "INSERT INTO videos (account_id, environment, video_id, invoice_no, recorded_at, duration_seconds) VALUES (?, 'test', ?, ?, ?, ?)",
        SELLER_A,
        'VID-DOCK-1',
        invoice_no,
        Date.parse('2026-11-20T02:00:00Z') / 1000,
        41,
      );
      const { data } = await call(h, 'listInvoiceVideos', { params: { invoice_no } }, ctx(SELLER_A, NOW, 'cam'));
      expect(data.map((v) => v.video_id)[0]).toBe('VID-DOCK-1');
      expect(data).toHaveLength(2);
    });
  });
});
