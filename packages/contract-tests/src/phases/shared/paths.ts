// Path values for the kit's requests: values that name resources the kit knows exist (its product, its order), and
// the order fixture itself, the row registered once through the bulk operation (bulk.ts), which depends on the product fixture
// (fixtures.ts) only: fixtures.ts → bulk.ts → paths.ts, no cycle.
import type { OperationInfo } from '@cls-api/spec';
import { bulkTarget, storedRow } from './bulk.js';
import { dataOf, type CaseContext } from '../../run/case.js';
import { pageQuery, productPathValue } from './fixtures.js';
import { unknownValue } from './inputs.js';
import { invoiceVideos } from './shipped.js';

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
  const shape = t.contract.bulk(register);
  if (!shape) t.skip('registerOrders is not a bulk operation in this contract');
  // The order row the run registers once anyway (bulk.ts, storedRow): no request and no record of its own.
  const orderNo = (await storedRow(t, await bulkTarget(t, register, shape))).result.order_no;
  if (typeof orderNo !== 'string' || orderNo === '') t.skip('could not register the order the kit needs');
  t.env.shared.set('fixture_order', orderNo);
  return orderNo;
}

/**
 * Path values naming resources that exist: the kit's product, the kit's order, a tool the contract lists. A path
 * parameter the kit has no resource for skips the case.
 */
export async function knownPathValues(t: CaseContext, op: OperationInfo): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    out[p.name] =
      (await existingValue(t, op, p.name)) ?? t.skip(`${op.operationId}: the kit has no existing ${p.name} to use`);
  }
  return out;
}

/** The path parameters whose values the kit can make name a record of its own (existingValue). */
const OWN_RECORDS = new Set(['product_code', 'order_no', 'invoice_no']);

/** Whether the kit can make `name` name a record of its own, whatever the operation (a product, an order). */
export function namesOwnRecord(name: string): boolean {
  return OWN_RECORDS.has(name);
}

/** A value of the path parameter `name` of `op` naming a resource that exists, or undefined where the kit has none. */
export async function existingValue(t: CaseContext, op: OperationInfo, name: string): Promise<string | undefined> {
  const product = await productPathValue(t, name);
  if (product !== undefined) return product;
  if (name === 'order_no') return ensureFixtureOrder(t);
  // An invoice of the seller's whose videos the camera area listed: a shipped order's, where it has videos.
  if (name === 'invoice_no') {
    const found = await invoiceVideos(t);
    return found && 'invoice' in found && found.videos > 0 ? found.invoice : undefined;
  }
  if (op.area === t.mcpArea() && name === 'tool_name') return knownTool(t);
  return undefined;
}

/**
 * Path values naming the kit's own resources where it has them (its product, its order), and values that name
 * nothing for the rest: `known` says whether every value names something, so a success is due.
 */
export async function reachablePathValues(
  t: CaseContext,
  op: OperationInfo,
): Promise<{ path: Record<string, string>; known: boolean }> {
  const path: Record<string, string> = {};
  let known = true;
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    const existing = await existingValue(t, op, p.name);
    if (existing !== undefined) path[p.name] = existing;
    else {
      path[p.name] = unknownValue(t, p);
      known = false;
    }
  }
  return { path, known };
}

/** A tool the contract lists, of an area the kit has a key for. */
function knownTool(t: CaseContext): string {
  const tool = t.contract.operations.find((o) => o.mcpTool && t.hasKey(o.area));
  if (!tool?.mcpTool) t.skip('no API key of an area with MCP tools');
  return tool.mcpTool;
}
