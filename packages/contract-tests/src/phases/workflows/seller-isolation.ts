// Seller isolation: a seller's new order shows in its own manager list and reads by number; another seller sees
// neither, with every kind of credential the area takes (its keys, its JWT).
import type { OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext, type CaseDef, type RunEnv } from '../../run/case.js';
import { bulkTarget, checkBulkResponse, freshRows, storedRow, type Row } from '../shared/bulk.js';
import type { BearerCredential, Credential } from '../../plan/credentials.js';
import { createProductBody } from '../shared/fixtures.js';
import { serviceDate } from '../shared/inputs.js';
import { checkServiceTimes } from '../shared/service-time.js';

export function sellerIsolationCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  if (contract.hasOperations('registerOrders', 'listManagerOrders', 'getManagerOrder')) {
    cases.push({
      id: 'workflows/seller_isolation',
      phase: 'workflows',
      title: "A new order shows in its seller's manager list and reads by number; another seller sees neither",
      operations: ['registerOrders', 'listManagerOrders', 'getManagerOrder'],
      writes: true,
      run: async (t) => {
        const register = t.op('registerOrders');
        const list = t.op('listManagerOrders');
        const getManager = t.op('getManagerOrder');
        t.key(register.area);
        t.key(list.area);
        const other = t.key(list.area, 'other');
        const shape = contract.bulk(register)!;
        const target = await bulkTarget(t, register, shape);
        // The order registered once per run (bulk.ts, storedRow): no new record for this rule.
        const stored = await storedRow(t, target);
        const rows = [stored.row];
        const orderNo = stored.result.order_no;
        if (typeof orderNo !== 'string' || orderNo === '') return;

        const own = await findInList(t, list, orderNo, 'primary');
        // The list read with the seller's API key: the area takes its key, the rule of the with_… case below.
        const keyProof = withApiKeyProof(t, list);
        if (own.found !== undefined && keyProof) t.proved(keyProof);
        t.assert(
          own.found !== undefined,
          'seller_isolation',
          `order ${orderNo} in the seller's own manager list`,
          `not among ${own.scanned} orders listed${own.truncated ? ' (stopped early)' : ''}`,
          t.last,
          list,
        );
        if (own.found) {
          t.assert(
            own.found.mall_product_name === rows[0]!.mall_product_name,
            'seller_isolation',
            `mall_product_name ${JSON.stringify(rows[0]!.mall_product_name)}`,
            JSON.stringify(own.found.mall_product_name),
            t.last,
            list,
          );
          checkServiceTimes(
            t,
            [
              {
                record: own.found,
                where: `order ${orderNo} in the manager list`,
                ...(rows[0] ? { sent: rows[0] } : {}),
              },
            ],
            t.last,
            list,
          );
        }
        const read = await t.call(getManager, { path: { order_no: orderNo } });
        t.expect(read, getManager, {
          status: contract.successStatus(getManager),
          check: 'seller_isolation',
          why: 'the seller reads its own order',
        });

        await notSeen(t, list, getManager, orderNo, 'other', other, {
          absent: `order ${orderNo} absent from another seller's list`,
          listed: 'listed for the other seller',
          notFound: "another seller's order is not found, never forbidden",
        });
        // With the other seller's JWT too, when its client credentials are given: neither listed nor read.
        const theirJwt = await otherSellerJwt(t);
        if (theirJwt) {
          await notSeen(t, list, getManager, orderNo, 'other', theirJwt, {
            absent: `order ${orderNo} absent from the list read with another seller's JWT`,
            listed: 'listed for the other seller',
            notFound: "the seller's order read with another seller's JWT is not found",
          });
        }
        // Every kind of credential the area takes: with the JWT too, the seller sees its own order, and, when no JWT
        // of the other seller was given to read the seller's order with, not another seller's (one order registered
        // with the other seller's keys, on a product of its own: two metered calls the other seller's JWT saves).
        const jwt = env.clientId && env.clientSecret ? await t.env.jwt(t) : undefined;
        if (jwt) {
          const mine = await findInList(t, list, orderNo, 'primary', jwt);
          t.assert(
            mine.found !== undefined,
            'seller_isolation',
            `order ${orderNo} in the seller's own manager list, read with the JWT`,
            `not among ${mine.scanned} orders listed`,
            t.last,
            list,
          );
        }
        const create = contract.findOperation('createProduct');
        if (!theirJwt && jwt && create && t.hasKey(register.area, 'other') && t.hasKey(create.area, 'other')) {
          const product = createProductBody(t, { stock: 'plenty' });
          const made = await t.call(create, { body: product, credential: t.key(create.area, 'other') });
          if (t.expect(made, create, { status: contract.successStatus(create), why: "the other seller's product" })) {
            const [row] = (await freshRows(t, target, 1)).map(({ option_code: _o, ...r }) => ({
              ...r,
              product_code: product.product_code,
            }));
            const placed = await t.call(register, {
              body: { [shape.rowsProperty]: [row] },
              credential: t.key(register.area, 'other'),
            });
            const theirs = checkBulkResponse(t, target, [row!], placed, [true])?.[0]?.order_no;
            if (typeof theirs === 'string' && theirs !== '') {
              await notSeen(t, list, getManager, theirs, 'primary', jwt, {
                absent: `another seller's order ${theirs} absent from the list read with the seller's JWT`,
                listed: 'listed',
                notFound: "another seller's order read with the seller's JWT is not found",
              });
            }
          }
        }
        const getWms = contract.findOperation('getWmsOrder');
        if (getWms && t.hasKey(getWms.area, 'other')) {
          const wms = await t.call(getWms, { path: { order_no: orderNo }, credential: t.key(getWms.area, 'other') });
          t.expect(wms, getWms, {
            status: contract.statusOf('ORDER_NOT_FOUND'),
            code: 'ORDER_NOT_FOUND',
            check: 'seller_isolation',
            why: "another seller's order is not found",
          });
        }
      },
    });
  }

  return cases;
}

/**
 * That an operation taking an API key or a JWT takes its API key: one rule per operation (a server may take the key on
 * one manager operation and refuse it on the next); undefined for an operation that does not take both.
 */
export function withApiKeyProof(t: CaseContext, op: OperationInfo): string | undefined {
  const apiKey = op.security.filter((s) => t.isApiKeyScheme(s));
  if (apiKey.length === 0 || !op.security.some((s) => t.isBearerScheme(s))) return undefined;
  return `with_api_key:${op.operationId}:${apiKey.join(',')}`;
}

async function findInList(
  t: CaseContext,
  list: OperationInfo,
  orderNo: string,
  seller: 'primary' | 'other',
  with_?: Credential,
): Promise<{ found?: Row; scanned: number; truncated: boolean }> {
  const paged = t.contract.paged(list)!;
  const sizeSchema = t.contract.resolve(paged.sizeParameter.schema);
  const size = typeof sizeSchema.maximum === 'number' ? sizeSchema.maximum : 100;
  const credential = with_ ?? t.key(list.area, seller);
  const dateFrom = list.parameters.find((p) => p.name === 'date_from');
  let scanned = 0;
  for (let page = 1; page <= 5; page++) {
    const query: Record<string, string | number> = {
      [paged.pageParameter.name]: page,
      [paged.sizeParameter.name]: size,
    };
    // Yesterday in service time: the new order is at most this old, whatever the clocks' skew.
    if (dateFrom) query[dateFrom.name] = serviceDate(t, 1);
    const ex = await t.call(list, { query, credential });
    if (!t.expect(ex, list, { status: t.contract.successStatus(list) })) return { scanned, truncated: true };
    const items = dataOf<Row[]>(ex) ?? [];
    scanned += items.length;
    const found = items.find((o) => o.order_no === orderNo);
    if (found) return { found, scanned, truncated: false };
    const pagination = (ex.response.json as { pagination?: { has_next?: boolean } }).pagination;
    if (!pagination?.has_next) return { scanned, truncated: false };
  }
  return { scanned, truncated: true };
}

/**
 * An order of one seller as a credential of the other sees it: absent from the manager list that credential reads,
 * and not found (never forbidden) when read by number.
 */
async function notSeen(
  t: CaseContext,
  list: OperationInfo,
  get: OperationInfo,
  orderNo: string,
  seller: 'primary' | 'other',
  credential: Credential,
  say: { absent: string; listed: string; notFound: string },
): Promise<void> {
  const listed = await findInList(t, list, orderNo, seller, credential);
  t.assert(listed.found === undefined, 'seller_isolation', say.absent, say.listed, t.last, list);
  const read = await t.call(get, { path: { order_no: orderNo }, credential });
  t.expect(read, get, {
    status: t.contract.statusOf('ORDER_NOT_FOUND'),
    code: 'ORDER_NOT_FOUND',
    check: 'seller_isolation',
    why: say.notFound,
  });
}

/**
 * Another seller's JWT, from its client credentials (CLS_OTHER_CLIENT_ID / CLS_OTHER_CLIENT_SECRET, optional), once
 * per run; undefined when they are not given or the token request fails (that failure is reported).
 */
export async function otherSellerJwt(t: CaseContext): Promise<BearerCredential | undefined> {
  const { env } = t;
  if (env.otherBearer) return env.otherBearer;
  const op = env.contract.findOperation('createAccessToken');
  if (!env.otherClient || !op) return undefined;
  const ex = await t.call(op, {
    body: { client_id: env.otherClient.id, client_secret: env.otherClient.secret },
    credential: { kind: 'none' },
  });
  if (
    !t.expect(ex, op, {
      status: env.contract.successStatus(op),
      why: "obtaining another seller's JWT with CLS_OTHER_CLIENT_ID and CLS_OTHER_CLIENT_SECRET",
    })
  )
    return undefined;
  const token = String(dataOf<{ access_token?: string }>(ex)?.access_token ?? '');
  env.transport.options.redactor.add(token, 'CLS_OTHER_ACCESS_TOKEN');
  env.transport.options.redactor.add(
    String(dataOf<{ refresh_token?: string }>(ex)?.refresh_token ?? ''),
    'CLS_OTHER_REFRESH_TOKEN',
  );
  env.otherBearer = { kind: 'bearer', token, ref: 'CLS_OTHER_ACCESS_TOKEN', seller: 'other' };
  return env.otherBearer;
}
