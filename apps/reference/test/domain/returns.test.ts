import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
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

// Asia/Seoul is UTC+9 all year: 18:00 in Seoul is 09:00 UTC.
const MORNING = '2026-11-20T01:50:00Z'; // 10:50 Seoul
const BEFORE_DEADLINE = '2026-11-20T08:59:59Z'; // 17:59:59 Seoul
const AT_DEADLINE = '2026-11-20T09:00:00Z'; // 18:00:00 Seoul
const NEXT_DAY = '2026-11-21T00:30:00Z';

// The same suite on each storage engine (test/support/engines.ts).
describe.each(ENGINES)('on %s', (engine) => {
  afterEach(closeDomains);
  let h: Harness;
  let orderNo: string;
  beforeEach(async () => {
    h = await freshDomain(engine);
    await product(h, SELLER_A, 'SCARF', 5, [], '2026-11-18T00:00:00Z');
    orderNo = await registerOne(
      h,
      SELLER_A,
      orderRow({ mall_order_no: 'RET-ORDER', product_code: 'SCARF' }),
      '2026-11-18T00:00:00Z',
    );
    await h.domain.shipOrder(SELLER_A, orderNo, new Date('2026-11-19T00:00:00Z'));
  });

  async function register(now = MORNING, accountId = SELLER_A) {
    return call(h, 'registerReturn', { body: { order_no: orderNo, reason: 'Wrong size' } }, ctx(accountId, now));
  }

  function cancel(returnNo: string, now: string, accountId = SELLER_A) {
    return h.handlers.cancelReturn(
      { params: { return_no: returnNo }, query: {}, body: undefined },
      ctx(accountId, now),
    );
  }

  describe('returns', () => {
    it('registers a return withdrawable until 18:00:00 Seoul time on the registration day', async () => {
      const { data } = await register();
      expect(data).toEqual({
        return_no: 'RET-20261120-0001',
        order_no: orderNo,
        reason: 'Wrong size',
        status: 'requested',
        registered_at: '2026-11-20 10:50:00',
        cancellable_until: '2026-11-20 18:00:00',
        withdrawn_at: null,
      });
      const read = await call(h, 'getReturn', { params: { return_no: data.return_no } }, ctx(SELLER_A, MORNING));
      expect(read.data).toEqual(data);
    });

    it('the registration day is the Seoul day: 23:30 UTC is already the next day', async () => {
      const { data } = await register('2026-11-20T23:30:00Z'); // 2026-11-21 08:30 Seoul
      expect(data.cancellable_until).toBe('2026-11-21 18:00:00');
    });

    it('withdraws at 17:59:59 Seoul time', async () => {
      const { data } = await register();
      const withdrawn = await cancel(data.return_no, BEFORE_DEADLINE);
      expect(withdrawn.data).toMatchObject({
        status: 'withdrawn',
        withdrawn_at: '2026-11-20 17:59:59',
        cancellable_until: '2026-11-20 18:00:00',
      });
      const read = await call(h, 'getReturn', { params: { return_no: data.return_no } }, ctx(SELLER_A, AT_DEADLINE));
      expect(read.data).toEqual(withdrawn.data);
    });

    it('at 18:00:00 Seoul time the window has passed: 400 RETURN_CANCEL_EXPIRED and nothing changes', async () => {
      const { data } = await register();
      for (const late of [AT_DEADLINE, NEXT_DAY]) {
        const err = await expectApiError('cancelReturn', cancel(data.return_no, late), 'RETURN_CANCEL_EXPIRED');
        expect(err.message).toMatch(/2026-11-20 18:00:00/);
      }
      const read = await call(h, 'getReturn', { params: { return_no: data.return_no } }, ctx(SELLER_A, NEXT_DAY));
      expect(read.data).toEqual(data);
    });

    it('the window ends at the first 18:00:00 after the registration (DECISIONS G13)', async () => {
      // 3.0 ended it at 18:00 of the registration day, which left a return registered in the evening no window.
      const cases: Array<[registeredUtc: string, registered: string, until: string]> = [
        ['2026-11-20T08:59:59Z', '2026-11-20 17:59:59', '2026-11-20 18:00:00'],
        ['2026-11-20T09:00:00Z', '2026-11-20 18:00:00', '2026-11-21 18:00:00'],
        ['2026-11-20T10:00:00Z', '2026-11-20 19:00:00', '2026-11-21 18:00:00'],
        ['2026-11-20T14:59:59Z', '2026-11-20 23:59:59', '2026-11-21 18:00:00'],
        ['2026-11-20T15:00:00Z', '2026-11-21 00:00:00', '2026-11-21 18:00:00'],
      ];
      for (const [registeredUtc, registered, until] of cases) {
        const { data } = await register(registeredUtc);
        expect([data.registered_at, data.cancellable_until]).toEqual([registered, until]);
        await cancel(data.return_no, registeredUtc); // withdrawn at once, so the next case may register a return
      }
    });

    it('a return registered at 19:00 can be withdrawn the next day until 17:59:59, not at 18:00:00', async () => {
      const { data } = await register('2026-11-20T10:00:00Z'); // 19:00 Seoul
      await expectApiError('cancelReturn', cancel(data.return_no, '2026-11-21T09:00:00Z'), 'RETURN_CANCEL_EXPIRED');
      // The refused attempt changed nothing: a second earlier in the (fake) day the window is still open.
      const withdrawn = await cancel(data.return_no, '2026-11-21T08:59:59Z');
      expect(withdrawn.data).toMatchObject({
        status: 'withdrawn',
        withdrawn_at: '2026-11-21 17:59:59',
        cancellable_until: '2026-11-21 18:00:00',
      });
    });

    it('withdrawing a withdrawn return succeeds and changes nothing, even after the window', async () => {
      const { data } = await register();
      const first = await cancel(data.return_no, BEFORE_DEADLINE);
      const again = await call(h, 'cancelReturn', { params: { return_no: data.return_no } }, ctx(SELLER_A, NEXT_DAY));
      expect(again.data).toEqual(first.data);
      expect(again.data.withdrawn_at).toBe('2026-11-20 17:59:59');
    });

    it('one open return per order: a second is 409 DUPLICATE; after a withdrawal a new one is allowed', async () => {
      const { data } = await register();
      await expectApiError(
        'registerReturn',
        h.handlers.registerReturn(
          { params: {}, query: {}, body: { order_no: orderNo, reason: 'Again' } },
          ctx(SELLER_A, MORNING),
        ),
        'DUPLICATE',
      );
      await cancel(data.return_no, BEFORE_DEADLINE);
      const second = await register(BEFORE_DEADLINE);
      expect(second.data.return_no).toBe('RET-20261120-0002');
      expect(second.data.status).toBe('requested');
    });

    it('unknown or foreign order is 404 ORDER_NOT_FOUND; unknown or foreign return is 404 NOT_FOUND', async () => {
      await expectApiError(
        'registerReturn',
        h.handlers.registerReturn(
          { params: {}, query: {}, body: { order_no: 'ORD-19990101-0001', reason: 'x' } },
          ctx(SELLER_A, MORNING),
        ),
        'ORDER_NOT_FOUND',
      );
      await expectApiError(
        'registerReturn',
        h.handlers.registerReturn(
          { params: {}, query: {}, body: { order_no: orderNo, reason: 'x' } },
          ctx(SELLER_B, MORNING),
        ),
        'ORDER_NOT_FOUND',
      );
      const { data } = await register();
      await expectApiError(
        'getReturn',
        h.handlers.getReturn(
          { params: { return_no: data.return_no }, query: {}, body: undefined },
          ctx(SELLER_B, MORNING),
        ),
        'NOT_FOUND',
      );
      await expectApiError(
        'getReturn',
        h.handlers.getReturn(
          { params: { return_no: 'RET-19990101-0001' }, query: {}, body: undefined },
          ctx(SELLER_A, MORNING),
        ),
        'NOT_FOUND',
      );
      await expectApiError('cancelReturn', cancel(data.return_no, MORNING, SELLER_B), 'NOT_FOUND');
      // B's attempt changed nothing.
      expect(
        (await call(h, 'getReturn', { params: { return_no: data.return_no } }, ctx(SELLER_A, MORNING))).data.status,
      ).toBe('requested');
    });
  });
});
