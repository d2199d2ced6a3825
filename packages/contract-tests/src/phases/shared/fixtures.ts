// The product the kit needs to exist before it can test a rule (to order from, to add options to), created once per
// run through the API itself, or, in a read-only run, found among what the seller already has. The order it needs
// is registered through the bulk operation, so it lives in paths.ts, above bulk.ts: nothing here imports bulk.ts.
import type { JsonSchema, OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext } from '../../run/case.js';
import type { Exchange } from '../../run/http.js';
import { draw } from '../../contract/generate.js';
import { freshId } from './inputs.js';

export interface FixtureProduct {
  product_code: string;
  [field: string]: unknown;
}

/** The schema of one property of an object schema (references resolved), or undefined. */
export function propertySchema(t: CaseContext, schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
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
  if (
    !t.expect(ex, create, { status: t.contract.successStatus(create), why: 'creating the product the kit orders from' })
  ) {
    t.skip('could not create the product the kit needs');
  }
  const data = dataOf<FixtureProduct>(ex);
  keepFixtureProduct(t, { body: product, data, exchange: ex, by: t.def.id, at: t.env.now() });
  return data;
}

/** The product the kit orders from, as this run created it: the body sent, the answer, and the case that sent it. */
export interface CreatedProduct {
  body: Record<string, unknown>;
  data: FixtureProduct;
  exchange: Exchange;
  by: string;
  /** When it was answered (the run's clock, ms). */
  at: number;
}

function keepFixtureProduct(t: CaseContext, created: CreatedProduct): void {
  t.env.shared.set('fixture_product', created.data);
  t.env.shared.set('fixture_product_created', created);
}

/** The fixture product when this run created it (not found in a read-only run), with the body it was created from. */
export function createdFixtureProduct(t: CaseContext): CreatedProduct | undefined {
  return t.env.shared.get('fixture_product_created') as CreatedProduct | undefined;
}

/** The orders of the fixture product's own stock a run registers at most (the bulk phase's and workflows' fresh rows). */
const FIXTURE_ORDERS_AT_MOST = 10;

/**
 * A product another case of the run created anyway (the request example of the product create, with the kit's
 * code) becomes the product the kit orders from, when its stock covers the run's orders: one create less.
 */
export function adoptFixtureProduct(t: CaseContext, op: OperationInfo, sent: unknown, ex: Exchange): void {
  if (op.operationId !== 'createProduct' || t.env.shared.has('fixture_product')) return;
  if (ex.response.status !== t.contract.successStatus(op)) return;
  const data = dataOf<FixtureProduct>(ex);
  const body = sent as Record<string, unknown> | undefined;
  const stock = body?.stock_quantity;
  if (typeof data?.product_code !== 'string' || typeof stock !== 'number' || stock < FIXTURE_ORDERS_AT_MOST) return;
  keepFixtureProduct(t, { body: body!, data, exchange: ex, by: t.def.id, at: t.env.now() });
}

/** A product created by a case of the run for a rule of its own (the read-back): the kit orders from it from then on. */
export function offerFixtureProduct(t: CaseContext, created: Omit<CreatedProduct, 'by' | 'at'>): void {
  if (t.env.shared.has('fixture_product')) return;
  if (typeof created.data?.product_code !== 'string') return;
  keepFixtureProduct(t, { ...created, by: t.def.id, at: t.env.now() });
}

/** The product the kit orders from, when the run has it already (nothing is created for the asking). */
export function fixtureProductIfMade(t: CaseContext): FixtureProduct | undefined {
  return t.env.shared.get('fixture_product') as FixtureProduct | undefined;
}

/** A valid product body with a fresh code; `plenty` stock covers full bulk bodies of orders of minimum quantity. */
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
    // Twice a full body of orders; low enough that an order raised to one unit more than the product ever had is
    // still a valid quantity (the INVENTORY_INSUFFICIENT case).
    const rows = t.env.contract.limits.bulkRowsPerRequest;
    const max = typeof stockSchema.maximum === 'number' ? stockSchema.maximum : rows * 2;
    body.stock_quantity = Math.min(max, rows * 2);
  } else {
    body.stock_quantity = options.stock;
  }
  const errors = t.contract.validate(schema, body);
  if (errors.length > 0) throw new Error(`the kit built an invalid product body: ${errors.join('; ')}`);
  return body;
}

/** The first page of size 1 of a paged list, in the list's own parameter names. */
export function pageQuery(t: CaseContext, list: OperationInfo, size: number): Record<string, number> {
  const paged = t.contract.paged(list);
  return paged ? { [paged.pageParameter.name]: 1, [paged.sizeParameter.name]: size } : {};
}

/** The value the kit's own product gives a path parameter (`product_code`), or undefined for any other. */
export async function productPathValue(t: CaseContext, name: string): Promise<string | undefined> {
  return name === 'product_code' ? (await ensureFixtureProduct(t)).product_code : undefined;
}
