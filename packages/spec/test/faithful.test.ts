// Contract 3.1: the contract says exactly what the service's own interface description says, and where it is open
// it stays open. Each block names the rule it holds; spec/DECISIONS.md ("Changes in 3.1") gives the reasons.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
  KNOWN_VALUES_KEYWORD,
  isProvisional,
  operations,
  provisionalSchemaNodes,
  relaxProvisional,
} from '../src/index.js';
import { type SchemaValidator, loadBuiltSpec, propertyOf, schemaOf, schemaValidator } from './support.js';

let doc: OpenApiDocument;
let relaxed: OpenApiDocument;
let ops: OperationInfo[];
let strict: SchemaValidator;
let lenient: SchemaValidator;

beforeAll(() => {
  doc = loadBuiltSpec();
  relaxed = relaxProvisional(doc);
  ops = operations(doc);
  strict = schemaValidator(doc);
  lenient = schemaValidator(relaxed);
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const operation = (id: string) => {
  const op = ops.find((o) => o.operationId === id);
  if (!op) throw new Error(`no operation ${id}`);
  return op;
};
/** The schema of one result row of a bulk operation's 200 (`data.<rows>.items`). */
const rowOf = (operationId: string, rows: string): JsonSchema => {
  const data = propertyOf(doc, operation(operationId).responses['200']!.schema, 'data');
  return propertyOf(doc, data, rows)!.items as JsonSchema;
};

describe('per-row results, as the source states them', () => {
  const NOW = '2026-11-20 14:03:12';
  const draft = (o: Record<string, unknown>) => ({
    mall_order_no: 'MALL-1',
    mall_product_name: 'Linen shirt',
    draft_id: 'DRF-1',
    status: 'open',
    created_at: NOW,
    success: true,
    result_message: '',
    ...o,
  });
  const failed = {
    draft_id: '',
    created_at: '',
    success: false,
    result_message: 'mall_order_no MALL-1 is already registered',
  };

  it('a draft row is a success or a failure, never a mix', () => {
    const row = rowOf('registerDraftOrders', 'drafts');
    expect(strict.errors(row, draft({}))).toEqual([]);
    expect(strict.errors(row, draft({ ...failed, status: '' }))).toEqual([]);
    const mixes: Record<string, Record<string, unknown>> = {
      'success with an empty draft_id': { draft_id: '' },
      'success with an empty created_at': { created_at: '' },
      'success with a result_message': { result_message: 'Registered.' },
      'success with an empty status': { status: '' },
      'failure with a draft_id': { ...failed, draft_id: 'DRF-1' },
      'failure with a created_at': { ...failed, created_at: NOW },
      'failure with an empty result_message': { ...failed, result_message: '' },
    };
    for (const [name, o] of Object.entries(mixes)) {
      expect(strict.errors(row, draft(o)), name).not.toEqual([]);
      // The draft row's shapes are the source's: relaxing our designs does not let a mix through.
      expect(lenient.errors(row, draft(o)), `${name} (relaxed)`).not.toEqual([]);
    }
  });

  it('the order and option rows have the same two shapes (designed, G26), and always carry success and result_message', () => {
    const order = rowOf('registerOrders', 'results');
    const option = rowOf('addProductOptions', 'options');
    const orderRow = {
      mall_order_no: 'M-1',
      mall_product_name: 'Shirt',
      order_no: 'ORD-1',
      created_at: NOW,
      success: true,
      result_message: '',
    };
    const optionRow = {
      option_code: 'WHITE-M',
      option_name: 'White / M',
      created_at: NOW,
      success: true,
      result_message: '',
    };
    expect(strict.errors(order, orderRow)).toEqual([]);
    expect(
      strict.errors(order, {
        ...orderRow,
        order_no: '',
        created_at: '',
        success: false,
        result_message: 'Out of stock.',
      }),
    ).toEqual([]);
    expect(strict.errors(order, { ...orderRow, order_no: '' })).not.toEqual([]);
    expect(strict.errors(order, { ...orderRow, success: false })).not.toEqual([]);
    expect(strict.errors(option, optionRow)).toEqual([]);
    expect(
      strict.errors(option, { ...optionRow, created_at: '', success: false, result_message: 'Duplicate option code.' }),
    ).toEqual([]);
    expect(strict.errors(option, { ...optionRow, created_at: '' })).not.toEqual([]);
    // Designed shapes relax; the source's "each row carries success and result_message" does not.
    expect(lenient.errors(order, { ...orderRow, order_no: '' })).toEqual([]);
    for (const [row, value] of [
      [order, orderRow],
      [option, optionRow],
    ] as const) {
      const { success: _s, ...noSuccess } = value;
      const { result_message: _m, ...noMessage } = value;
      expect(lenient.errors(row, noSuccess)).not.toEqual([]);
      expect(lenient.errors(row, noMessage)).not.toEqual([]);
      expect(lenient.errors(row, { ...value, success: 'yes' })).not.toEqual([]);
    }
  });
});

describe('codes by meaning', () => {
  it('an update that names no field is 400 REQUIRED_PARAMETER, as a missing required item is everywhere', () => {
    const op = operation('updateWmsOrder');
    expect(op.responses['400']?.errorCodes).toContain('REQUIRED_PARAMETER');
    expect(strict.errors(op.requestBody!.schema, {})).not.toEqual([]);
    const raw = (doc.paths!['/v3/wms/orders/{order_no}'] as Record<string, any>).patch.requestBody;
    const invalid = Object.values<any>(raw['x-invalid-examples']).find((e) => JSON.stringify(e.value) === '{}');
    expect(invalid?.expected).toEqual({ status: 400, code: 'REQUIRED_PARAMETER' });
  });
});

describe('YYYY-MM-DD HH:MM:SS is a time', () => {
  const notTimes = [
    '2026-02-29 00:00:00',
    '2026-13-01 25:00:00',
    '2026-04-31 10:00:00',
    '2100-02-29 12:00:00',
    '2026-00-10 10:00:00',
    '2026-11-20 24:00:00',
    '2026-11-20 23:60:00',
    '2026-11-20T14:03:12',
  ];
  const times = [
    '2028-02-29 23:59:59',
    '2000-02-29 00:00:00',
    '2026-12-31 23:59:59',
    '2026-01-01 00:00:00',
    '2026-04-30 18:00:00',
  ];

  it('DateTime accepts real times and refuses strings that are no time', () => {
    for (const t of times) expect(strict.errors(ref('DateTime'), t), t).toEqual([]);
    for (const t of notTimes) expect(strict.errors(ref('DateTime'), t), t).not.toEqual([]);
  });

  it('Date accepts real dates only', () => {
    for (const t of times) expect(strict.errors(ref('CalendarDate'), t.slice(0, 10)), t).toEqual([]);
    for (const t of ['2026-02-29', '2026-02-30', '2026-13-01', '2100-02-29', '2026-06-31']) {
      expect(strict.errors(ref('CalendarDate'), t), t).not.toEqual([]);
    }
  });

  it('DateTime refuses the empty string (a failed result row says so with its own empty branch)', () => {
    expect(strict.errors(ref('DateTime'), '')).not.toEqual([]);
  });
});

describe('where the source is silent, the contract stays open', () => {
  it('draft status is a string whose known value is open: an unknown status is valid', () => {
    for (const name of ['DraftResult', 'DraftOrder']) {
      const status = propertyOf(doc, ref(name), 'status')!;
      expect(status.enum, name).toBeUndefined();
      expect(status[KNOWN_VALUES_KEYWORD], name).toContain('open');
    }
    const row = rowOf('registerDraftOrders', 'drafts');
    const ok = {
      mall_order_no: 'M',
      mall_product_name: 'P',
      draft_id: 'D',
      created_at: '2026-11-20 14:03:12',
      success: true,
      result_message: '',
    };
    expect(strict.errors(row, { ...ok, status: 'confirmed' })).toEqual([]);
  });

  it('order_status_code is any integer; its known values are listed, not enforced', () => {
    const code = schemaOf(doc, ref('OrderStatusCode'));
    expect(code.enum).toBeUndefined();
    expect(code[KNOWN_VALUES_KEYWORD]).toEqual(expect.arrayContaining([10, 20, 30, 40, 90]));
    expect(strict.errors(ref('OrderStatusCode'), 12345)).toEqual([]);
    expect(strict.errors(ref('OrderStatusCode'), 15)).toEqual([]);
    expect(strict.errors(ref('OrderStatusCode'), '10')).not.toEqual([]);
  });

  it('every enum or const is the envelope, the catalogue or a provisional design', () => {
    const wrong: string[] = [];
    const visit = (node: unknown, where: string, underProvisional: boolean): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const [i, n] of node.entries()) visit(n, `${where}[${i}]`, underProvisional);
        return;
      }
      const provisional = underProvisional || isProvisional(node);
      const n = node as JsonSchema;
      for (const key of ['enum', 'const'] as const) {
        if (n[key] === undefined || provisional) continue;
        // The envelope's `success` (true/false), the ErrorCode catalogue, and the draft row's two shapes (the
        // source's: `draft_id`, `created_at` and `result_message` empty on one side).
        if (/\.success$|^ErrorCode\b|^DraftResult\.oneOf\[[01]\]\.(draft_id|created_at|result_message)$/.test(where))
          continue;
        wrong.push(`${where}: ${key} ${JSON.stringify(n[key])}`);
      }
      for (const [k, v] of Object.entries(n)) {
        if (k === 'examples' || k === 'example' || k.startsWith('x-')) continue;
        if (k === 'properties' && v && typeof v === 'object') {
          for (const [p, sub] of Object.entries(v)) visit(sub, `${where}.${p}`, provisional);
        } else visit(v, `${where}.${k}`, provisional);
      }
    };
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) visit(schema, name, false);
    expect(wrong).toEqual([]);
  });
});

describe('identifiers the source shows only as placeholders', () => {
  const IDENTIFIERS = [
    'ProductCode',
    'OptionCode',
    'OrderNo',
    'DraftId',
    'ReturnNo',
    'InvoiceNo',
    'SupplierCode',
    'MallOrderNo',
  ];
  const sellersCodes = [
    'SKU.001',
    '셔츠-01',
    'A/B 01',
    'x',
    'ORD-20261120-0001',
    '612345678901',
    'a'.repeat(100),
    '50% off #1?',
  ];
  const never = ['', 'a\u0000b', 'line\nbreak', 'tab\there', 'del\u007f', 'c1\u0085'];

  it.each(IDENTIFIERS)("%s is a provisional Identifier: sellers' real codes are valid", (name) => {
    expect(schemaOf(doc, ref(name)).title).toBe('Identifier');
    expect(isProvisional(schemaOf(doc, ref(name)))).toBe(true);
    for (const v of sellersCodes) expect(strict.errors(ref(name), v), v).toEqual([]);
    for (const v of never) expect(strict.errors(ref(name), v), JSON.stringify(v)).not.toEqual([]);
  });

  it('a wholly designed record relaxes inside too: a Return status we did not design departs only from the design', () => {
    const ret = {
      return_no: 'RET-1',
      order_no: 'ORD-1',
      reason: 'Too small',
      status: 'received',
      registered_at: '2026-11-20 10:00:00',
      cancellable_until: '2026-11-20 18:00:00',
      withdrawn_at: null,
    };
    expect(strict.errors(ref('Return'), ret)).not.toEqual([]);
    expect(lenient.errors(ref('Return'), ret)).toEqual([]);
    expect(lenient.errors(ref('Return'), { ...ret, registered_at: '2026-02-30 10:00:00' })).not.toEqual([]);
  });

  it('the length bound is a design: a longer code departs only from it', () => {
    const long = 'a'.repeat(101);
    expect(strict.errors(ref('ProductCode'), long)).not.toEqual([]);
    expect(lenient.errors(ref('ProductCode'), long)).toEqual([]);
    // Relaxing keeps the type the source shows.
    expect(lenient.errors(ref('ProductCode'), 42)).not.toEqual([]);
  });

  it('an unknown product code in a path is 404 PRODUCT_NOT_FOUND wherever a product code is a path parameter', () => {
    const withProduct = ops.filter((op) => op.parameters.some((p) => p.in === 'path' && p.name === 'product_code'));
    expect(withProduct.length).toBeGreaterThan(3);
    for (const op of withProduct)
      expect(op.responses['404']?.errorCodes, op.operationId).toContain('PRODUCT_NOT_FOUND');
  });
});

describe('designed constraints are marked, and only they relax', () => {
  it('every provisional node names a design: relaxing it changes what the schema accepts', () => {
    const nodes = provisionalSchemaNodes(doc);
    expect(nodes.size).toBeGreaterThan(40);
    for (const name of [
      'Identifier',
      'Pagination.size',
      'DraftStatus',
      'ManagerOrderListResponse.data',
      'MallProductName',
    ]) {
      expect(nodes.has(name), name).toBe(true);
    }
  });

  it("the draft body's 1,000-row limit is the source's: relaxing our designs keeps it", () => {
    const body = operation('registerDraftOrders').requestBody!.schema;
    const row = {
      mall_order_no: 'M',
      mall_product_name: 'P',
      product_code: 'SKU.001',
      quantity: 1,
      receiver_name: 'K',
      receiver_phone: '010-1234-5678',
      receiver_address: 'Seoul',
    };
    expect(lenient.errors(body, { orders: Array.from({ length: 1000 }, () => row) })).toEqual([]);
    expect(lenient.errors(body, { orders: Array.from({ length: 1001 }, () => row) })).not.toEqual([]);
    // The designed "at least one row" relaxes.
    expect(strict.errors(body, { orders: [] })).not.toEqual([]);
    expect(lenient.errors(body, { orders: [] })).toEqual([]);
  });

  it('the source-shown shapes keep every constraint under relaxation: envelope, pagination fields, draft row', () => {
    const page = {
      success: true,
      data: [],
      pagination: { page: 1, size: 10, total: 0, total_pages: 0, has_next: false },
    };
    const list = operation('listManagerOrders').responses['200']!.schema;
    expect(lenient.errors(list, page)).toEqual([]);
    expect(lenient.errors(list, { ...page, success: false })).not.toEqual([]);
    const { has_next: _h, ...noHasNext } = page.pagination;
    expect(lenient.errors(list, { ...page, pagination: noHasNext })).not.toEqual([]);
    expect(lenient.errors(list, { ...page, pagination: { ...page.pagination, total: null } })).not.toEqual([]);
    // A page of 101 items departs from the designed page bound only.
    const item = {
      order_no: 'ORD-1',
      mall_product_name: 'Shirt',
      order_status_code: 10,
      registered_date: '2026-11-20 09:12:45',
    };
    const big = {
      ...page,
      data: Array.from({ length: 101 }, () => item),
      pagination: { page: 1, size: 200, total: 101, total_pages: 1, has_next: false },
    };
    expect(strict.errors(list, big)).not.toEqual([]);
    expect(lenient.errors(list, big)).toEqual([]);
  });
});

describe('integer query parameters are integers', () => {
  const limits = () => doc.info['x-limits'] as Record<string, unknown>;

  it('the spec states the accepted syntax once, in info.x-limits.query_integer_syntax', () => {
    const syntax = new RegExp(limits().query_integer_syntax as string);
    for (const ok of ['1', '10', '100', '010', '999999999']) expect(syntax.test(ok), ok).toBe(true);
    for (const bad of [
      '1e1',
      'Infinity',
      '-Infinity',
      '1e309',
      ' 10',
      '1.0',
      '0x10',
      '+1',
      '-1',
      '',
      '1000000000',
      '１',
    ]) {
      expect(syntax.test(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('every integer query parameter bounds its schema to what the syntax can write: a tool reading only the schema sees them', () => {
    const syntax = new RegExp(limits().query_integer_syntax as string, 'u');
    // The syntax writes no sign, and at most `digits` digits.
    expect(syntax.test('-1')).toBe(false);
    let digits = 0;
    while (digits < 20 && syntax.test('9'.repeat(digits + 1))) digits += 1;
    expect(digits).toBeGreaterThan(0);
    const integers = ops.flatMap((op) =>
      op.parameters
        .filter((p) => p.in === 'query' && schemaOf(doc, p.schema).type === 'integer')
        .map((p) => ({ at: `${op.operationId}.${p.name}`, schema: schemaOf(doc, p.schema) })),
    );
    expect(integers.map((i) => i.at)).toEqual(expect.arrayContaining(['listWmsOrders.order_status_code']));
    // The bound a validator applies: the node's own and those of its allOf members (a designed bound may sit in a
    // nested x-provisional node beside the source's, as page's does).
    const bound = (schema: Record<string, unknown>, key: 'minimum' | 'maximum') => {
      const all = [schema, ...((schema.allOf as Array<Record<string, unknown>> | undefined) ?? [])]
        .map((s) => s[key])
        .filter((v): v is number => typeof v === 'number');
      return all.length === 0 ? undefined : key === 'minimum' ? Math.max(...all) : Math.min(...all);
    };
    const unbounded = integers
      .filter(
        ({ schema }) =>
          !(
            (bound(schema, 'minimum') ?? -1) >= 0 &&
            (bound(schema, 'maximum') ?? Number.POSITIVE_INFINITY) <= 10 ** digits - 1
          ),
      )
      .map(({ at, schema }) => `${at}: ${bound(schema, 'minimum')} to ${bound(schema, 'maximum')}`);
    expect(unbounded).toEqual([]);
  });

  it('every list operation documents 400 INVALID_PARAMETER for it, and page and size say so', () => {
    const lists = ops.filter((op) => op.parameters.some((p) => p.in === 'query' && p.name === 'page'));
    expect(lists.length).toBeGreaterThanOrEqual(7);
    for (const op of lists) expect(op.responses['400']?.errorCodes, op.operationId).toContain('INVALID_PARAMETER');
    for (const name of ['Page', 'Size']) {
      // Said to the reader in words (the rule's name, info.x-limits.query_integer_syntax, is for authors).
      const description = String(doc.components!.parameters![name]!.description ?? '');
      expect(description).toContain('decimal digits only');
      expect(description).toContain('INVALID_PARAMETER');
    }
  });
});

describe('test and live are separate data; the return window', () => {
  it('the token response names its environment', () => {
    const token = schemaOf(doc, ref('Token'));
    expect(token.required).toContain('environment');
    expect(propertyOf(doc, ref('Token'), 'environment')!.enum).toEqual(['test', 'live']);
  });

  it('the withdrawal deadline is one time of day in x-limits, and the Return schema explains the next-day rule', () => {
    expect((doc.info['x-limits'] as Record<string, unknown>).return_withdrawal_deadline).toBe('18:00');
    const until = String(
      (schemaOf(doc, ref('Return')).properties as Record<string, JsonSchema>).cancellable_until!.description ?? '',
    );
    expect(until).toMatch(/first 18:00:00 after/);
  });
});

describe('links and version', () => {
  it('create and register operations link to the reads of what they created (at least five)', () => {
    const links: string[] = [];
    const wrong: string[] = [];
    for (const op of ops) {
      const raw = (doc.paths![op.path] as Record<string, any>)[op.method].responses['200'];
      for (const [name, link] of Object.entries<any>(raw?.links ?? {})) {
        links.push(`${op.operationId} → ${name}`);
        const target = ops.find((o) => o.operationId === link.operationId);
        if (!target) wrong.push(`${op.operationId}.${name}: no operation ${link.operationId}`);
        for (const param of Object.keys(link.parameters ?? {})) {
          if (!target?.parameters.some((p) => p.name === param))
            wrong.push(`${op.operationId}.${name}: ${link.operationId} takes no ${param}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(links.length).toBeGreaterThanOrEqual(5);
  });

  it('info.version is 3.1.0, and so is every package of the repo', () => {
    expect(doc.info.version).toBe('3.1.0');
    const root = resolve(import.meta.dirname, '../../..');
    for (const dir of [
      'packages/spec',
      'packages/client',
      'packages/server',
      'packages/contract-tests',
      'apps/reference',
      'apps/docs',
      'apps/mock',
      'apps/bench',
    ]) {
      const pkg = JSON.parse(readFileSync(resolve(root, dir, 'package.json'), 'utf8')) as { version: string };
      expect(pkg.version, dir).toBe(doc.info.version);
    }
  });
});
