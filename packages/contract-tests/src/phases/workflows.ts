// Stateful workflows: a product created and read back; a mixed bulk body (rows that register and rows that fail at
// the storage stage) reported row by row, then read back; a shipped order that cannot be modified; the same seller
// seeing its new order in the manager list and another seller not seeing it; the JWT refresh; the MCP tool list.
// The same flows are written as Arazzo workflows in spec/arazzo/ for `redocly respect`.
import { isDeepStrictEqual } from 'node:util';
import type { JsonSchema, OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext, type CaseDef, type RunEnv } from '../case.js';
import {
  bulkTarget,
  checkBulkResponse,
  freshRows,
  mixedBodyKey,
  readOperation,
  send,
  storedRow,
  type BulkTarget,
  type MixedBody,
  type Row,
} from '../bulk.js';
import type { BearerCredential, Credential } from '../credentials.js';
import { createProductBody } from '../fixtures.js';
import { reachablePathValues } from '../paths.js';
import { draw } from '../generate.js';
import { serviceDate, unknownResourceProof, unknownValue, validQuery } from '../inputs.js';
import { checkServiceTimes } from '../service-time.js';
import { codeCases, ONE_UNIT_PRODUCT } from './codes.js';

export function workflowCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  const has = (...ids: string[]) => ids.every((id) => contract.findOperation(id));

  if (has('createProduct', 'getWmsProduct')) {
    cases.push({
      id: 'workflows/product_created_read_back',
      phase: 'workflows',
      title: 'A created product reads back unchanged, the same code again is 409 DUPLICATE, the manager area sees it',
      operations: ['createProduct', 'getWmsProduct', 'getManagerProduct'],
      writes: true,
      run: async (t) => {
        const create = t.op('createProduct');
        const get = t.op('getWmsProduct');
        // One unit of stock: the product the INVENTORY_INSUFFICIENT case orders beyond (codes.ts).
        const body = createProductBody(t, { stock: 1 });
        const created = await t.call(create, { body });
        if (!t.expect(created, create, { status: contract.successStatus(create) })) return;
        t.env.shared.set(ONE_UNIT_PRODUCT, body);
        const data = dataOf<Row>(created);
        t.assert(
          submittedFieldsEqual(body, data),
          'read_back',
          `the created product to echo ${JSON.stringify(body)}`,
          JSON.stringify(data),
          created,
          create,
        );
        checkServiceTimes(t, [{ record: data, where: 'the created product', sent: body }], created, create);
        const read = await t.call(get, { path: { product_code: String(body.product_code) } });
        if (t.expect(read, get, { status: contract.successStatus(get) })) {
          t.assert(
            isDeepStrictEqual(dataOf(read), data),
            'read_back',
            'the product as created',
            JSON.stringify(dataOf(read)),
            read,
            get,
          );
        }
        const again = await t.call(create, { body });
        t.expect(again, create, {
          status: contract.statusOf('DUPLICATE'),
          code: 'DUPLICATE',
          why: 'the product_code is taken',
        });
        const manager = contract.findOperation('getManagerProduct');
        if (manager && t.hasKey(manager.area)) {
          const seen = await t.call(manager, { path: { product_code: String(body.product_code) } });
          if (
            t.expect(seen, manager, {
              status: contract.successStatus(manager),
              why: 'the same seller, on the manager area',
            })
          ) {
            t.assert(
              isDeepStrictEqual(dataOf(seen), data),
              'read_back',
              'the same product on the manager area',
              JSON.stringify(dataOf(seen)),
              seen,
              manager,
            );
          }
        } else {
          t.note('no manager key: the manager read of the product was not checked');
        }
      },
    });
  }

  for (const op of contract.operations) {
    const shape = contract.bulk(op);
    if (!shape) continue;
    cases.push({
      id: `workflows/${op.operationId}/mixed_rows_read_back`,
      phase: 'workflows',
      title: `${op.method.toUpperCase()} ${op.path}: rows that register and rows that fail, reported in order, then read back`,
      operations: [op.operationId],
      writes: true,
      run: async (t) => {
        const target = await bulkTarget(t, op, shape);
        // The row registered once per run (bulk.ts, storedRow), then a body of a repeat of it and a fresh row.
        const stored = await storedRow(t, target);
        // The bulk phase's body at the limit is such a body, checked row by row there: its fresh row is read back.
        const sent = t.env.shared.get(mixedBodyKey(op)) as MixedBody | undefined;
        if (sent) {
          t.covered(sent.by, 'rows that fail at the storage stage, then one that registers, reported in order');
          await readBack(t, target, [stored.row, sent.fresh], [stored.result, sent.result]);
          return;
        }
        const [fresh] = await freshRows(t, target, 1);
        const failing = storageFailure(stored.row);
        // failing (a duplicate of a stored row) first, then good: a server that lists the successes first is seen.
        const mixed = [failing, fresh!];
        const mixedEx = await send(t, target, mixed);
        const rows = checkBulkResponse(t, target, mixed, mixedEx, [false, true]);
        if (!rows) return;
        await readBack(t, target, [stored.row, fresh!], [stored.result, rows[1]!]);
      },
    });
  }

  if (has('listWmsOrders', 'updateWmsOrder', 'getWmsOrder')) {
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
        let order: Row | undefined;
        for (const code of shipped) {
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

  if (has('registerOrders', 'listManagerOrders', 'getManagerOrder')) {
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
        // Every kind of credential the area takes: with the JWT too, the seller sees its own order and not another
        // seller's (one order registered with the other seller's keys, on a product of its own).
        const create = contract.findOperation('createProduct');
        if (
          env.clientId &&
          env.clientSecret &&
          create &&
          t.hasKey(register.area, 'other') &&
          t.hasKey(create.area, 'other')
        ) {
          const jwt = await t.env.jwt(t);
          const mine = await findInList(t, list, orderNo, 'primary', jwt);
          t.assert(
            mine.found !== undefined,
            'seller_isolation',
            `order ${orderNo} in the seller's own manager list, read with the JWT`,
            `not among ${mine.scanned} orders listed`,
            t.last,
            list,
          );
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

  // An operation that takes an API key or a JWT (the manager area) is run with the JWT by every other case (it
  // spends no monthly quota, case.ts credentialFor), and here once with the seller's API key: the seller's own data
  // either way. The schemes are the operation's `security`.
  if (env.clientId && env.clientSecret) {
    for (const op of contract.operations) {
      const apiKey = op.security.filter((s) => contract.securityScheme(s)?.type === 'apiKey');
      const bearer = op.security.filter((s) => {
        const scheme = contract.securityScheme(s);
        return scheme?.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer';
      });
      if (apiKey.length === 0 || bearer.length === 0) continue;
      cases.push({
        id: `workflows/${op.operationId}/with_${apiKey[0]}`,
        phase: 'workflows',
        title: `${op.method.toUpperCase()} ${op.path} with an API key (${apiKey.join(', ')}) instead of a JWT: the seller's own data`,
        operations: [op.operationId],
        writes: op.method !== 'get',
        run: async (t) => {
          const key = t.key(op.area);
          const proof = withApiKeyProof(t, op)!;
          const by = t.provenBy(proof);
          if (by !== undefined) return t.covered(by, `the ${op.area} area takes its API key`);
          const { path, known } = await reachablePathValues(t, op);
          const success = contract.successStatus(op);
          const notFound = contract.responseFor(op, 404) ? [404] : [];
          const ex = await t.call(op, { path, query: validQuery(t, op, { optional: false }), credential: key });
          t.expect(ex, op, {
            status: known ? success : [success, ...notFound],
            why: known
              ? "the seller's API key reads the seller's own data"
              : 'an API key is accepted here (a value the kit has no resource for may be not found)',
          });
          if (t.failures.length === 0) t.proved(proof);
        },
      });
    }
  }

  if (has('createAccessToken', 'refreshAccessToken')) {
    cases.push({
      id: 'workflows/token_refresh',
      phase: 'workflows',
      title: 'A JWT is obtained and refreshed; the used refresh token stops working; the new token is accepted',
      operations: ['createAccessToken', 'refreshAccessToken'],
      writes: false,
      run: async (t) => {
        const create = t.op('createAccessToken');
        const refresh = t.op('refreshAccessToken');
        if (!env.clientId || !env.clientSecret) t.skip('no client credentials: pass --client-id and --client-secret');
        const issued = await t.call(create, {
          body: { client_id: env.clientId, client_secret: env.clientSecret },
          credential: { kind: 'none' },
        });
        if (!t.expect(issued, create, { status: contract.successStatus(create) })) return;
        const refreshToken = String(dataOf<Row>(issued).refresh_token);
        env.transport.options.redactor.add(refreshToken, 'CLS_REFRESH_TOKEN');
        env.transport.options.redactor.add(String(dataOf<Row>(issued).access_token), 'CLS_ACCESS_TOKEN');
        const renewed = await t.call(refresh, { body: { refresh_token: refreshToken }, credential: { kind: 'none' } });
        if (!t.expect(renewed, refresh, { status: contract.successStatus(refresh) })) return;
        const newToken = String(dataOf<Row>(renewed).access_token);
        env.transport.options.redactor.add(newToken, 'CLS_ACCESS_TOKEN');
        env.transport.options.redactor.add(String(dataOf<Row>(renewed).refresh_token), 'CLS_REFRESH_TOKEN');
        const reused = await t.call(refresh, { body: { refresh_token: refreshToken }, credential: { kind: 'none' } });
        t.expect(reused, refresh, {
          status: 401,
          code: refresh.responses['401']?.errorCodes ?? [],
          why: 'a refresh token works once',
        });
        const bearerOp = contract.operations.find(
          (o) => o.security.some((s) => t.isBearerScheme(s)) && o.method === 'get',
        );
        if (bearerOp) {
          const ok = await t.call(bearerOp, {
            query: validQuery(t, bearerOp, { optional: false }),
            credential: { kind: 'bearer', token: newToken, ref: 'CLS_ACCESS_TOKEN' },
          });
          t.expect(ok, bearerOp, {
            status: contract.successStatus(bearerOp),
            why: 'the refreshed access token is accepted',
          });
        }
      },
    });
  }

  if (has('listMcpTools')) {
    cases.push({
      id: 'workflows/mcp_tools',
      phase: 'workflows',
      title: 'The MCP tool list holds exactly the operations marked x-mcp-tool; a tool of another area is refused',
      operations: ['listMcpTools', 'callMcpTool'],
      writes: false,
      run: async (t) => {
        const listOp = t.op('listMcpTools');
        const ex = await t.call(listOp);
        if (!t.expect(ex, listOp, { status: contract.successStatus(listOp) })) return;
        const tools = dataOf<Array<{ name: string; operation_id: string; area: string }>>(ex) ?? [];
        const want = contract.operations
          .filter((o) => o.mcpTool)
          .map((o) => `${o.mcpTool}→${o.operationId}`)
          .sort();
        const got = tools.map((tool) => `${tool.name}→${tool.operation_id}`).sort();
        t.assert(
          isDeepStrictEqual(got, want),
          'expected_outcome',
          `the tools ${want.join(', ')}`,
          got.join(', '),
          ex,
          listOp,
        );
        const call = contract.findOperation('callMcpTool');
        if (!call) return;
        if (env.readOnly) {
          t.note('read-only run: tool calls (POST) not sent');
          return;
        }
        // A tool of an area the caller's key is not for: 403, like the wrapped operation.
        const tool =
          tools.find((x) => env.keys.some((k) => k.area !== x.area) && !env.keys.some((k) => k.area === x.area)) ??
          tools.find((x) => env.keys.some((k) => k.area !== x.area));
        const key = tool ? env.keys.find((k) => k.area !== tool.area) : undefined;
        if (tool && key) {
          const refused = await t.call(call, {
            path: { tool_name: tool.name },
            body: { arguments: {} },
            credential: key,
          });
          t.expect(refused, call, {
            status: contract.statusOf('AUTH_FORBIDDEN'),
            code: 'AUTH_FORBIDDEN',
            why: `a ${key.area} key calling the ${tool.area} tool ${tool.name}`,
          });
        }
        // No tool of that name: the negative phase's unknown resource of the tool call is the same request.
        const unknownTool = unknownResourceProof(t, call);
        const by = unknownTool ? t.provenBy(unknownTool) : undefined;
        if (by !== undefined) return t.covered(by, 'an unknown tool is not found');
        const toolParam = call.parameters.find((p) => p.in === 'path')!;
        const unknown = await t.call(call, {
          path: { [toolParam.name]: unknownValue(t, toolParam) },
          body: { arguments: {} },
          credential: env.keys[0] ?? t.skip('no API key'),
        });
        t.expect(unknown, call, {
          status: 404,
          code: contract.responseFor(call, 404)?.errorCodes ?? [],
          why: 'no tool of that name',
        });
      },
    });
  }
  cases.push(...codeCases(env));
  return cases;
}

/**
 * That an area taking an API key or a JWT takes its API key is one rule of the area's security, proven by one call
 * per area; undefined for an operation that does not take both.
 */
function withApiKeyProof(t: CaseContext, op: OperationInfo): string | undefined {
  const apiKey = op.security.filter((s) => t.isApiKeyScheme(s));
  if (apiKey.length === 0 || !op.security.some((s) => t.isBearerScheme(s))) return undefined;
  return `with_api_key:${op.area}:${apiKey.join(',')}`;
}

/** Every submitted field the record carries comes back with the value submitted (stock is not a product field). */
function submittedFieldsEqual(sent: Row, data: Row | undefined): boolean {
  if (!data) return false;
  return Object.entries(sent).every(([k, v]) => !(k in data) || isDeepStrictEqual(data[k], v));
}

/**
 * A row valid in format that the storage stage refuses: a repeat of a row already stored. Every bulk operation
 * fails such a row (DECISIONS G6: duplicate mall_order_no or option code; the draft example's third row).
 */
function storageFailure(stored: Row): Row {
  return { ...stored };
}

/**
 * Reads the rows back: the row registered once per run (the first) through the same record's read on an area the
 * run's JWT reads (the manager area: no monthly quota), where there is one; the others through the operation's own.
 */
async function readBack(t: CaseContext, target: BulkTarget, sent: Row[], results: Row[]): Promise<void> {
  const own = readOperation(t, target);
  if (!own) {
    t.note(`no read operation for ${target.op.operationId}: nothing read back`);
    return;
  }
  const byJwt = jwtRead(t, own.op);
  // Three reads are enough to show the rows were stored as sent.
  for (let i = 0; i < Math.min(sent.length, 3); i++) {
    const read = i === 0 && byJwt ? { op: byJwt, param: own.param } : own;
    const id = results[i]?.[read.param];
    if (typeof id !== 'string' || id === '') continue;
    const ex = await t.call(read.op, { path: { ...target.path, [read.param]: id } });
    if (
      !t.expect(ex, read.op, {
        status: t.contract.successStatus(read.op),
        check: 'read_back',
        why: `${read.param} ${id} was just created`,
      })
    )
      continue;
    const data = dataOf<Row>(ex);
    // A field the record's schema carries must come back as sent, the optional ones included: missing is changed.
    const carried = recordProperties(t, read.op);
    const diff = Object.entries(sent[i]!).filter(
      ([k, v]) => data && (k in data || carried.has(k)) && !isDeepStrictEqual(data[k], v),
    );
    t.assert(
      diff.length === 0,
      'read_back',
      `${read.param} ${id} to read back as submitted`,
      diff.map(([k]) => `${k}: ${JSON.stringify(data?.[k])} instead of ${JSON.stringify(sent[i]![k])}`).join('; '),
      ex,
      read.op,
    );
  }
}

/**
 * The read of the same record on another area that takes the run's JWT (`/v3/wms/orders/{order_no}` →
 * `/v3/manager/orders/{order_no}`), or undefined when there is none or the run has no client credentials.
 */
function jwtRead(t: CaseContext, read: OperationInfo): OperationInfo | undefined {
  if (!t.env.clientId || !t.env.clientSecret) return undefined;
  const segment = `/${read.area}/`;
  if (!read.path.includes(segment)) return undefined;
  return t.contract.operations.find(
    (o) =>
      o.method === 'get' &&
      o.area !== read.area &&
      o.security.some((s) => t.isBearerScheme(s)) &&
      read.path.replace(segment, `/${o.area}/`) === o.path,
  );
}

/** The properties of the record a read operation answers with (its success body's `data`). */
function recordProperties(t: CaseContext, op: OperationInfo): Set<string> {
  const body = t.contract.resolve(op.responses[String(t.contract.successStatus(op))]?.schema);
  const data = t.contract.resolve((body.properties as Record<string, JsonSchema> | undefined)?.data);
  return new Set(Object.keys((data.properties ?? {}) as Record<string, JsonSchema>));
}

/** Status codes the contract describes as shipped (`x-enumDescriptions` starting "Shipped"). */
function shippedStatusCodes(t: CaseContext): Array<number | string> {
  const out: Array<number | string> = [];
  for (const [value, description] of t.contract.enumDescriptions('OrderStatusCode')) {
    if (/^shipped\b/i.test(description)) out.push(value);
  }
  if (out.length === 0) t.skip('the contract describes no shipped order status');
  return out;
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
async function otherSellerJwt(t: CaseContext): Promise<BearerCredential | undefined> {
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
  env.otherBearer = { kind: 'bearer', token, ref: 'CLS_OTHER_ACCESS_TOKEN' };
  return env.otherBearer;
}
