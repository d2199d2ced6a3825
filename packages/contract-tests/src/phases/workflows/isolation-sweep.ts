// Seller isolation on every read: each list and read of the seller's records is also asked with another seller's
// credential (its JWT where the area takes one, which spends no quota; else its key of that area). A list must show
// none of the seller's records (isolation.ts compares every record of every answer); a read of one of the seller's
// own records must be not found, never forbidden and never the record. The order reads of the manager area and
// getWmsOrder are the seller_isolation workflow's (seller-isolation.ts), which also registers the order they read; a
// read-only run, which leaves that workflow out, asks them here for an order the seller already has.
import type { JsonSchema, OperationInfo } from '@cls-api/spec';
import type { CaseContext, CaseDef, RunEnv } from '../../run/case.js';
import type { Credential } from '../../plan/credentials.js';
import { validQuery } from '../shared/inputs.js';
import { knownPathValues, namesOwnRecord } from '../shared/paths.js';
import { otherSellerJwt } from './seller-isolation.js';

const BY_THE_WORKFLOW = new Set(['listManagerOrders', 'getManagerOrder', 'getWmsOrder']);

export function isolationSweepCases(env: RunEnv): CaseDef[] {
  return env.contract.operations
    .filter(
      (op) =>
        op.method === 'get' &&
        op.security.length > 0 &&
        env.isolation.addresses(op) &&
        (env.readOnly || !BY_THE_WORKFLOW.has(op.operationId)),
    )
    .map(
      (op): CaseDef => ({
        id: `workflows/${op.operationId}/seller_isolation`,
        phase: 'workflows',
        title: `${op.method.toUpperCase()} ${op.path} with another seller's credential: none of the seller's records`,
        operations: [op.operationId],
        writes: false,
        needs: creators(env, op),
        run: async (t) => {
          const credential = await otherCredential(t, op);
          const path = await sellersPathValues(t, op);
          const paged = t.contract.paged(op);
          const query = {
            ...validQuery(t, op, { optional: false }),
            ...(paged ? { [paged.pageParameter.name]: 1 } : {}),
          };
          const ex = await t.call(op, { path, query, credential });
          if (Object.keys(path).length === 0) {
            // A list: what it shows is compared with the seller's records as it arrives.
            t.expect(ex, op, {
              status: t.contract.successStatus(op),
              check: 'seller_isolation',
              why: "another seller's own list",
            });
            return;
          }
          // An identifier the seller chose (a product code the seller already had, in a read-only run) may name a
          // record of the other seller's own: that answer is compared field by field with the seller's (isolation.ts),
          // and only the seller's own record in it fails. One the run invented or the service assigned is the seller's
          // alone: never found.
          const chosen = Object.entries(path).some(
            ([name, value]) => !value.startsWith(t.env.records.prefix) && sellerChooses(t, op, name),
          );
          if (chosen && ex.response.status === t.contract.successStatus(op)) {
            t.note(
              `another seller has a record of its own at ${ex.request.path}: compared field by field with the seller's, not asked to be not found`,
            );
            return;
          }
          t.expect(ex, op, {
            status: 404,
            code: t.contract.responseFor(op, 404)?.errorCodes ?? [],
            check: 'seller_isolation',
            why: "the seller's record read with another seller's credential is not found, never forbidden",
          });
        },
      }),
    );
}

/** The other seller's credential for an operation: its JWT where the area takes one (no quota), else its key. */
async function otherCredential(t: CaseContext, op: OperationInfo): Promise<Credential> {
  if (op.security.some((s) => t.isBearerScheme(s)) && t.env.otherClient) {
    const jwt = await otherSellerJwt(t);
    if (jwt) return jwt;
  }
  if (!op.security.some((s) => t.isApiKeyScheme(s)))
    t.skip(`no JWT of another seller: give CLS_OTHER_CLIENT_ID and CLS_OTHER_CLIENT_SECRET`);
  return t.key(op.area, 'other');
}

/**
 * The seller's own records to read: the kit's product and order, the shipped order's invoice with videos (what
 * knownPathValues names), and for the rest a record the run created (a draft, an option under the kit's product, a
 * return).
 */
async function sellersPathValues(t: CaseContext, op: OperationInfo): Promise<Record<string, string>> {
  const params = op.parameters.filter((p) => p.in === 'path');
  const created = params.filter((p) => !namesOwnRecord(p.name));
  const out: Record<string, string> = await knownPathValues(t, {
    ...op,
    parameters: params.filter((p) => namesOwnRecord(p.name)),
  });
  for (const p of created) {
    const id = t.env.records.idOf(p.name, 'primary');
    if (id === undefined) t.skip(`the run created no ${p.name} of the seller to read with another seller's credential`);
    out[p.name] = id;
  }
  return out;
}

/**
 * The operations that create the records `op` reads by a parameter knownPathValues does not name: the POST on the
 * path above the parameter (`/v3/wms/returns` for `/v3/wms/returns/{return_no}`).
 */
function creators(env: RunEnv, op: OperationInfo): string[] {
  return op.parameters
    .filter((p) => p.in === 'path' && !namesOwnRecord(p.name))
    .flatMap((p) => {
      const parent = op.path.slice(0, op.path.lastIndexOf(`/{${p.name}}`));
      const creator = env.contract.operations.find((o) => o.method === 'post' && o.path === parent);
      return creator ? [creator.operationId] : [];
    });
}

/**
 * Whether the seller chooses the identifier `name` (the body that creates such a record carries it, as a product's
 * code), rather than the service assigning it (an order number): two sellers may each have a record under it.
 * The record is created in one area and read in others: the creating POST is the one on a path of that collection.
 */
function sellerChooses(t: CaseContext, op: OperationInfo, name: string): boolean {
  // The collection it names (`products` for `/v3/manager/products/{product_code}`), created in whichever area.
  const collection = op.path
    .slice(0, op.path.lastIndexOf(`/{${name}}`))
    .split('/')
    .at(-1);
  const creator = t.contract.operations.find((o) => o.method === 'post' && o.path.endsWith(`/${collection}`));
  const seen = new Set<JsonSchema>();
  const carries = (schema: JsonSchema | undefined, depth: number): boolean => {
    const s = t.contract.resolve(schema);
    if (depth > 6 || seen.has(s)) return false;
    seen.add(s);
    const props = (s.properties ?? {}) as Record<string, JsonSchema>;
    if (name in props) return true;
    const nested = [...Object.values(props), s.items as JsonSchema | undefined, ...((s.allOf ?? []) as JsonSchema[])];
    return nested.some((n) => n !== undefined && typeof n === 'object' && carries(n, depth + 1));
  };
  return creator?.requestBody?.schema !== undefined && carries(creator.requestBody.schema, 0);
}
