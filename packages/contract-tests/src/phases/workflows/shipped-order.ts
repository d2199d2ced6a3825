// A shipped order (found by its status) cannot be modified: the change is refused and the order reads the same.
import { isDeepStrictEqual } from 'node:util';
import type { OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext, type CaseDef, type RunEnv } from '../../run/case.js';
import type { Row } from '../shared/bulk.js';
import { draw } from '../../contract/generate.js';
import { pageQuery } from '../shared/fixtures.js';
import { jwtRead } from './read-back.js';

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
        const list = t.op('listWmsOrders');
        const update = t.op('updateWmsOrder');
        // The order read before and after on an area the run's JWT reads, where one does: no quota spent.
        const get = jwtRead(t, t.op('getWmsOrder')) ?? t.op('getWmsOrder');
        const shipped = shippedStatusCodes(t);
        // First the newest orders on an area the run's JWT reads (no quota spent); then, by status, on the list
        // that filters by it.
        const recent = await recentShippedOrder(t, list, shipped);
        let order = recent?.order;
        // The seller's whole list was on that page: no shipped order anywhere, nothing more to ask.
        for (const code of order || recent?.complete ? [] : shipped) {
          const ex = await t.call(list, { query: { order_status_code: code, page: 1, size: 1 } });
          if (!t.expect(ex, list, { status: contract.successStatus(list) })) return;
          order = (dataOf<Row[]>(ex) ?? [])[0];
          if (order) break;
        }
        if (!order)
          return t.skip(
            `no order with order_status_code ${shipped.join(' or ')}: ship one on the server first (the reference server: admin order ship ORDER_NO)`,
          );
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

  return cases;
}

/**
 * A shipped order on the first page (at the largest size) of the order list the run's JWT reads, and whether that
 * page held the seller's whole list; undefined when there is no such list or it is not answered as the contract says.
 */
async function recentShippedOrder(
  t: CaseContext,
  list: OperationInfo,
  shipped: readonly number[],
): Promise<{ order: Row | undefined; complete: boolean } | undefined> {
  const byJwt = jwtRead(t, list);
  const paged = byJwt ? t.contract.paged(byJwt) : undefined;
  if (!byJwt || !paged) return undefined;
  const max = t.contract.resolve(paged.sizeParameter.schema).maximum;
  const ex = await t.call(byJwt, { query: pageQuery(t, byJwt, typeof max === 'number' ? max : 20) });
  if (!t.expect(ex, byJwt, { status: t.contract.successStatus(byJwt) })) return undefined;
  const order = (dataOf<Row[]>(ex) ?? []).find((o) => shipped.includes(Number(o.order_status_code)));
  const pagination = (ex.response.json as { pagination?: { has_next?: unknown } } | undefined)?.pagination;
  return { order, complete: pagination?.has_next === false };
}

/** Status codes of a shipped order (the contract model's, from `OrderStatusCode`'s `x-shipped-values`). */
function shippedStatusCodes(t: CaseContext): readonly number[] {
  return t.contract.orderStatuses.shipped;
}
