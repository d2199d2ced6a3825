// Shared by the domain tests: a fresh database of an engine (SQLite in memory, or a new PostgreSQL database) with
// every migration, the domain on it, and calls that
// go through the contract the way the framework does (defaults filled, input checked) with every success body
// validated against the operation's 200 schema and every error code checked against the operation's list.

import { expect } from 'vitest';
import type { HandlerInput, HandlerResult, KeyArea } from '@cls-api/server';
import {
  contractModel,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
  loadDereferencedSpec,
  operations,
} from '@cls-api/spec';
import type { Environment, RequestContext } from '../../src/environment.js';
import { ApiError } from '../../src/errors.js';
import { createDomain, type Domain, type DomainHandlers, type DomainStore } from '../../src/domain/index.js';
import type { Param } from '../../src/store/sql.js';
import type { SqlStorage } from '../../src/store/storage.js';
import { type EngineName, openTestStorage } from '../support/engines.js';

export { ENGINES, type EngineName } from '../support/engines.js';

export const TIME_ZONE = 'Asia/Seoul';
export const SELLER_A = 'acc_seller_a';
export const SELLER_B = 'acc_seller_b';

export const spec: OpenApiDocument = loadDereferencedSpec();
const ops = new Map<string, OperationInfo>(operations(spec).map((op) => [op.operationId, op]));

export function operation(operationId: string): OperationInfo {
  const op = ops.get(operationId);
  if (!op) throw new Error(`no operation ${operationId} in the contract`);
  return op;
}

// The contract model's full validator: the repository's one Ajv configuration (`@cls-api/spec`).
const validator = contractModel().validator();

/** Ajv's errors of `value` against `schema`, as text; [] when it conforms. */
export function schemaErrors(schema: unknown, value: unknown): string[] {
  return validator
    .errors(schema as JsonSchema, value)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** Fails unless `{success: true, ...result}` is a valid 200 body of the operation. */
export function expectConforms(operationId: string, result: unknown): void {
  const schema = operation(operationId).responses['200']?.schema;
  if (!schema) throw new Error(`${operationId} has no 200 schema`);
  const body = { success: true, ...(result as object) };
  expect(schemaErrors(schema, body), `${operationId} 200 body drifts from the contract`).toEqual([]);
}

export interface Harness {
  engine: EngineName;
  storage: SqlStorage;
  domain: Domain;
  handlers: DomainHandlers;
  /** A statement straight on the database (`?` parameters on both engines): rows no operation writes. */
  sql(statement: string, ...params: Param[]): Promise<number>;
}

const open: Harness[] = [];

/** A fresh database of the engine with the domain on it; `closeDomains` (after each test) closes it. */
export async function freshDomain(engine: EngineName, options: { spec?: OpenApiDocument } = {}): Promise<Harness> {
  const storage = await openTestStorage(engine);
  try {
    const domain = createDomain(storage.domain, { timeZone: TIME_ZONE, ...options });
    const h: Harness = {
      engine,
      storage,
      domain,
      handlers: domain.handlers,
      sql: (statement, ...params) => storage.sql.run(statement, params),
    };
    open.push(h);
    return h;
  } catch (err) {
    await storage.close();
    throw err;
  }
}

export async function closeDomains(): Promise<void> {
  for (const h of open.splice(0)) await h.storage.close();
}

export function domainOnStore(store: DomainStore): Domain {
  return createDomain(store, { timeZone: TIME_ZONE });
}

/** A request context at an instant given in UTC (`2026-11-20T01:00:00Z` is 10:00 in Seoul), test data unless told. */
export function ctx(
  accountId: string,
  nowUtc: string,
  keyArea: KeyArea | null = 'wms',
  environment: Environment = 'test',
): RequestContext {
  const area = keyArea ?? 'pay';
  return { accountId, environment, area, keyArea, now: new Date(nowUtc), log: { info() {}, error() {} } };
}

type Op = keyof DomainHandlers;
type LooseInput<K extends Op> = {
  params?: HandlerInput<K>['params'];
  query?: Partial<HandlerInput<K>['query']>;
  body?: HandlerInput<K>['body'];
};

/** The query with the contract's parameter defaults filled in, as the framework's request validator does. */
function withDefaults(op: OperationInfo, query: Record<string, unknown>): Record<string, unknown> {
  const out = { ...query };
  for (const p of op.parameters) {
    const fallback = (p.schema as { default?: unknown } | undefined)?.default;
    if (p.in === 'query' && out[p.name] === undefined && fallback !== undefined) out[p.name] = fallback;
  }
  return out;
}

/** Checks the test's own input against the contract, so a test never feeds a handler what validation would stop. */
function expectValidInput(
  op: OperationInfo,
  input: { params: Record<string, unknown>; query: Record<string, unknown>; body: unknown },
): void {
  for (const p of op.parameters) {
    const source = p.in === 'path' ? input.params : p.in === 'query' ? input.query : undefined;
    if (!source) continue;
    const value = source[p.name];
    if (value === undefined) {
      expect(p.required, `${op.operationId}: test omits required ${p.name}`).toBe(false);
      continue;
    }
    expect(schemaErrors(p.schema, value), `${op.operationId}: test passes an invalid ${p.name}`).toEqual([]);
  }
  if (op.requestBody?.schema) {
    expect(schemaErrors(op.requestBody.schema, input.body), `${op.operationId}: test passes an invalid body`).toEqual(
      [],
    );
  }
}

/** Calls a handler as the framework would, and checks the success body against the contract. */
export async function call<K extends Op>(
  h: Harness | Domain,
  operationId: K,
  input: LooseInput<K>,
  context: RequestContext,
): Promise<HandlerResult<K>> {
  const handlers = 'handlers' in h ? h.handlers : (h as Harness).handlers;
  const op = operation(operationId);
  const full = {
    params: (input.params ?? {}) as Record<string, unknown>,
    query: withDefaults(op, (input.query ?? {}) as Record<string, unknown>),
    body: input.body,
  };
  expectValidInput(op, full);
  const handler = handlers[operationId] as unknown as (i: unknown, c: RequestContext) => Promise<HandlerResult<K>>;
  const result = await handler(full, context);
  expectConforms(operationId, result);
  return result;
}

/** Every error code an operation documents, over all its error responses. */
export function documentedCodes(operationId: string): string[] {
  return Object.values(operation(operationId).responses).flatMap((r) => r.errorCodes);
}

/** Expects the call to fail with `code`, and the operation to document that code. */
export async function expectApiError(operationId: string, promise: Promise<unknown>, code: string): Promise<ApiError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  expect(caught, `${operationId} should fail with ${code}`).toBeInstanceOf(ApiError);
  const err = caught as ApiError;
  expect(err.code).toBe(code);
  expect(err.message.length).toBeGreaterThan(0);
  expect(documentedCodes(operationId), `${operationId} does not document ${code}`).toContain(code);
  return err;
}

// ---------------------------------------------------------------------------------------------------------------
// Fixtures

export const NOW = '2026-11-20T01:00:00Z'; // 10:00:00 in Seoul

type OrderRow = HandlerInput<'registerOrders'>['body']['orders'][number];

export function orderRow(overrides: Partial<OrderRow> = {}): OrderRow {
  return {
    mall_order_no: 'MALL-1',
    mall_product_name: 'Linen shirt, white',
    product_code: 'SHIRT',
    quantity: 1,
    receiver_name: 'Kim Minji',
    receiver_phone: '010-1234-5678',
    receiver_address: '12 Teheran-ro, Gangnam-gu, Seoul',
    ...overrides,
  };
}

/** A product `code` with its own stock and options `[code, stock]`. */
export async function product(
  h: Harness,
  accountId: string,
  code: string,
  stock: number,
  options: Array<[string, number]> = [],
  now = NOW,
): Promise<void> {
  await call(
    h,
    'createProduct',
    { body: { product_code: code, product_name: `Product ${code}`, price: 10000, stock_quantity: stock } },
    ctx(accountId, now),
  );
  if (options.length > 0) {
    const added = await call(
      h,
      'addProductOptions',
      {
        params: { product_code: code },
        body: {
          options: options.map(([option_code, stock_quantity]) => ({
            option_code,
            option_name: option_code,
            stock_quantity,
          })),
        },
      },
      ctx(accountId, now),
    );
    expect(added.data.failed_count).toBe(0);
  }
}

/** The free stock of a product's own row (`optionCode` null) or of an option. */
export async function stockOf(
  h: Harness,
  accountId: string,
  productCode: string,
  optionCode: string | null,
): Promise<number> {
  const page = await call(h, 'listInventory', { query: { product_code: productCode, size: 100 } }, ctx(accountId, NOW));
  const row = page.data.find((s) => s.option_code === optionCode);
  if (!row) throw new Error(`no stock row ${productCode}/${optionCode}`);
  return row.quantity;
}

/** Registers one order and returns its number. */
export async function registerOne(h: Harness, accountId: string, row: OrderRow, now = NOW): Promise<string> {
  const result = await call(h, 'registerOrders', { body: { orders: [row] } }, ctx(accountId, now));
  const first = result.data.results[0]!;
  expect(first.success, first.result_message).toBe(true);
  return first.order_no;
}

export async function count(h: Harness, table: string): Promise<number> {
  return (await h.storage.sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n ?? 0;
}

/**
 * The store as a concurrent instance sees it: inside a transaction, the look-ups by mall_order_no find nothing (the
 * other instance's row is not committed yet), so only the unique key can stop the second row.
 */
export function blindToMallOrderNos(store: DomainStore): DomainStore {
  return {
    ...bindAll(store),
    transaction: (work) =>
      store.transaction((tx) =>
        work({
          ...bindAll(tx),
          orderMallOrderNos: async () => new Set<string>(),
          draftMallOrderNos: async () => new Set<string>(),
        }),
      ),
  };
}

/** The store with every call a transaction makes on it counted by method name, in `calls`. */
export function countingStore(store: DomainStore): { store: DomainStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const counted = <T extends object>(target: T): T => {
    const out = bindAll(target) as Record<string, unknown>;
    for (const [name, fn] of Object.entries(out)) {
      out[name] = (...args: unknown[]) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        return (fn as (...a: unknown[]) => unknown)(...args);
      };
    }
    return out as T;
  };
  return {
    store: { ...bindAll(store), transaction: (work) => store.transaction((tx) => work(counted(tx))) },
    calls,
  };
}

/** Every method of an object (its class's included) bound to it, as an own property. */
function bindAll<T extends object>(target: T): T {
  const out: Record<string, unknown> = {};
  for (let proto: object | null = target; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = (target as Record<string, unknown>)[name];
      if (name !== 'constructor' && typeof value === 'function' && !(name in out))
        out[name] = (value as (...a: unknown[]) => unknown).bind(target);
    }
  }
  return out as T;
}
