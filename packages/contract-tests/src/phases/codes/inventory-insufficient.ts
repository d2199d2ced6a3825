// An order raised beyond its product's stock: INVENTORY_INSUFFICIENT, and the order as it was registered.
import { isDeepStrictEqual } from 'node:util';
import { dataOf, type CaseContext, type CaseDef, type RunEnv } from '../../run/case.js';
import { bulkTarget, checkBulkResponse, freshRows, send, type Row } from '../shared/bulk.js';
import type { JsonSchema } from '@cls-api/spec';
import { createdFixtureProduct, createProductBody, ensureFixtureProduct, propertySchema } from '../shared/fixtures.js';
import { jwtRead } from '../shared/shipped.js';

/**
 * A product and the stock it was created with, all of which an order of one unit raised to one unit more than that
 * stock runs short of: the fixture product this run created where its stock plus one is a valid quantity, else a
 * product created here with one unit.
 */
async function productToRunShort(
  t: CaseContext,
  quantity: JsonSchema | undefined,
): Promise<{ body: Row; stock: number } | undefined> {
  const max = t.contract.resolve(quantity).maximum;
  await ensureFixtureProduct(t);
  const fixture = createdFixtureProduct(t);
  const stock = fixture?.body.stock_quantity;
  if (fixture && typeof stock === 'number' && (typeof max !== 'number' || stock + 1 <= max))
    return { body: fixture.body, stock };
  const create = t.op('createProduct');
  const body = createProductBody(t, { stock: 1 });
  const created = await t.call(create, { body });
  if (!t.expect(created, create, { status: t.contract.successStatus(create), why: 'a product with one unit' }))
    return undefined;
  return { body, stock: 1 };
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
        // An order of the product raised to one unit more than the product was ever given: short, whatever the
        // run's other orders took.
        const product = await productToRunShort(t, propertySchema(t, update.requestBody?.schema, 'quantity'));
        if (!product) return;
        const { body } = product;
        const target = await bulkTarget(t, register, contract.bulk(register)!);
        // The product's own stock is what runs short: no option of the product named.
        const rows = (await freshRows(t, target, 1)).map(({ option_code: _option, ...r }) => ({
          ...r,
          product_code: body.product_code,
        }));
        const placed = await send(t, target, rows);
        const result = checkBulkResponse(t, target, rows, placed, [true]);
        const orderNo = result?.[0]?.order_no;
        if (typeof orderNo !== 'string' || orderNo === '') return;
        const raise = await t.call(update, { path: { order_no: orderNo }, body: { quantity: product.stock + 1 } });
        t.expect(raise, update, {
          status: contract.statusOf('INVENTORY_INSUFFICIENT'),
          code: 'INVENTORY_INSUFFICIENT',
          check: 'error_code_reached',
          why: `product ${String(body.product_code)} was given ${product.stock} units in all; order ${orderNo} asks for ${product.stock + 1}`,
        });
        // Read where the run's JWT reads the same order (the manager area: no monthly quota), where it can.
        const read = jwtRead(t, readOrder) ?? readOrder;
        const after = await t.call(read, { path: { order_no: orderNo } });
        if (t.expect(after, read, { status: contract.successStatus(read) })) {
          // The order as registered: every field of the row sent that the record carries, the quantity included.
          const order = dataOf<Row>(after);
          const changed = Object.entries(rows[0] as Row).filter(
            ([k, v]) => order && k in order && !isDeepStrictEqual(order[k], v),
          );
          t.assert(
            order !== undefined && changed.length === 0,
            'error_code_reached',
            `order ${orderNo} unchanged by the refused change`,
            `${changed.map(([k]) => k).join(', ')} changed: ${JSON.stringify(order)}`,
            after,
            read,
          );
        }
        // A change the order takes (its memo), on the order no other case reads: the update's own success, which no
        // other case gets (the request examples name orders a real server does not hold), and the order it answers.
        if (propertySchema(t, update.requestBody?.schema, 'memo')) {
          const memo = 'Changed by the contract-test kit';
          const taken = await t.call(update, { path: { order_no: orderNo }, body: { memo } });
          if (
            t.expect(taken, update, { status: contract.successStatus(update), why: `order ${orderNo}'s memo changed` })
          )
            t.assert(
              dataOf<Row>(taken)?.memo === memo,
              'expected_outcome',
              `order ${orderNo} answered with memo ${JSON.stringify(memo)}`,
              `memo ${JSON.stringify(dataOf<Row>(taken)?.memo)}`,
              taken,
              update,
            );
        }
      },
    },
  ];
}
