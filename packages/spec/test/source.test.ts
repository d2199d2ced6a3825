// The bundled contract (dist/openapi.json) against the service's own interface description (outside this repository).
// The expectations below are copied from that description, not read from the contract: a test here fails when
// the contract stops saying what the source says.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ExampleObject,
  type HeaderObject,
  type JsonSchema,
  type MediaTypeObject,
  type OpenApiDocument,
  type OperationInfo,
  type ParameterObject,
  type Reference,
  type RequestBodyObject,
  type ResponseObject,
  deref,
  errorCatalog,
  HTTP_METHODS,
  operations,
} from '../src/index.js';
import {
  type SchemaValidator,
  isReference,
  loadBuiltSpec,
  propertyNames,
  propertyOf,
  requiredOf,
  schemaOf,
  schemaValidator,
  typeOf,
} from './support.js';

// --- The source's tables ------------------------------------------------------------------------------------

// "Errors": authentication, common and domain tables. Codes without an area column apply to every area; DUPLICATE's
// meaning says "Warehouse area only".
const SOURCE_ERRORS: ReadonlyArray<{ code: string; status: number; areas: 'all' | string[] }> = [
  { code: 'AUTH_MISSING_TOKEN', status: 401, areas: 'all' },
  { code: 'AUTH_INVALID_TOKEN', status: 401, areas: 'all' },
  { code: 'AUTH_EXPIRED_TOKEN', status: 401, areas: 'all' },
  { code: 'AUTH_FORBIDDEN', status: 403, areas: 'all' },
  { code: 'INVALID_PARAMETER', status: 400, areas: 'all' },
  { code: 'REQUIRED_PARAMETER', status: 400, areas: 'all' },
  { code: 'NOT_FOUND', status: 404, areas: 'all' },
  { code: 'DUPLICATE', status: 409, areas: ['warehouse'] },
  { code: 'RATE_LIMIT_EXCEEDED', status: 429, areas: 'all' },
  { code: 'INTERNAL_ERROR', status: 500, areas: 'all' },
  { code: 'ORDER_NOT_FOUND', status: 404, areas: ['warehouse', 'manager'] },
  { code: 'ORDER_ALREADY_SHIPPED', status: 409, areas: ['warehouse'] },
  { code: 'ORDER_DRAFT_NOT_FOUND', status: 404, areas: ['warehouse'] },
  { code: 'INVENTORY_INSUFFICIENT', status: 400, areas: ['warehouse'] },
  { code: 'RETURN_CANCEL_EXPIRED', status: 400, areas: ['warehouse'] },
  { code: 'PRODUCT_NOT_FOUND', status: 404, areas: ['warehouse', 'manager'] },
  { code: 'OPTION_NOT_FOUND', status: 404, areas: ['warehouse', 'manager'] },
  { code: 'CAM_INVOICE_NOT_FOUND', status: 404, areas: ['camera'] },
];
const AUTH_AND_COMMON_CODES = SOURCE_ERRORS.slice(0, 10).map((e) => e.code);

// "What the service does": the area behind each path prefix. The camera prefix is "not shown" in the source; the
// contract's choice is /v3/cam/, and the catalogue test below also checks that such paths exist.
const AREA_SEGMENT: Record<string, string> = { warehouse: 'wms', manager: 'manager', camera: 'cam' };

// "Bulk response wrapper (data object)".
const BULK_WRAPPERS = [
  { method: 'post', path: '/v3/wms/orders', count: 'created_count', failed: 'failed_count', rows: 'results' },
  { method: 'post', path: '/v3/wms/orders/draft', count: 'created_count', failed: 'failed_count', rows: 'drafts' },
  {
    method: 'post',
    path: '/v3/wms/products/{product_code}/options',
    count: 'added_count',
    failed: 'failed_count',
    rows: 'options',
  },
] as const;

// "Draft order result row (element of data.drafts)".
const DRAFT_ROW: Record<string, string> = {
  mall_order_no: 'string',
  mall_product_name: 'string',
  draft_id: 'string',
  status: 'string',
  created_at: 'string',
  success: 'boolean',
  result_message: 'string',
};

// "Manager order list item (element of data in GET /v3/manager/orders)".
const MANAGER_ORDER_ITEM: Record<string, string> = {
  order_no: 'string',
  mall_product_name: 'string',
  order_status_code: 'integer',
  registered_date: 'string',
};

// "Pagination object (paged lists)".
const PAGINATION: Record<string, string> = {
  page: 'integer',
  size: 'integer',
  total: 'integer',
  total_pages: 'integer',
  has_next: 'boolean',
};

// "Response envelope": the only top-level fields of a success body.
const SUCCESS_ENVELOPE_FIELDS = ['success', 'data', 'pagination'];

// "Limits", rule 2: the quota headers.
const QUOTA_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

const SOURCE_DATE_TIME = '2026-11-20 14:03:12'; // `YYYY-MM-DD HH:MM:SS`
const ISO_DATE_TIME = '2026-11-20T14:03:12Z';

// --- Helpers ------------------------------------------------------------------------------------------------

let doc: OpenApiDocument;
let ops: OperationInfo[];
let ajv: SchemaValidator;

beforeAll(() => {
  doc = loadBuiltSpec();
  ops = operations(doc);
  ajv = schemaValidator(doc);
});

const label = (op: OperationInfo) => `${op.method.toUpperCase()} ${op.path}`;
const isSuccess = (status: string) => /^2/.test(status);
const isError = (status: string) => /^[45]/.test(status);
const isPay = (op: OperationInfo) => op.path.startsWith('/v3/pay/');
// The public operations that issue and refresh the JWT: they cannot require a credential they hand out.
const isTokenOperation = (op: OperationInfo) => op.path.startsWith('/v3/auth/');
// "API key shape: a string made of the area name, …": one scheme per area of keys, named by its `x-key-area`.
const KEY_SCHEMES = { wms: 'WmsApiKey', manager: 'ManagerApiKey', cam: 'CamApiKey' } as const;
const usesApiKey = (op: OperationInfo) => op.security.some((s) => Object.values<string>(KEY_SCHEMES).includes(s));

function operation(method: string, path: string): OperationInfo {
  const op = ops.find((o) => o.method === method && o.path === path);
  if (!op) throw new Error(`the bundle has no ${method.toUpperCase()} ${path}`);
  return op;
}

function successResponse(op: OperationInfo) {
  const success = Object.values(op.responses).filter((r) => isSuccess(r.status));
  if (success.length !== 1) {
    throw new Error(`${label(op)} should have one success response, has ${success.map((r) => r.status).join(', ')}`);
  }
  return success[0]!;
}

function firstKey(value: unknown): string | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value)[0] : undefined;
}

/** Every example of the document with the schema it must satisfy, found through the operations. */
function allExamples(): Array<{ where: string; schema: unknown; value: unknown; component?: string }> {
  const out: Array<{ where: string; schema: unknown; value: unknown; component?: string }> = [];
  const fromMedia = (where: string, media: MediaTypeObject | undefined) => {
    if (!media) return;
    if (media.example !== undefined)
      out.push({ where: `${where} example`, schema: media.schema, value: media.example });
    for (const [name, raw] of Object.entries(media.examples ?? {})) {
      const component = isReference(raw) ? raw.$ref.replace('#/components/examples/', '') : undefined;
      const example = deref<ExampleObject>(doc, raw);
      out.push({ where: `${where} examples.${name}`, schema: media.schema, value: example.value, component });
    }
  };
  const fromParameter = (where: string, raw: ParameterObject | Reference) => {
    const p = deref<ParameterObject>(doc, raw);
    const at = `${where} parameter ${p.name}`;
    if (p.example !== undefined) out.push({ where: `${at} example`, schema: p.schema, value: p.example });
    for (const [name, ex] of Object.entries(p.examples ?? {})) {
      out.push({ where: `${at} examples.${name}`, schema: p.schema, value: deref<ExampleObject>(doc, ex).value });
    }
  };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const p of item.parameters ?? []) fromParameter(path, p);
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const at = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) fromParameter(at, p);
      if (op.requestBody) {
        const body = deref<RequestBodyObject>(doc, op.requestBody);
        for (const [type, media] of Object.entries(body.content ?? {})) fromMedia(`${at} request ${type}`, media);
      }
      for (const [status, raw] of Object.entries(op.responses ?? {})) {
        const response = deref<ResponseObject>(doc, raw);
        for (const [type, media] of Object.entries(response.content ?? {})) fromMedia(`${at} ${status} ${type}`, media);
        for (const [name, rawHeader] of Object.entries(response.headers ?? {})) {
          const h = deref<HeaderObject>(doc, rawHeader);
          if (h.example !== undefined)
            out.push({ where: `${at} ${status} header ${name}`, schema: h.schema, value: h.example });
        }
      }
    }
  }
  return out;
}

/** `examples` and `example` inside components.schemas, with the pointer of the schema they belong to. */
function schemaExamples(): Array<{ where: string; schema: unknown; value: unknown }> {
  const out: Array<{ where: string; schema: unknown; value: unknown }> = [];
  const visit = (schema: unknown, where: string) => {
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
    const s = schema as JsonSchema;
    if (Array.isArray(s.examples))
      for (const [i, value] of s.examples.entries()) out.push({ where: `${where} examples[${i}]`, schema: s, value });
    if (s.example !== undefined) out.push({ where: `${where} example`, schema: s, value: s.example });
    for (const key of ['properties', 'patternProperties', '$defs', 'dependentSchemas']) {
      for (const [name, sub] of Object.entries((s[key] as Record<string, unknown>) ?? {}))
        visit(sub, `${where}/${key}/${name}`);
    }
    for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']) {
      visit(s[key], `${where}/${key}`);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) {
      if (Array.isArray(s[key]))
        for (const [i, sub] of (s[key] as unknown[]).entries()) visit(sub, `${where}/${key}/${i}`);
    }
  };
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
    visit(schema, `#/components/schemas/${name}`);
  return out;
}

// --- Tests --------------------------------------------------------------------------------------------------

describe('error catalogue (components.schemas.ErrorCode)', () => {
  it('holds exactly the 18 codes of the source', () => {
    expect([...errorCatalog(doc).keys()].sort()).toEqual(SOURCE_ERRORS.map((e) => e.code).sort());
  });

  it.each(SOURCE_ERRORS)('$code has HTTP $status and the areas of the source', ({ code, status, areas }) => {
    const entry = errorCatalog(doc).get(code);
    expect(entry, `${code} is not in the catalogue`).toBeDefined();
    expect(entry!.status).toBe(status);
    const expected = areas === 'all' ? ['all'] : areas.map((a) => AREA_SEGMENT[a]!).sort();
    expect([...entry!.areas].sort()).toEqual(expected);
    expect(entry!.description.trim()).not.toBe('');
  });

  it('names only areas that have operations', () => {
    const areas = new Set(ops.map((op) => op.area));
    const unknown = [...errorCatalog(doc)]
      .flatMap(([code, e]) => e.areas.filter((a) => a !== 'all').map((a) => `${code}: ${a}`))
      .filter((s) => !areas.has(s.split(': ')[1]!));
    expect(unknown).toEqual([]);
  });

  it('lists every catalogue code in some operation response x-error-codes', () => {
    const used = new Set(ops.flatMap((op) => Object.values(op.responses).flatMap((r) => r.errorCodes)));
    expect([...errorCatalog(doc).keys()].filter((code) => !used.has(code))).toEqual([]);
  });

  it('lists in x-error-codes only catalogue codes whose HTTP status is the response status', () => {
    const catalog = errorCatalog(doc);
    const wrong: string[] = [];
    for (const op of ops) {
      for (const r of Object.values(op.responses)) {
        if (isError(r.status) && r.errorCodes.length === 0) wrong.push(`${label(op)} ${r.status}: no x-error-codes`);
        for (const code of r.errorCodes) {
          const entry = catalog.get(code);
          if (!entry) wrong.push(`${label(op)} ${r.status}: ${code} is not in the catalogue`);
          else if (String(entry.status) !== r.status)
            wrong.push(`${label(op)} ${r.status}: ${code} is HTTP ${entry.status}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('gives every error example an error.code listed in its response x-error-codes', () => {
    const wrong: string[] = [];
    for (const op of ops) {
      for (const r of Object.values(op.responses).filter((r) => isError(r.status))) {
        for (const [name, ex] of Object.entries(r.examples)) {
          const code = (ex.value as { error?: { code?: unknown } })?.error?.code;
          if (typeof code !== 'string' || !r.errorCodes.includes(code)) {
            wrong.push(`${label(op)} ${r.status} ${name}: ${String(code)} not in [${r.errorCodes.join(', ')}]`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('response envelope', () => {
  it('ErrorEnvelope is {success: false, error: {code, message}} with success first', () => {
    const envelope = doc.components?.schemas?.ErrorEnvelope;
    expect(envelope, 'components.schemas.ErrorEnvelope').toBeDefined();
    expect(propertyNames(doc, envelope)).toEqual(['success', 'error']);
    expect(requiredOf(doc, envelope).sort()).toEqual(['error', 'success']);
    const success = propertyOf(doc, envelope, 'success')!;
    expect(success.type).toBe('boolean');
    expect(success.const).toBe(false);
    const error = (schemaOf(doc, envelope).properties as Record<string, unknown>).error;
    expect(propertyNames(doc, error).sort()).toEqual(['code', 'message']);
    expect(requiredOf(doc, error).sort()).toEqual(['code', 'message']);
    expect((schemaOf(doc, error).properties as Record<string, Reference>).code?.$ref).toBe(
      '#/components/schemas/ErrorCode',
    );
    expect(typeOf(doc, (schemaOf(doc, error).properties as Record<string, unknown>).message)).toBe('string');
  });

  it('every error response uses ErrorEnvelope and nothing else', () => {
    const wrong = ops.flatMap((op) =>
      Object.values(op.responses)
        .filter((r) => isError(r.status))
        .filter((r) => (r.schema as Reference | undefined)?.$ref !== '#/components/schemas/ErrorEnvelope')
        .map((r) => `${label(op)} ${r.status}: ${JSON.stringify(r.schema)}`),
    );
    expect(wrong).toEqual([]);
  });

  it('every response body is JSON whose first property is success (const true on 2xx, false on 4xx/5xx)', () => {
    const wrong: string[] = [];
    for (const op of ops) {
      for (const r of Object.values(op.responses)) {
        const at = `${label(op)} ${r.status}`;
        if (!r.schema) {
          wrong.push(`${at}: no JSON body schema`);
          continue;
        }
        if (r.contentType !== 'application/json') wrong.push(`${at}: content type ${r.contentType}`);
        const names = propertyNames(doc, r.schema);
        if (names[0] !== 'success') wrong.push(`${at}: first property is ${names[0]}`);
        const success = propertyOf(doc, r.schema, 'success');
        if (success?.type !== 'boolean') wrong.push(`${at}: success is not boolean`);
        if (success?.const !== isSuccess(r.status)) wrong.push(`${at}: success const is ${String(success?.const)}`);
        if (!requiredOf(doc, r.schema).includes('success')) wrong.push(`${at}: success is not required`);
        if (isSuccess(r.status)) {
          const extra = names.filter((n) => !SUCCESS_ENVELOPE_FIELDS.includes(n));
          if (extra.length > 0) wrong.push(`${at}: fields outside the envelope: ${extra.join(', ')}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('every response example starts with success, true on 2xx and false on 4xx/5xx', () => {
    const wrong: string[] = [];
    for (const op of ops) {
      for (const r of Object.values(op.responses)) {
        for (const [name, ex] of Object.entries(r.examples)) {
          const value = ex.value as Record<string, unknown>;
          if (firstKey(value) !== 'success' || value.success !== isSuccess(r.status)) {
            wrong.push(`${label(op)} ${r.status} ${name}: starts ${JSON.stringify(value).slice(0, 40)}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('the source endpoints', () => {
  it('every path starts with /v3/ and no server URL carries the version', () => {
    expect(Object.keys(doc.paths ?? {}).filter((p) => !p.startsWith('/v3/'))).toEqual([]);
    expect(Object.keys(doc.paths ?? {}).length).toBeGreaterThan(0);
    expect((doc.servers as Array<{ url: string }>).filter((s) => /\/v\d+\/?$/.test(s.url))).toEqual([]);
  });

  it.each([
    ['get', '/v3/manager/orders'],
    ['post', '/v3/wms/orders'],
    ['post', '/v3/wms/orders/draft'],
    ['post', '/v3/wms/products/{product_code}/options'],
  ])('%s %s exists', (method, path) => {
    expect(() => operation(method, path)).not.toThrow();
  });

  it.each(['wms', 'manager', 'pay', 'mcp', 'cam'])('the %s area has operations', (area) => {
    expect(ops.filter((op) => op.area === area).length).toBeGreaterThan(0);
  });

  it('no operation takes an area or version parameter (both are in the path)', () => {
    const wrong = ops.flatMap((op) =>
      op.parameters.filter((p) => /area|version/i.test(p.name)).map((p) => `${label(op)}: ${p.in} ${p.name}`),
    );
    expect(wrong).toEqual([]);
  });
});

describe('bulk operations', () => {
  it.each(BULK_WRAPPERS)('$path: 200 data is {$count, $failed, $rows}', ({ method, path, count, failed, rows }) => {
    const op = operation(method, path);
    const ok = successResponse(op);
    expect(ok.status).toBe('200');
    const data = propertyOf(doc, ok.schema, 'data');
    expect(data, `${path} 200 has no data`).toBeDefined();
    expect(propertyNames(doc, data).sort()).toEqual([count, failed, rows].sort());
    expect(requiredOf(doc, data).sort()).toEqual([count, failed, rows].sort());
    expect(typeOf(doc, propertyOf(doc, data, count))).toBe('integer');
    expect(typeOf(doc, propertyOf(doc, data, failed))).toBe('integer');
    const array = propertyOf(doc, data, rows)!;
    expect(array.type).toBe('array');
    const row = array.items;
    expect(typeOf(doc, propertyOf(doc, row, 'success'))).toBe('boolean');
    expect(typeOf(doc, propertyOf(doc, row, 'result_message'))).toBe('string');
    expect(requiredOf(doc, row)).toEqual(expect.arrayContaining(['success', 'result_message']));
  });

  it.each(BULK_WRAPPERS)(
    '$path: every 200 example has one row per count, successes = $count',
    ({ method, path, count, failed, rows }) => {
      const ok = successResponse(operation(method, path));
      const wrong: string[] = [];
      expect(Object.keys(ok.examples).length).toBeGreaterThan(0);
      for (const [name, ex] of Object.entries(ok.examples)) {
        const data = (ex.value as { data: Record<string, unknown> }).data;
        const list = data[rows] as Array<{ success: boolean }>;
        if (list.length !== (data[count] as number) + (data[failed] as number))
          wrong.push(`${name}: ${list.length} rows`);
        if (list.filter((r) => r.success).length !== data[count])
          wrong.push(`${name}: ${count} is not the successful rows`);
      }
      expect(wrong).toEqual([]);
    },
  );

  it.each(BULK_WRAPPERS)('$path: a format error is a 400 for the whole request', ({ method, path }) => {
    const bad = operation(method, path).responses['400'];
    expect(bad, `${path} documents no 400`).toBeDefined();
    expect(bad!.errorCodes.some((c) => c === 'INVALID_PARAMETER' || c === 'REQUIRED_PARAMETER')).toBe(true);
  });

  it('the options operation answers an unknown product with 404 PRODUCT_NOT_FOUND', () => {
    const op = operation('post', '/v3/wms/products/{product_code}/options');
    expect(op.responses['404']?.errorCodes).toContain('PRODUCT_NOT_FOUND');
  });

  it('the draft body allows at most 1,000 rows (maxItems: 1000)', () => {
    const body = operation('post', '/v3/wms/orders/draft').requestBody;
    expect(body?.schema, 'POST /v3/wms/orders/draft has no request body schema').toBeDefined();
    const arrays = propertyNames(doc, body!.schema).filter(
      (n) => typeOf(doc, propertyOf(doc, body!.schema, n)) === 'array',
    );
    expect(arrays.length, 'the draft body has no array of rows').toBeGreaterThan(0);
    for (const name of arrays) expect(propertyOf(doc, body!.schema, name)!.maxItems, name).toBe(1000);
  });
});

describe('draft order result row (data.drafts[])', () => {
  const rowSchema = () => {
    const data = propertyOf(doc, successResponse(operation('post', '/v3/wms/orders/draft')).schema, 'data');
    return propertyOf(doc, data, 'drafts')!.items;
  };
  const row = (overrides: Record<string, unknown>) => ({
    mall_order_no: 'MALL-1',
    mall_product_name: 'Linen shirt',
    draft_id: 'DRF-1',
    status: 'open',
    created_at: SOURCE_DATE_TIME,
    success: true,
    result_message: '',
    ...overrides,
  });

  it('has exactly the fields and types of the source, all required', () => {
    const schema = rowSchema();
    expect(propertyNames(doc, schema).sort()).toEqual(Object.keys(DRAFT_ROW).sort());
    expect(requiredOf(doc, schema).sort()).toEqual(Object.keys(DRAFT_ROW).sort());
    for (const [name, type] of Object.entries(DRAFT_ROW))
      expect(typeOf(doc, propertyOf(doc, schema, name)), name).toBe(type);
  });

  it('accepts a successful row (status open, created_at YYYY-MM-DD HH:MM:SS)', () => {
    expect(ajv.errors(rowSchema(), row({}))).toEqual([]);
  });

  it('accepts a failed row (empty draft_id and created_at)', () => {
    expect(
      ajv.errors(rowSchema(), row({ draft_id: '', created_at: '', success: false, result_message: 'Duplicate.' })),
    ).toEqual([]);
  });

  it('rejects a created_at not in YYYY-MM-DD HH:MM:SS', () => {
    expect(ajv.errors(rowSchema(), row({ created_at: ISO_DATE_TIME }))).not.toEqual([]);
  });
});

describe('GET /v3/manager/orders', () => {
  const list = () => successResponse(operation('get', '/v3/manager/orders'));

  it('answers 200 with {success, data: [item], pagination}', () => {
    const ok = list();
    expect(ok.status).toBe('200');
    expect(propertyNames(doc, ok.schema)).toEqual(['success', 'data', 'pagination']);
    expect(propertyOf(doc, ok.schema, 'data')!.type).toBe('array');
  });

  it('list items have exactly the fields and types of the source, all required', () => {
    const item = propertyOf(doc, list().schema, 'data')!.items;
    expect(propertyNames(doc, item).sort()).toEqual(Object.keys(MANAGER_ORDER_ITEM).sort());
    expect(requiredOf(doc, item).sort()).toEqual(Object.keys(MANAGER_ORDER_ITEM).sort());
    for (const [name, type] of Object.entries(MANAGER_ORDER_ITEM))
      expect(typeOf(doc, propertyOf(doc, item, name)), name).toBe(type);
    const date = (schemaOf(doc, item).properties as Record<string, unknown>).registered_date;
    expect(ajv.errors(date, SOURCE_DATE_TIME)).toEqual([]);
    expect(ajv.errors(date, ISO_DATE_TIME)).not.toEqual([]);
  });

  it('takes page and size as integer query parameters', () => {
    const op = operation('get', '/v3/manager/orders');
    for (const name of ['page', 'size']) {
      const p = op.parameters.find((x) => x.name === name);
      expect(p?.in, name).toBe('query');
      expect(typeOf(doc, p!.schema)).toBe('integer');
    }
  });

  it('documents 400 INVALID_PARAMETER, 401 with the auth codes, and 429', () => {
    const op = operation('get', '/v3/manager/orders');
    expect(op.responses['400']?.errorCodes).toContain('INVALID_PARAMETER');
    expect(op.responses['401']?.errorCodes).toEqual(
      expect.arrayContaining(['AUTH_MISSING_TOKEN', 'AUTH_INVALID_TOKEN']),
    );
    expect(op.responses['429']?.errorCodes).toContain('RATE_LIMIT_EXCEEDED');
  });

  it('no manager operation takes a seller parameter (the seller comes from the credential)', () => {
    const wrong = ops
      .filter((op) => op.area === 'manager')
      .flatMap((op) => op.parameters.filter((p) => /seller/i.test(p.name)).map((p) => `${label(op)}: ${p.name}`));
    expect(wrong).toEqual([]);
  });
});

describe('pagination', () => {
  it('has exactly page, size, total, total_pages and has_next, all required', () => {
    const pagination = propertyOf(doc, successResponse(operation('get', '/v3/manager/orders')).schema, 'pagination');
    expect(pagination, 'GET /v3/manager/orders has no pagination').toBeDefined();
    expect(propertyNames(doc, pagination).sort()).toEqual(Object.keys(PAGINATION).sort());
    expect(requiredOf(doc, pagination).sort()).toEqual(Object.keys(PAGINATION).sort());
    for (const [name, type] of Object.entries(PAGINATION))
      expect(typeOf(doc, propertyOf(doc, pagination, name)), name).toBe(type);
  });

  it('every paged list has the same pagination object and takes page and size', () => {
    const wrong: string[] = [];
    for (const op of ops) {
      for (const r of Object.values(op.responses).filter((r) => isSuccess(r.status) && r.schema)) {
        const pagination = propertyOf(doc, r.schema, 'pagination');
        if (!pagination) continue;
        if (propertyNames(doc, pagination).sort().join() !== Object.keys(PAGINATION).sort().join()) {
          wrong.push(`${label(op)}: pagination fields ${propertyNames(doc, pagination).join(', ')}`);
        }
        for (const name of ['page', 'size']) {
          if (!op.parameters.some((p) => p.name === name && p.in === 'query'))
            wrong.push(`${label(op)}: no ${name} query`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('authentication', () => {
  it('every /v3/pay/ operation uses BearerAuth only and documents 403 AUTH_FORBIDDEN', () => {
    const pay = ops.filter(isPay);
    expect(pay.length, 'no /v3/pay/ operations').toBeGreaterThan(0);
    for (const op of pay) {
      expect(op.security, label(op)).toEqual(['BearerAuth']);
      expect(op.responses['403']?.errorCodes, `${label(op)} 403`).toContain('AUTH_FORBIDDEN');
    }
  });

  it('BearerAuth is an HTTP bearer (JWT) scheme, and each area of keys has its X-API-Key scheme naming the area', () => {
    const schemes = doc.components?.securitySchemes ?? {};
    expect(schemes.BearerAuth?.type).toBe('http');
    expect(String(schemes.BearerAuth?.scheme).toLowerCase()).toBe('bearer');
    for (const [area, name] of Object.entries(KEY_SCHEMES))
      expect(schemes[name], name).toMatchObject({
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        'x-key-area': area,
      });
    // No scheme stands for the keys of every area, and none for /v3/pay/ ("no API key is issued for it").
    expect(Object.keys(schemes).sort()).toEqual(['BearerAuth', ...Object.values(KEY_SCHEMES)].sort());
  });

  // "The seller is taken from the key or token"; "On the manager area the seller context is extracted from the
  // credential".
  it('every /v3/manager/ operation takes an API key or a JWT, each on its own, and documents 401 AUTH_EXPIRED_TOKEN', () => {
    const manager = ops.filter((op) => op.area === 'manager');
    expect(manager.length).toBeGreaterThan(0);
    const rawOps = manager.map((op) => (doc.paths![op.path] as Record<string, { security?: unknown }>)[op.method]!);
    for (const [i, op] of manager.entries()) {
      expect(rawOps[i]!.security, label(op)).toEqual([{ ManagerApiKey: [] }, { BearerAuth: [] }]);
      expect(op.responses['401']?.errorCodes, `${label(op)} 401`).toEqual(
        expect.arrayContaining(['AUTH_MISSING_TOKEN', 'AUTH_INVALID_TOKEN', 'AUTH_EXPIRED_TOKEN']),
      );
    }
  });

  it("every other /v3/ operation except the token operations takes its area's API key only; /v3/mcp/ a key of any area", () => {
    const others = ops.filter((op) => !isPay(op) && !isTokenOperation(op) && op.area !== 'manager');
    expect(others.length).toBeGreaterThan(0);
    const wanted = (op: OperationInfo) =>
      op.area === 'mcp' ? Object.values(KEY_SCHEMES).join() : KEY_SCHEMES[op.area as keyof typeof KEY_SCHEMES];
    const wrong = others
      .filter((op) => op.security.join() !== wanted(op))
      .map((op) => `${label(op)}: [${op.security.join(', ')}]`);
    expect(wrong).toEqual([]);
  });

  it('the token operations are public', () => {
    const tokens = ops.filter(isTokenOperation);
    expect(tokens.filter((op) => op.security.length > 0).map(label)).toEqual([]);
  });

  it('every authenticated operation documents 401 AUTH_MISSING_TOKEN and AUTH_INVALID_TOKEN', () => {
    const wrong = ops
      .filter((op) => op.security.length > 0)
      .filter(
        (op) => !['AUTH_MISSING_TOKEN', 'AUTH_INVALID_TOKEN'].every((c) => op.responses['401']?.errorCodes.includes(c)),
      )
      .map(label);
    expect(wrong).toEqual([]);
  });

  // AUTH_EXPIRED_TOKEN means "JWT expired, refresh needed": the refresh operation cannot answer it.
  it('the refresh operation does not list AUTH_EXPIRED_TOKEN; an expired refresh token is AUTH_INVALID_TOKEN', () => {
    const refresh = operation('post', '/v3/auth/token/refresh');
    expect(refresh.responses['401']?.errorCodes).toEqual(['AUTH_INVALID_TOKEN']);
    for (const ex of Object.values(refresh.responses['401']!.examples)) {
      expect((ex.value as { error: { code: string } }).error.code).toBe('AUTH_INVALID_TOKEN');
    }
  });

  it('every JWT operation documents 401 AUTH_EXPIRED_TOKEN', () => {
    const jwt = ops.filter((op) => op.security.includes('BearerAuth'));
    expect(jwt.filter((op) => !op.responses['401']?.errorCodes.includes('AUTH_EXPIRED_TOKEN')).map(label)).toEqual([]);
  });

  it('the payment-deposit area uses only authentication and common codes', () => {
    const wrong = ops
      .filter(isPay)
      .flatMap((op) => Object.values(op.responses).flatMap((r) => r.errorCodes.map((c) => [op, r.status, c] as const)))
      .filter(([, , code]) => !AUTH_AND_COMMON_CODES.includes(code))
      .map(([op, status, code]) => `${label(op)} ${status}: ${code}`);
    expect(wrong).toEqual([]);
  });
});

describe('rate limits', () => {
  it('every operation documents 429 RATE_LIMIT_EXCEEDED (the gateway limit covers all /v3/ paths)', () => {
    expect(ops.filter((op) => op.responses['429']?.errorCodes.join() !== 'RATE_LIMIT_EXCEEDED').map(label)).toEqual([]);
  });

  it('the 429 of every API-key operation defines Retry-After and X-RateLimit-* as optional integers', () => {
    const apiKey = ops.filter(usesApiKey);
    expect(apiKey.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const op of apiKey) {
      const headers = op.responses['429']?.headers ?? {};
      for (const name of ['Retry-After', ...QUOTA_HEADERS]) {
        const h = headers[name];
        if (!h) wrong.push(`${label(op)} 429: no ${name}`);
        else {
          if (h.required) wrong.push(`${label(op)} 429: ${name} is required`);
          if (typeOf(doc, h.schema) !== 'integer') wrong.push(`${label(op)} 429: ${name} is not an integer`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the 429 of every API-key operation has a gateway and a quota example', () => {
    const wrong: string[] = [];
    for (const op of ops.filter(usesApiKey)) {
      const examples = Object.entries(op.responses['429']?.examples ?? {});
      for (const cause of ['gateway', 'quota']) {
        const found = examples.filter(([name]) => name.includes(cause));
        if (found.length === 0) wrong.push(`${label(op)} 429: no ${cause} example`);
        for (const [name, ex] of found) {
          const code = (ex.value as { error?: { code?: string } }).error?.code;
          if (code !== 'RATE_LIMIT_EXCEEDED') wrong.push(`${label(op)} 429 ${name}: code ${code}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('Retry-After is defined only on 429 responses (never on a success response)', () => {
    const wrong = ops.flatMap((op) =>
      Object.values(op.responses)
        .filter((r) => r.status !== '429' && Object.keys(r.headers).some((h) => h.toLowerCase() === 'retry-after'))
        .map((r) => `${label(op)} ${r.status}`),
    );
    expect(wrong).toEqual([]);
  });

  it('X-RateLimit-* headers are optional integers wherever they are defined', () => {
    const wrong: string[] = [];
    for (const op of ops) {
      for (const r of Object.values(op.responses)) {
        for (const name of QUOTA_HEADERS) {
          const h = r.headers[name];
          if (h && (h.required || typeOf(doc, h.schema) !== 'integer')) wrong.push(`${label(op)} ${r.status} ${name}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('operations without a quota (JWT and public) define no quota headers and no quota 429 example', () => {
    const wrong: string[] = [];
    for (const op of ops.filter((o) => !usesApiKey(o))) {
      for (const r of Object.values(op.responses)) {
        for (const name of Object.keys(r.headers)) {
          if (name === 'Retry-After' || QUOTA_HEADERS.includes(name)) wrong.push(`${label(op)} ${r.status}: ${name}`);
        }
      }
      for (const name of Object.keys(op.responses['429']?.examples ?? {})) {
        if (name.includes('quota')) wrong.push(`${label(op)} 429: example ${name}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('payment deposits', () => {
  it('the deposits list answers no match with 200 and an empty data array, never 404', () => {
    const deposits = ops.filter((op) => isPay(op) && op.method === 'get' && /deposits$/.test(op.path));
    expect(deposits.length, 'no GET /v3/pay/.../deposits list').toBeGreaterThan(0);
    for (const op of deposits) {
      const ok = successResponse(op);
      expect(ok.status).toBe('200');
      const data = (schemaOf(doc, ok.schema).properties as Record<string, unknown>).data;
      expect(typeOf(doc, data)).toBe('array');
      expect(ajv.errors(data, [])).toEqual([]);
      expect(op.responses['404'], `${label(op)} documents 404`).toBeUndefined();
    }
  });
});

describe('examples', () => {
  it('every example (components.examples and inline) validates against its schema', () => {
    const wrong: string[] = [];
    const seen = new Set<string>();
    for (const { where, schema, value } of allExamples()) {
      if (schema === undefined) {
        wrong.push(`${where}: no schema to validate against`);
        continue;
      }
      const key = `${JSON.stringify(schema)}\n${JSON.stringify(value)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (value === undefined) wrong.push(`${where}: no value`);
      else for (const e of ajv.errors(schema, value)) wrong.push(`${where}: ${e}`);
    }
    expect(wrong).toEqual([]);
  });

  it('every schema-level example validates against its schema', () => {
    const wrong = schemaExamples().flatMap(({ where, schema, value }) =>
      ajv.errors(schema, value).map((e) => `${where}: ${e}`),
    );
    expect(wrong).toEqual([]);
  });

  it('every components.examples entry is used by some operation (so it is validated above)', () => {
    const used = new Set(
      allExamples()
        .map((e) => e.component)
        .filter(Boolean),
    );
    expect(Object.keys(doc.components?.examples ?? {}).filter((name) => !used.has(name))).toEqual([]);
  });

  it('every operation has named (snake_case) examples for every response', () => {
    const wrong: string[] = [];
    for (const op of ops) {
      expect(Object.keys(op.responses).length, label(op)).toBeGreaterThan(0);
      for (const r of Object.values(op.responses)) {
        const names = Object.keys(r.examples);
        if (names.length === 0) wrong.push(`${label(op)} ${r.status}: no named examples`);
        for (const name of names.filter((n) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(n))) {
          wrong.push(`${label(op)} ${r.status}: example name ${name}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
