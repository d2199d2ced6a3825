// The product the kit needs to exist before it can test a rule (to order from, to add options to), created once per
// run through the API itself, or, in a read-only run, found among what the seller already has. The order it needs
// is registered through the bulk operation, so it lives in paths.ts, above bulk.ts: nothing here imports bulk.ts.
import type { JsonSchema, OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext } from './case.js';
import { draw } from './generate.js';
import { freshId } from './inputs.js';

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
  if (
    !t.expect(ex, create, { status: t.contract.successStatus(create), why: 'creating the product the kit orders from' })
  ) {
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
    const rows = t.env.contract.limits.bulkRowsPerRequest;
    const max = typeof stockSchema.maximum === 'number' ? stockSchema.maximum : rows * 10;
    body.stock_quantity = Math.min(max, rows * 10);
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
