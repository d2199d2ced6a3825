// Path values for the kit's requests: values that name resources the kit knows exist (its product, its order), and
// the order fixture itself, the row registered once through the bulk operation (bulk.ts), which depends on the product fixture
// (fixtures.ts) only: fixtures.ts → bulk.ts → paths.ts, no cycle.
import type { OperationInfo } from '@cls-api/spec';
import { bulkTarget, storedRow } from './bulk.js';
import { dataOf, type CaseContext } from '../../run/case.js';
import { pageQuery, productPathValue } from './fixtures.js';
import { unknownValue } from './inputs.js';

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
    const product = await productPathValue(t, p.name);
    if (product !== undefined) out[p.name] = product;
    else if (p.name === 'order_no') out[p.name] = await ensureFixtureOrder(t);
    else if (op.area === t.mcpArea() && p.name === 'tool_name') out[p.name] = knownTool(t);
    else t.skip(`${op.operationId}: the kit has no existing ${p.name} to use`);
  }
  return out;
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
    const product = await productPathValue(t, p.name);
    if (product !== undefined) path[p.name] = product;
    else if (p.name === 'order_no') path[p.name] = await ensureFixtureOrder(t);
    else if (op.area === t.mcpArea() && p.name === 'tool_name') path[p.name] = knownTool(t);
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
