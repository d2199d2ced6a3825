// Resources the kit needs to exist before it can test a rule (a product to order, an order to look for), created
// once per run through the API itself, or, in a read-only run, found among what the seller already has.
import type { JsonSchema, OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext } from './case.js';
import { draw } from './generate.js';
import { freshId, unknownValue } from './inputs.js';

export interface FixtureProduct {
  product_code: string;
  [field: string]: unknown;
}

function propertySchema(t: CaseContext, schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
  const props = (t.contract.resolve(schema).properties ?? {}) as Record<string, JsonSchema>;
  return props[name];
}

/** A product of the primary seller with plenty of stock, created once per run. */
export async function ensureFixtureProduct(t: CaseContext): Promise<FixtureProduct> {
  const known = t.env.shared.get('fixture_product') as FixtureProduct | undefined;
  if (known) return known;
  const create = t.op('createProduct');
  if (t.env.readOnly) {
    const list = t.contract.operations.find((o) => o.method === 'get' && o.path === create.path);
    if (!list) t.skip('read-only run: no product list to find a product in');
    const ex = await t.call(list, { query: pageQuery(t, list, 1) });
    const first = (dataOf<FixtureProduct[]>(ex) ?? [])[0];
    if (ex.response.status !== 200 || !first) t.skip('read-only run: the seller has no product to test with');
    t.env.shared.set('fixture_product', first);
    return first;
  }
  const product = createProductBody(t, { stock: 'plenty' });
  const ex = await t.call(create, { body: product });
  if (!t.expect(ex, create, { status: t.contract.successStatus(create), why: 'creating the product the kit orders from' })) {
    t.skip('could not create the product the kit needs');
  }
  const data = dataOf<FixtureProduct>(ex);
  t.env.shared.set('fixture_product', data);
  return data;
}

/** A valid product body with a fresh code; `plenty` stock covers a full bulk body of orders of minimum quantity. */
export function createProductBody(t: CaseContext, options: { stock: 'plenty' | number }): Record<string, unknown> {
  const create = t.op('createProduct');
  const schema = create.requestBody?.schema;
  if (!schema) throw new Error('createProduct has no request body schema');
  const body = { ...(draw(t.env.generator.valid(schema), t.env.random) as Record<string, unknown>) };
  body.product_code = freshId(t, propertySchema(t, schema, 'product_code'), 'P');
  // A supplier code drawn at random names no supplier; leave the optional reference out.
  delete body.supplier_code;
  const stockSchema = t.contract.resolve(propertySchema(t, schema, 'stock_quantity'));
  if (options.stock === 'plenty') {
    const rows = t.env.contract.limits.bulkRowsPerRequest ?? 1000;
    const max = typeof stockSchema.maximum === 'number' ? stockSchema.maximum : rows * 10;
    body.stock_quantity = Math.min(max, rows * 10);
  } else {
    body.stock_quantity = options.stock;
  }
  const errors = t.contract.validate(schema, body);
  if (errors.length > 0) throw new Error(`the kit built an invalid product body: ${errors.join('; ')}`);
  return body;
}

/** An order of the primary seller that has not shipped, registered once per run (or found, read-only). */
export async function ensureFixtureOrder(t: CaseContext): Promise<string> {
  const known = t.env.shared.get('fixture_order') as string | undefined;
  if (known) return known;
  const register = t.op('registerOrders');
  if (t.env.readOnly) {
    const list = t.contract.operations.find((o) => o.method === 'get' && o.path === register.path);
    if (!list) t.skip('read-only run: no order list to find an order in');
    const ex = await t.call(list, { query: pageQuery(t, list, 1) });
    const first = (dataOf<Array<{ order_no?: string }>>(ex) ?? [])[0];
    if (ex.response.status !== 200 || !first?.order_no) t.skip('read-only run: the seller has no order to test with');
    t.env.shared.set('fixture_order', first.order_no);
    return first.order_no;
  }
  const { bulkTarget, freshRows, send, checkBulkResponse } = await import('./bulk.js');
  const shape = t.contract.bulk(register);
  if (!shape) t.skip('registerOrders is not a bulk operation in this contract');
  const target = await bulkTarget(t, register, shape);
  const rows = await freshRows(t, target, 1);
  const ex = await send(t, target, rows);
  const result = checkBulkResponse(t, target, rows, ex, [true]);
  const orderNo = result?.[0]?.order_no;
  if (typeof orderNo !== 'string' || orderNo === '') t.skip('could not register the order the kit needs');
  t.env.shared.set('fixture_order', orderNo);
  return orderNo;
}

/** The first page of size 1 of a paged list, in the list's own parameter names. */
export function pageQuery(t: CaseContext, list: OperationInfo, size: number): Record<string, number> {
  const paged = t.contract.paged(list);
  return paged ? { [paged.pageParameter.name]: 1, [paged.sizeParameter.name]: size } : {};
}

/**
 * Path values naming resources that exist: the kit's product, the kit's order, a tool the contract lists. A path
 * parameter the kit has no resource for skips the case.
 */
export async function knownPathValues(t: CaseContext, op: OperationInfo): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    if (p.name === 'product_code') out[p.name] = (await ensureFixtureProduct(t)).product_code;
    else if (p.name === 'order_no') out[p.name] = await ensureFixtureOrder(t);
    else if (op.area === t.mcpArea() && p.name === 'tool_name') {
      const tool = t.contract.operations.find((o) => o.mcpTool && t.hasKey(o.area));
      if (!tool?.mcpTool) t.skip('no API key of an area with MCP tools');
      out[p.name] = tool.mcpTool;
    } else t.skip(`${op.operationId}: the kit has no existing ${p.name} to use`);
  }
  return out;
}

/**
 * Path values naming the kit's own resources where it has them (its product, its order), and values that name
 * nothing for the rest: `known` says whether every value names something, so a success is due.
 */
export async function reachablePathValues(t: CaseContext, op: OperationInfo): Promise<{ path: Record<string, string>; known: boolean }> {
  const path: Record<string, string> = {};
  let known = true;
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    if (p.name === 'product_code') path[p.name] = (await ensureFixtureProduct(t)).product_code;
    else if (p.name === 'order_no') path[p.name] = await ensureFixtureOrder(t);
    else {
      path[p.name] = unknownValue(t, p);
      known = false;
    }
  }
  return { path, known };
}
