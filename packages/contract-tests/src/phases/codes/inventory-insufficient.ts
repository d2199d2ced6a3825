// An order raised beyond its product's stock: INVENTORY_INSUFFICIENT, and the order as it was registered.
import { isDeepStrictEqual } from 'node:util';
import { dataOf, type CaseContext, type CaseDef, type RunEnv } from '../../case.js';
import { bulkTarget, checkBulkResponse, freshRows, send, type Row } from '../../bulk.js';
import { createProductBody } from '../../fixtures.js';

/** The shared value: a product created with one unit of stock (its create body), by whichever case needs it first. */
export const ONE_UNIT_PRODUCT = 'one_unit_product';

async function oneUnitProduct(t: CaseContext): Promise<Row | undefined> {
  const known = t.env.shared.get(ONE_UNIT_PRODUCT) as Row | undefined;
  if (known) return known;
  const create = t.op('createProduct');
  const body = createProductBody(t, { stock: 1 });
  const created = await t.call(create, { body });
  if (!t.expect(created, create, { status: t.contract.successStatus(create), why: 'a product with one unit' }))
    return undefined;
  t.env.shared.set(ONE_UNIT_PRODUCT, body);
  return body;
}

export function inventoryInsufficientCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const update = contract.operations.find(
    (op) => op.method !== 'get' && op.requestBody && contract.documents(op, 'INVENTORY_INSUFFICIENT'),
  );
  const register = contract.findOperation('registerOrders');
  const readOrder = update
    ? contract.operations.find((op) => op.method === 'get' && op.path === update.path)
    : undefined;
  if (!update || !register || !readOrder || !contract.bulk(register)) return [];
  return [
    {
      id: `workflows/codes/INVENTORY_INSUFFICIENT/${update.operationId}`,
      phase: 'workflows',
      title: `${update.method.toUpperCase()} ${update.path} raising an order beyond its product's stock: INVENTORY_INSUFFICIENT, the order unchanged`,
      operations: [update.operationId, register.operationId, readOrder.operationId],
      writes: true,
      reaches: ['INVENTORY_INSUFFICIENT'],
      run: async (t) => {
        // A product with one unit, ordered once: none is left, so one more unit is short. The product the
        // product workflow created has one unit (ONE_UNIT_PRODUCT); else one is created here.
        const body = await oneUnitProduct(t);
        if (!body) return;
        const target = await bulkTarget(t, register, contract.bulk(register)!);
        // The product's own stock is what runs short: no option of the kit's other product named.
        const rows = (await freshRows(t, target, 1)).map(({ option_code: _option, ...r }) => ({
          ...r,
          product_code: body.product_code,
        }));
        const placed = await send(t, target, rows);
        const result = checkBulkResponse(t, target, rows, placed, [true]);
        const orderNo = result?.[0]?.order_no;
        if (typeof orderNo !== 'string' || orderNo === '') return;
        const quantity = Number((rows[0] as Row).quantity);
        const raise = await t.call(update, { path: { order_no: orderNo }, body: { quantity: quantity + 1 } });
        t.expect(raise, update, {
          status: contract.statusOf('INVENTORY_INSUFFICIENT'),
          code: 'INVENTORY_INSUFFICIENT',
          check: 'error_code_reached',
          why: `product ${body.product_code} has no unit left for order ${orderNo}`,
        });
        const after = await t.call(readOrder, { path: { order_no: orderNo } });
        if (t.expect(after, readOrder, { status: contract.successStatus(readOrder) })) {
          // The order as registered: every field of the row sent that the record carries, the quantity included.
          const read = dataOf<Row>(after);
          const changed = Object.entries(rows[0] as Row).filter(
            ([k, v]) => read && k in read && !isDeepStrictEqual(read[k], v),
          );
          t.assert(
            read !== undefined && changed.length === 0,
            'error_code_reached',
            `order ${orderNo} unchanged by the refused change`,
            `${changed.map(([k]) => k).join(', ')} changed: ${JSON.stringify(read)}`,
            after,
            readOrder,
          );
        }
      },
    },
  ];
}
