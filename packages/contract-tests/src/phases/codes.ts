// The codes of the error catalogue that need the server driven somewhere no other case goes: an option that does not
// exist on a product that does (OPTION_NOT_FOUND), an order raised beyond its product's stock
// (INVENTORY_INSUFFICIENT), a return withdrawn right after its registration (RETURN_CANCEL_EXPIRED only past the
// deadline), and the deposit lookup that matches nothing (HTTP 200 with an empty array, not 404, as
// spec/paths/v3_pay_deposits.yaml says). Codes are named here because the rules name them; their statuses come from
// the catalogue. The codes a test key cannot reach are listed with the reason (`unreachableReason`), and the run's report
// lists every code of the catalogue as reached or not (report.ts, `errorCodes`).
import { isDeepStrictEqual } from 'node:util';
import { dataOf, errorCode, type CaseContext, type CaseDef, type RunEnv } from '../case.js';
import { storedRow, bulkTarget, checkBulkResponse, freshRows, send, type Row } from '../bulk.js';
import type { Contract } from '../contract.js';
import { createProductBody, ensureFixtureProduct } from '../fixtures.js';
import { draw } from '../generate.js';
import type { Exchange } from '../http.js';
import { unknownValue, validQuery } from '../inputs.js';
import { checkServiceTimes } from '../service-time.js';

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

/**
 * Why a test key cannot drive a server to `code`, or undefined when a case of the kit can. `probeLimits`: whether
 * the gateway probes run (they reach the gateway's 429).
 */
export function unreachableReason(
  contract: Contract,
  code: string,
  probeLimits: boolean,
  expiredToken = false,
): string | undefined {
  const deadline = contract.limits.returnWithdrawalDeadline;
  const hhmm = `${String(deadline.hour).padStart(2, '0')}:${String(deadline.minute).padStart(2, '0')}`;
  switch (code) {
    case 'AUTH_EXPIRED_TOKEN':
      return expiredToken
        ? undefined
        : "needs a JWT past its life (the token response's expires_in): set CLS_EXPIRED_TOKEN to one, e.g. the last run's (--save-token FILE; the CI recipes keep it in the CI cache)";
    case 'RETURN_CANCEL_EXPIRED':
      return `needs the service clock past ${hhmm} (${contract.serviceTimeZone}) after a return's registration: the kit cannot move the service clock, nor wait until then`;
    case 'INTERNAL_ERROR':
      return 'a correct server is never driven there: any 5xx the kit meets fails no_server_error';
    case 'RATE_LIMIT_EXCEEDED':
      return probeLimits
        ? undefined
        : 'needs a burst over the gateway limit (--probe-limits) or a used-up monthly quota';
    default:
      return undefined;
  }
}

export function codeCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  const mcpArea = contract.findOperation('listMcpTools')?.area;

  // An option code that names nothing, on the kit's own product: the option, not the product, is not found.
  for (const op of contract.operations) {
    if (op.area === mcpArea || !contract.documents(op, 'OPTION_NOT_FOUND')) continue;
    const params = op.parameters.filter((p) => p.in === 'path');
    if (!params.some((p) => p.name === 'product_code') || params.length !== 2) continue;
    cases.push({
      id: `workflows/codes/OPTION_NOT_FOUND/${op.operationId}`,
      phase: 'workflows',
      title: `${op.method.toUpperCase()} ${op.path} with the kit's product and an option it does not have: OPTION_NOT_FOUND`,
      operations: [op.operationId],
      writes: false,
      reaches: ['OPTION_NOT_FOUND'],
      run: async (t) => {
        const product = await ensureFixtureProduct(t);
        const path: Record<string, string> = {};
        for (const p of params) path[p.name] = p.name === 'product_code' ? product.product_code : unknownValue(t, p);
        const ex = await t.call(op, { path, query: validQuery(t, op, { optional: false }) });
        t.expect(ex, op, {
          status: contract.statusOf('OPTION_NOT_FOUND'),
          code: 'OPTION_NOT_FOUND',
          check: 'error_code_reached',
          why: `product ${product.product_code} exists and has no such option`,
        });
      },
    });
  }

  const update = contract.operations.find(
    (op) => op.method !== 'get' && op.requestBody && contract.documents(op, 'INVENTORY_INSUFFICIENT'),
  );
  const register = contract.findOperation('registerOrders');
  const readOrder = update
    ? contract.operations.find((op) => op.method === 'get' && op.path === update.path)
    : undefined;
  if (update && register && readOrder && contract.bulk(register)) {
    cases.push({
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
    });
  }

  // A return withdrawn at once after its registration. The source: "cancellable until 18:00", after which
  // RETURN_CANCEL_EXPIRED; a return registered before that time and withdrawn before it must be withdrawn. One
  // registered at or after it having a window until the next day's is our design (DECISIONS.md G13): refused then,
  // it is a departure. Either way the run meets RETURN_CANCEL_EXPIRED only when the clock is past the deadline.
  const cancel = contract.operations.find(
    (op) => op.method === 'post' && contract.documents(op, 'RETURN_CANCEL_EXPIRED'),
  );
  const registerReturn = cancel
    ? contract.operations.find((op) => op.method === 'post' && op.requestBody && cancel.path.startsWith(`${op.path}/{`))
    : undefined;
  const cancelParam = cancel?.parameters.find((p) => p.in === 'path');
  if (cancel && registerReturn && cancelParam && register && contract.bulk(register)) {
    cases.push({
      id: `workflows/codes/RETURN_CANCEL_EXPIRED/${cancel.operationId}`,
      phase: 'workflows',
      title: `${cancel.method.toUpperCase()} ${cancel.path} right after the return is registered: withdrawn while the window is open`,
      operations: [cancel.operationId, registerReturn.operationId],
      writes: true,
      reaches: ['RETURN_CANCEL_EXPIRED'],
      run: async (t) => {
        const target = await bulkTarget(t, register, contract.bulk(register)!);
        // The order registered once per run (bulk.ts, storedRow): the return is the only new record.
        const orderNo = (await storedRow(t, target)).result.order_no;
        if (typeof orderNo !== 'string' || orderNo === '') return;
        const body = {
          ...(draw(t.env.generator.valid(registerReturn.requestBody!.schema!), t.env.random) as Row),
          order_no: orderNo,
        };
        const registered = await t.call(registerReturn, { body });
        if (!t.expect(registered, registerReturn, { status: contract.successStatus(registerReturn) })) return;
        const ret = dataOf<Row>(registered);
        // registered_at is the now of the registration (cancellable_until is the window's end, hours later).
        checkServiceTimes(
          t,
          [{ record: { registered_at: ret?.registered_at }, where: 'the registered return' }],
          registered,
          registerReturn,
        );
        const returnNo = ret?.[cancelParam.name];
        if (typeof returnNo !== 'string') return;
        const time = contract.time;
        // Judged on the service's clock, never the kit's: the return's own registered_at (else the Date of the
        // answer that registered it) and the Date of the answer to the withdrawal. A run may start at any hour, and
        // the two clocks may differ by minutes across the deadline.
        const registeredAt =
          (typeof ret?.registered_at === 'string' ? time.parseDateTime(ret.registered_at) : undefined) ??
          serviceClock(registered, t);
        const { hour, minute } = contract.limits.returnWithdrawalDeadline;
        const deadline = time.atTimeOnDayOf(registeredAt, hour, minute);
        const withdrawn = await t.call(cancel, { path: { [cancelParam.name]: returnNo } });
        const answeredAt = serviceClock(withdrawn, t);
        const why = `return ${returnNo} registered at ${time.format(registeredAt)}, withdrawn at once`;
        const success = contract.successStatus(cancel);
        if (withdrawn.response.status === success || registeredAt < deadline) {
          if (registeredAt < deadline && answeredAt >= deadline && withdrawn.response.status !== success) {
            t.note(`${why}: the deadline ${time.format(deadline)} passed in between; not judged`);
            return;
          }
          t.expect(withdrawn, cancel, { status: success, why: `${why}, before ${time.format(deadline)}` });
          return;
        }
        const expired = contract.statusOf('RETURN_CANCEL_EXPIRED');
        if (withdrawn.response.status === expired && errorCode(withdrawn.response.json) === 'RETURN_CANCEL_EXPIRED') {
          t.depart(
            'expected_outcome',
            `HTTP ${success} (${why}, at or after the day's deadline ${time.format(deadline)}: open until the next day's)`,
            `HTTP ${expired} RETURN_CANCEL_EXPIRED`,
            'a return registered at or after the deadline time having a window until the next day is our design (DECISIONS.md G13); the source says "cancellable until 18:00" only',
            withdrawn,
            cancel,
          );
          return;
        }
        t.expect(withdrawn, cancel, { status: success, why });
      },
    });
  }

  // The deposit lookup (the JWT-only list whose 404 is not documented) over a day long past: nothing matches.
  const deposits = contract.findOperation('listDeposits');
  if (deposits && !contract.responseFor(deposits, 404)) {
    cases.push({
      id: 'workflows/codes/no_match_is_empty/listDeposits',
      phase: 'workflows',
      title: `${deposits.method.toUpperCase()} ${deposits.path} matching nothing: HTTP 200 with data an empty array, not 404`,
      operations: [deposits.operationId],
      writes: false,
      run: async (t) => {
        const query = validQuery(t, deposits, { optional: false });
        for (const p of deposits.parameters) {
          if (p.in === 'query' && t.contract.resolve(p.schema).format === 'date') query[p.name] = '2000-01-03';
        }
        const ex = await t.call(deposits, { query });
        if (
          !t.expect(ex, deposits, {
            status: contract.successStatus(deposits),
            why: 'a lookup that matches nothing is HTTP 200, not 404 (the source: use the array length)',
          })
        )
          return;
        const data = dataOf<unknown[]>(ex);
        t.assert(
          Array.isArray(data) && data.length === 0,
          'expected_outcome',
          'data an empty array (no deposit on 2000-01-03)',
          JSON.stringify(data)?.slice(0, 200) ?? 'no data',
          ex,
          deposits,
        );
      },
    });
  }
  return cases;
}

/** The `exp` claim (seconds) of a JWT, read without checking its signature; undefined when it has none. */
export function tokenExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The service's clock when it answered (seconds): the answer's `Date` header (RFC 9110 has an origin server send
 * it), else the kit's own clock, said in a note.
 */
function serviceClock(exchange: Exchange, t: CaseContext): number {
  const date = exchange.response.headers.date;
  const at = typeof date === 'string' ? Date.parse(date) : Number.NaN;
  if (Number.isFinite(at)) return Math.floor(at / 1000);
  t.note("the answer has no Date header: the kit's own clock stands in for the service's");
  return Math.floor(t.env.now() / 1000);
}
