// Integer query parameters are decimal digits only (info.x-limits.query_integer_syntax, spec/DECISIONS.md G23),
// on every operation of the contract that has one, over real HTTP: never 200 on `1e1` or `Infinity`, never 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, operations, resolvePointer, type OperationInfo, type ParameterInfo } from '@cls-api/spec';
import { LIMITS_OFF, startTestServer, type TestResponse, type TestServer } from '../support/server.js';

const OPEN = { ...LIMITS_OFF, TEST_KEY_MONTHLY_QUOTA: '1000000' };
const doc = loadSpec();
const SYNTAX = new RegExp((doc.info['x-limits'] as { query_integer_syntax: string }).query_integer_syntax, 'u');

/** A parameter's schema with its `$ref`s followed (the fields of the nearest node win). */
function resolved(schema: unknown): Record<string, unknown> {
  let node = schema as Record<string, unknown>;
  const merged: Record<string, unknown> = {};
  for (let i = 0; i < 16 && node; i++) {
    for (const [k, v] of Object.entries(node)) if (!(k in merged)) merged[k] = v;
    if (typeof node.$ref !== 'string') break;
    node = resolvePointer(doc, node.$ref) as Record<string, unknown>;
  }
  return merged;
}

const integerParams = (op: OperationInfo): ParameterInfo[] =>
  op.parameters.filter((p) => p.in === 'query' && resolved(p.schema).type === 'integer');
const withIntegers = operations(doc).filter((op) => integerParams(op).length > 0);
/** Operations whose success body is a page (`pagination` in the 200 schema). */
const paged = operations(doc).filter((op) => {
  const schema = resolved(op.responses['200']?.schema);
  return typeof schema.properties === 'object' && schema.properties !== null && 'pagination' in schema.properties;
});

// The values the rule names, plus their neighbours; each is written as it goes on the wire.
const BAD = [
  '1e1',
  'Infinity',
  '-Infinity',
  '1e309',
  '%2010',
  '10%20',
  '1.0',
  '0x10',
  '%2B1',
  '+1',
  '',
  '-1',
  'NaN',
  '1234567890',
  '१०',
  '1,0',
];

let s: TestServer;
let credentials: Record<string, { apiKey?: string; bearer?: string }>;
const codeOf = (r: TestResponse) => [r.status, r.body.error?.code];

beforeAll(async () => {
  s = await startTestServer({ env: OPEN });
  const seller = await s.account();
  const token = await s.token(seller);
  credentials = {
    wms: { apiKey: await s.key(seller, 'wms') },
    manager: { apiKey: await s.key(seller, 'manager') },
    cam: { apiKey: await s.key(seller, 'cam') },
    mcp: { apiKey: await s.key(seller, 'wms') },
    pay: { bearer: token },
  };
  await s.post(
    '/v3/wms/products',
    { product_code: 'Q-P', product_name: 'Paged', price: 1, stock_quantity: 10 },
    credentials.wms!,
  );
});
afterAll(() => s.close());

/** The operation's URL with every path parameter and every other required query parameter filled in. */
function url(op: OperationInfo, name: string, raw: string): string {
  const path = op.path.replace(/\{[^}]+\}/g, 'Q-P');
  const query = op.parameters
    .filter((p) => p.in === 'query' && p.required && p.name !== name)
    .map((p) => `${p.name}=${encodeURIComponent(String((resolved(p.schema).examples as unknown[] | undefined)?.[0]))}`);
  return `${path}?${[...query, `${name}=${raw}`].join('&')}`;
}

describe('integer query parameters', () => {
  it('every paged operation has integer query parameters (page, size)', () => {
    expect(paged.length).toBeGreaterThan(5);
    for (const op of paged)
      expect(
        integerParams(op).map((p) => p.name),
        op.operationId,
      ).toEqual(expect.arrayContaining(['page', 'size']));
  });

  it('anything but decimal digits is 400 INVALID_PARAMETER on every operation and parameter, never 200 or 500', async () => {
    let checked = 0;
    for (const op of withIntegers) {
      for (const p of integerParams(op)) {
        for (const raw of [...BAD, `1&${p.name}=2`]) {
          const r = await s.get(url(op, p.name, raw), credentials[op.area]!);
          expect(codeOf(r), `${op.operationId} ${p.name}=${raw}`).toEqual([400, 'INVALID_PARAMETER']);
          expect(r.body.error.message).toContain(p.name);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(paged.length * 2 * BAD.length);
  });

  it('digits are accepted, leading zeros included, and pagination never holds null', async () => {
    for (const op of paged) {
      for (const [page, size] of [
        ['1', '10'],
        ['001', '010'],
        ['999999999', '100'],
      ]) {
        expect(SYNTAX.test(page!) && SYNTAX.test(size!)).toBe(true);
        const r = await s.get(`${url(op, 'page', page!)}&size=${size}`, credentials[op.area]!);
        expect(r.status, `${op.operationId} page=${page} size=${size}`).toBe(200);
        expect(
          Object.values(r.body.pagination).every((v) => v !== null),
          op.operationId,
        ).toBe(true);
        expect(r.body.pagination).toMatchObject({ page: Number(page), size: Number(size) });
      }
    }
  });

  it('order_status_code takes any integer of that syntax: an unknown code is an empty page, not 400', async () => {
    const row = {
      mall_order_no: 'Q-1',
      mall_product_name: 'Paged',
      product_code: 'Q-P',
      quantity: 1,
      receiver_name: 'Kim',
      receiver_phone: '010-1111-2222',
      receiver_address: 'Seoul',
    };
    await s.post('/v3/wms/orders', { orders: [row] }, credentials.wms!);
    const byCode = async (code: string) => s.get(`/v3/wms/orders?order_status_code=${code}`, credentials.wms!);
    expect((await byCode('10')).body.data).toHaveLength(1);
    for (const code of ['55', '0', '999999999', '010']) {
      const r = await byCode(code);
      expect([r.status, r.body.data.length, r.body.pagination.total], code).toEqual([
        200,
        code === '010' ? 1 : 0,
        code === '010' ? 1 : 0,
      ]);
    }
  });
});
