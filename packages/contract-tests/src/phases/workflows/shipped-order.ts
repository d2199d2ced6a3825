// A shipped order (found by its status) cannot be modified: the change is refused and the order reads the same.
// Its invoice number lists the parcel's videos in the camera area, or is the documented not-found: the one record
// the kit can read that operation's success for, since no operation of the contract records a video.
import { isDeepStrictEqual } from 'node:util';
import { dataOf, type CaseDef, type RunEnv } from '../../run/case.js';
import { draw } from '../../contract/generate.js';
import { invoiceVideos, jwtRead, noShippedOrder, shippedOrder } from '../shared/shipped.js';

export function shippedOrderCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  if (contract.hasOperations('listWmsOrders', 'updateWmsOrder', 'getWmsOrder')) {
    cases.push({
      id: 'workflows/shipped_order_unmodifiable',
      phase: 'workflows',
      title:
        'A shipped order (found by order_status_code) cannot be modified: 409 ORDER_ALREADY_SHIPPED, nothing changed',
      operations: ['updateWmsOrder', 'listWmsOrders', 'getWmsOrder'],
      writes: true,
      reaches: ['ORDER_ALREADY_SHIPPED'],
      run: async (t) => {
        const update = t.op('updateWmsOrder');
        // The order read before and after on an area the run's JWT reads, where one does: no quota spent.
        const get = jwtRead(t, t.op('getWmsOrder')) ?? t.op('getWmsOrder');
        const order = await shippedOrder(t);
        if (!order) return t.env.shared.get('shipped_order') ? t.skip(noShippedOrder(t)) : undefined;
        const orderNo = String(order.order_no);
        const before = await t.call(get, { path: { order_no: orderNo } });
        if (!t.expect(before, get, { status: contract.successStatus(get) })) return;
        const change = draw(t.env.generator.valid(update.requestBody!.schema!), t.env.random);
        const attempt = await t.call(update, { path: { order_no: orderNo }, body: change });
        t.expect(attempt, update, {
          status: contract.statusOf('ORDER_ALREADY_SHIPPED'),
          code: 'ORDER_ALREADY_SHIPPED',
          check: 'shipped_order_unmodifiable',
          why: `order ${orderNo} has shipped`,
        });
        const after = await t.call(get, { path: { order_no: orderNo } });
        if (t.expect(after, get, { status: contract.successStatus(get) })) {
          t.assert(
            isDeepStrictEqual(dataOf(after), dataOf(before)),
            'shipped_order_unmodifiable',
            'the shipped order unchanged',
            JSON.stringify(dataOf(after)),
            after,
            get,
          );
        }
      },
    });
  }

  if (contract.hasOperations('listWmsOrders', 'getWmsOrder', 'listInvoiceVideos')) {
    cases.push({
      id: 'workflows/invoice_videos',
      phase: 'workflows',
      title: "A shipped order's invoice number lists its videos, or is answered CAM_INVOICE_NOT_FOUND; never empty",
      operations: ['listInvoiceVideos'],
      writes: false,
      run: async (t) => {
        const found = await invoiceVideos(t);
        if (!found) return;
        if ('skip' in found) return t.skip(found.skip);
        if (found.videos === 0)
          t.note(
            `the invoice ${found.invoice} of the shipped order ${found.orderNo} has no video: a success of listInvoiceVideos is not judged in this run`,
          );
      },
    });
  }

  return cases;
}
