// The contract as the kit reads it: everything here is derived from the bundled document at run time, so a change
// of the spec changes what the kit checks without a change of code.
import {
  contractModel,
  deref,
  isProvisional,
  isReference,
  KNOWN_VALUES_KEYWORD,
  loadSpec,
  relaxProvisional,
  resolvePointer,
  type ErrorCatalogEntry,
  type GatewayLimit,
  type JsonSchema,
  type Limits,
  type OpenApiDocument,
  type OperationInfo,
  type OrderStatuses,
  type ParameterInfo,
  type QuotaHeaders,
  type RequestBodyObject,
  type ResponseInfo,
  type SchemaValidator,
  type ServiceTime,
  type ErrorObject,
  type ValidateFunction,
} from '@cls-api/spec';

/**
 * The schema every identifier the source shows only as a placeholder refers to (`<product_code>`, `<order_no>`, …):
 * spec/components/schemas/Identifier.yaml, DECISIONS.md G25. The kit finds identifiers by this reference, not by
 * the shape of a pattern.
 */
export const IDENTIFIER_SCHEMA = '#/components/schemas/Identifier';

export interface InvalidExample {
  name: string;
  summary?: string;
  value: unknown;
  expected: { status: number; code: string };
}

/**
 * What a body is against the contract: `errors` break the relaxed contract (what the source shows: a failure);
 * `departures` break only the full one (a design of ours, `x-provisional`, or a value outside `x-known-values`).
 */
export interface Verdict {
  errors: string[];
  departures: string[];
}

/** The shape of a bulk operation, read from its request and success schemas. */
export interface BulkShape {
  /** Body property holding the rows (`orders`, `options`). */
  rowsProperty: string;
  rowSchema: JsonSchema;
  maxRows: number;
  minRows: number;
  /** data property holding one result row per submitted row (`results`, `drafts`, `options`). */
  resultsProperty: string;
  /** data properties counting the rows (`created_count` or `added_count`, and `failed_count`). */
  successCountProperty: string;
  failedCountProperty: string;
  /** Properties of a result row that echo the submitted row (`mall_order_no`, `option_code`, …). */
  echoedProperties: string[];
  /**
   * The echoed properties the relaxed row schema still requires: echoes the source shows (the draft row's). The
   * others are designed (the order and option rows, DECISIONS.md G26).
   */
  sourceEchoedProperties: string[];
}

export interface PagedShape {
  /** Query parameter names of the page number and page size. */
  pageParameter: ParameterInfo;
  sizeParameter: ParameterInfo;
}

export class Contract {
  readonly doc: OpenApiDocument;
  readonly operations: OperationInfo[];
  readonly catalog: ReadonlyMap<string, ErrorCatalogEntry>;
  /** The contract model's limits, its gateway limits most specific (longest `appliesTo`) first. */
  readonly limits: Limits;
  /** The monthly quota's headers, lower-cased as the kit reads response headers. */
  readonly quotaHeaders: QuotaHeaders;
  /** Known and shipped order status codes. */
  readonly orderStatuses: OrderStatuses;
  readonly serviceTimeZone: string;
  /** The document with every `x-provisional` node relaxed (`relaxProvisional`): what the source shows. */
  readonly relaxedDoc: OpenApiDocument;
  /** Wall-clock arithmetic in the service time zone (the quota reset, shown times). */
  readonly time: ServiceTime;
  private readonly full: SchemaValidator;
  private readonly relaxed: SchemaValidator;
  /** Every response header the contract names anywhere, lower-cased. */
  readonly contractHeaders: Set<string>;

  constructor(doc: OpenApiDocument = loadSpec()) {
    // Every fact and both validators come from the contract model (@cls-api/spec): one Ajv configuration, in which
    // only the full validator knows `x-known-values`, so a value outside the known ones is a departure, never an
    // error.
    const model = contractModel(doc);
    this.doc = doc;
    this.operations = [...model.operations];
    this.catalog = model.catalog;
    this.limits = {
      ...model.limits,
      gateway: [...model.limits.gateway].sort((a, b) => b.appliesTo.length - a.appliesTo.length),
    };
    const { limit, remaining, reset, retryAfter } = model.quotaHeaders;
    this.quotaHeaders = {
      limit: limit.toLowerCase(),
      remaining: remaining.toLowerCase(),
      reset: reset.toLowerCase(),
      retryAfter: retryAfter.toLowerCase(),
    };
    this.orderStatuses = model.orderStatuses;
    this.serviceTimeZone = model.timeZone;
    this.time = model.time;
    this.relaxedDoc = relaxProvisional(doc);
    this.full = model.validator();
    this.relaxed = model.validator({ relaxed: true });
    this.contractHeaders = new Set(model.responseHeaders.map((name) => name.toLowerCase()));
  }

  operation(operationId: string): OperationInfo {
    const op = this.operations.find((o) => o.operationId === operationId);
    if (!op) throw new ContractGap(`the contract has no operation ${operationId}`);
    return op;
  }

  findOperation(operationId: string): OperationInfo | undefined {
    return this.operations.find((o) => o.operationId === operationId);
  }

  /** Whether the contract has every one of these operations (a case about them is made only then). */
  hasOperations(...operationIds: string[]): boolean {
    return operationIds.every((id) => this.findOperation(id) !== undefined);
  }

  /** Resolves a schema's `$ref` chain (not its children). */
  resolve(schema: JsonSchema | undefined): JsonSchema {
    if (!schema) return {};
    return deref<JsonSchema>(this.doc, schema as JsonSchema);
  }

  /** A validator for any schema of the document, `$ref`s resolved against the bundle. */
  validator(schema: JsonSchema): ValidateFunction {
    return this.full.compile(schema);
  }

  validate(schema: JsonSchema, value: unknown): string[] {
    const fn = this.validator(schema);
    if (fn(value)) return [];
    return formatErrors(fn.errors ?? []);
  }

  /** A validator of the relaxed contract: the schema with its own provisional nodes relaxed, `$ref`s into the relaxed document. */
  relaxedValidator(schema: JsonSchema): ValidateFunction {
    return this.relaxed.compile(schema);
  }

  /** Errors of a value against the relaxed contract: what breaks the source, not merely a design. */
  validateRelaxed(schema: JsonSchema, value: unknown): string[] {
    const fn = this.relaxedValidator(schema);
    if (fn(value)) return [];
    return formatErrors(fn.errors ?? []);
  }

  /** A value judged by both contracts: failures against the relaxed one, departures where only the full one refuses. */
  verdict(schema: JsonSchema, value: unknown): Verdict {
    const full = this.validate(schema, value);
    if (full.length === 0) return { errors: [], departures: [] };
    const errors = this.validateRelaxed(schema, value);
    return errors.length > 0 ? { errors, departures: [] } : { errors: [], departures: full };
  }

  /**
   * Whether refusing `value` rests on a design only: the relaxed contract accepts it, or the parameter it goes in
   * is itself marked `x-provisional` (its existence, requiredness and bounds are ours, DECISIONS.md G24).
   */
  provisionalInput(schema: JsonSchema | undefined, value: unknown, parameter?: { provisional?: boolean }): boolean {
    if (parameter?.provisional) return true;
    if (!schema) return false;
    return this.relaxedValidator(schema)(value) === true;
  }

  /** Whether a schema is, or refers through its `$ref` chain to, the contract's `Identifier`. */
  isIdentifier(schema: JsonSchema | undefined): boolean {
    let node: unknown = schema;
    const seen = new Set<string>();
    while (isReference(node)) {
      if (node.$ref === IDENTIFIER_SCHEMA) return true;
      if (seen.has(node.$ref)) return false;
      seen.add(node.$ref);
      node = resolvePointer(this.doc, node.$ref);
    }
    return false;
  }

  /**
   * A schema with its `$ref` resolved and its `allOf` parts merged into one (properties and `required` joined):
   * what the kit reads a shape from (a result row is `allOf: [BulkResultRow, DraftResult]`). Not for validation.
   */
  merged(schema: JsonSchema | undefined, depth = 0, doc: OpenApiDocument = this.doc): JsonSchema {
    const s = schema ? deref<JsonSchema>(doc, schema) : {};
    if (!Array.isArray(s.allOf) || depth > 8) return s;
    const { allOf, ...own } = s;
    const out: JsonSchema = { ...own };
    const properties: Record<string, JsonSchema> = { ...((own.properties ?? {}) as Record<string, JsonSchema>) };
    const required = new Set<string>((own.required ?? []) as string[]);
    for (const part of allOf as JsonSchema[]) {
      const m = this.merged(part, depth + 1, doc);
      for (const [k, v] of Object.entries(m)) {
        if (k === 'properties') Object.assign(properties, v as Record<string, JsonSchema>);
        else if (k === 'required') for (const r of v as string[]) required.add(r);
        else if (!(k in out)) out[k] = v;
      }
    }
    out.properties = properties;
    out.required = [...required];
    return out;
  }

  /** The response documented for a status: the exact code, then `4XX`-style ranges, then `default`. */
  responseFor(op: OperationInfo, status: number): ResponseInfo | undefined {
    return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  }

  /** The one documented 2xx status of an operation. */
  successStatus(op: OperationInfo): number {
    const statuses = Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s));
    if (statuses.length === 0) throw new ContractGap(`${op.operationId} documents no 2xx response`);
    return Number(statuses[0]);
  }

  /** The status an error code is returned with (`x-http-status`), from the catalogue. */
  statusOf(code: string): number {
    const entry = this.catalog.get(code);
    if (!entry) throw new ContractGap(`the error catalogue has no ${code}`);
    return entry.status;
  }

  /** Whether the operation documents `code` on the status the catalogue gives it. */
  documents(op: OperationInfo, code: string): boolean {
    const entry = this.catalog.get(code);
    if (!entry) return false;
    return this.responseFor(op, entry.status)?.errorCodes.includes(code) ?? false;
  }

  securityScheme(name: string): Record<string, unknown> | undefined {
    return this.doc.components?.securitySchemes?.[name];
  }

  isApiKeyScheme(name: string): boolean {
    return this.securityScheme(name)?.type === 'apiKey';
  }

  isBearerScheme(name: string): boolean {
    const scheme = this.securityScheme(name);
    return scheme?.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer';
  }

  /** `x-invalid-examples` of the operation's request body: each a rejected body with its expected status and code. */
  invalidExamples(op: OperationInfo): InvalidExample[] {
    const item = deref(this.doc, this.doc.paths?.[op.path] ?? {});
    const raw = (item as Record<string, unknown>)[op.method] as Record<string, unknown> | undefined;
    if (!raw?.requestBody) return [];
    const body = deref<RequestBodyObject>(this.doc, raw.requestBody as RequestBodyObject);
    const map = body['x-invalid-examples'];
    if (!map || typeof map !== 'object') return [];
    const out: InvalidExample[] = [];
    for (const [name, rawEntry] of Object.entries(map as Record<string, unknown>)) {
      const entry = deref<Record<string, unknown>>(this.doc, rawEntry as Record<string, unknown>);
      const expected = entry.expected as { status?: unknown; code?: unknown } | undefined;
      if (!expected || typeof expected.status !== 'number' || typeof expected.code !== 'string') {
        throw new ContractGap(`${op.operationId} x-invalid-examples.${name} has no expected {status, code}`);
      }
      const example: InvalidExample = {
        name,
        value: entry.value,
        expected: { status: expected.status, code: expected.code },
      };
      if (typeof entry.summary === 'string') example.summary = entry.summary;
      out.push(example);
    }
    return out;
  }

  /**
   * The headers a named response example states it carries (`x-response-headers`), lower-cased; undefined when
   * the example states none.
   */
  exampleHeaders(op: OperationInfo, status: string, name: string): Record<string, string> | undefined {
    const item = deref(this.doc, this.doc.paths?.[op.path] ?? {}) as Record<string, unknown>;
    const rawOp = item[op.method] as { responses?: Record<string, unknown> } | undefined;
    const rawResponse = rawOp?.responses?.[status];
    if (!rawResponse) return undefined;
    const response = deref<{ content?: Record<string, { examples?: Record<string, unknown> }> }>(
      this.doc,
      rawResponse as object,
    );
    for (const media of Object.values(response.content ?? {})) {
      const rawExample = media.examples?.[name];
      if (!rawExample) continue;
      const example = deref<Record<string, unknown>>(this.doc, rawExample as Record<string, unknown>);
      const headers = example['x-response-headers'];
      if (!headers || typeof headers !== 'object') return undefined;
      return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    }
    return undefined;
  }

  /** The page and size parameters when the success schema has `pagination`, else undefined. */
  paged(op: OperationInfo): PagedShape | undefined {
    const success = op.responses[String(this.successStatus(op))];
    const schema = this.resolve(success?.schema);
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    if (!props.pagination) return undefined;
    // The paging parameters are the shared components the conventions name (Page, Size), matched by name and place.
    const shared = this.doc.components?.parameters ?? {};
    const page = shared.Page ? deref<{ name: string; in: string }>(this.doc, shared.Page) : undefined;
    const size = shared.Size ? deref<{ name: string; in: string }>(this.doc, shared.Size) : undefined;
    const pageParameter = op.parameters.find((p) => p.name === page?.name && p.in === page?.in);
    const sizeParameter = op.parameters.find((p) => p.name === size?.name && p.in === size?.in);
    if (!pageParameter || !sizeParameter) {
      throw new ContractGap(`${op.operationId} returns pagination but takes no page/size parameters`);
    }
    return { pageParameter, sizeParameter };
  }

  /**
   * What makes two operations' parameters the same rule: the shared component both name (`$ref`), else the same
   * name, place and schema. A rule proven on one is proven on the other, within an area.
   */
  parameterComponent(op: OperationInfo, param: { name: string; in: string; schema?: JsonSchema }): string {
    const item = (this.doc.paths?.[op.path] ?? {}) as Record<string, unknown>;
    const raw = [
      ...(((item[op.method] as { parameters?: unknown[] } | undefined)?.parameters ?? []) as unknown[]),
      ...((item.parameters ?? []) as unknown[]),
    ];
    for (const entry of raw) {
      const ref = (entry as { $ref?: unknown }).$ref;
      if (typeof ref !== 'string') continue;
      const p = deref<{ name: string; in: string }>(this.doc, entry as never);
      if (p?.name === param.name && p.in === param.in) return ref;
    }
    return `${param.in}:${param.name}:${JSON.stringify(param.schema ?? {})}`;
  }

  /** The pagination property names as the Pagination schema declares them. */
  paginationFields(op: OperationInfo): string[] {
    const success = this.resolve(op.responses[String(this.successStatus(op))]?.schema);
    const pagination = this.resolve((success.properties as Record<string, JsonSchema>).pagination);
    return Object.keys((pagination.properties ?? {}) as Record<string, unknown>);
  }

  /** The bulk shape when the body holds an array of rows with `maxItems` and the result rows report success. */
  bulk(op: OperationInfo): BulkShape | undefined {
    if (!op.requestBody?.schema) return undefined;
    const body = this.resolve(op.requestBody.schema);
    const bodyProps = (body.properties ?? {}) as Record<string, JsonSchema>;
    const rowsEntry = Object.entries(bodyProps).find(([, s]) => {
      const r = this.resolve(s);
      return r.type === 'array' && typeof r.maxItems === 'number';
    });
    if (!rowsEntry) return undefined;
    const rowsSchema = this.resolve(rowsEntry[1]);
    const success = this.resolve(op.responses[String(this.successStatus(op))]?.schema);
    const data = this.resolve(((success.properties ?? {}) as Record<string, JsonSchema>).data);
    const dataProps = (data.properties ?? {}) as Record<string, JsonSchema>;
    const resultsEntry = Object.entries(dataProps).find(([, s]) => this.resolve(s).type === 'array');
    if (!resultsEntry) return undefined;
    const items = this.resolve(resultsEntry[1]).items as JsonSchema;
    const resultRow = this.merged(items);
    // What the source shows a row to carry: the same row read in the relaxed document.
    const sourceRequired = new Set(
      (this.merged(relaxProvisional(items), 0, this.relaxedDoc).required ?? []) as string[],
    );
    const resultProps = Object.keys((resultRow.properties ?? {}) as Record<string, unknown>);
    if (!resultProps.includes('success') || !resultProps.includes('result_message')) return undefined;
    const counts = Object.entries(dataProps)
      .filter(([, s]) => this.resolve(s).type === 'integer')
      .map(([name]) => name);
    const failedCountProperty = counts.find((c) => c.startsWith('failed'));
    const successCountProperty = counts.find((c) => c !== failedCountProperty);
    if (!failedCountProperty || !successCountProperty) {
      throw new ContractGap(`${op.operationId}: bulk result has no success and failure counts`);
    }
    const rowSchema = this.resolve(rowsSchema.items as JsonSchema);
    const rowProps = Object.keys((rowSchema.properties ?? {}) as Record<string, unknown>);
    return {
      rowsProperty: rowsEntry[0],
      rowSchema,
      maxRows: rowsSchema.maxItems as number,
      minRows: typeof rowsSchema.minItems === 'number' ? rowsSchema.minItems : 0,
      resultsProperty: resultsEntry[0],
      successCountProperty,
      failedCountProperty,
      echoedProperties: resultProps.filter((p) => rowProps.includes(p)),
      sourceEchoedProperties: resultProps.filter((p) => rowProps.includes(p) && sourceRequired.has(p)),
    };
  }

  /**
   * The values a named schema knows, with their `x-enumDescriptions`: its `x-known-values` (an open set, G24), else
   * its `enum`.
   */
  enumDescriptions(schemaName: string): Map<number | string, string> {
    const schema = this.doc.components?.schemas?.[schemaName];
    if (!schema) throw new ContractGap(`the contract has no schema ${schemaName}`);
    const descriptions = (schema['x-enumDescriptions'] ?? {}) as Record<string, string>;
    const values = (schema[KNOWN_VALUES_KEYWORD] ?? schema.enum ?? []) as Array<number | string>;
    const out = new Map<number | string, string>();
    for (const value of values) out.set(value, descriptions[String(value)] ?? '');
    return out;
  }

  /** The gateway limits a path falls under, most specific first. */
  gatewayScopes(path: string): GatewayLimit[] {
    return this.limits.gateway.filter((g) => path.startsWith(g.appliesTo));
  }
}

/** The contract lacks something a check needs: the kit reports it instead of guessing. */
export class ContractGap extends Error {
  override name = 'ContractGap';
}

export function formatErrors(errors: ErrorObject[]): string[] {
  // oneOf over a $ref and null reports every branch; the deepest errors say what is wrong. `if` only says that a
  // `then` failed, whose own error follows, so it goes last.
  const rank = (e: ErrorObject) => (e.keyword === KNOWN_VALUES_KEYWORD ? 0 : e.keyword === 'if' ? 2 : 1);
  const lines = [...errors]
    .sort((a, b) => rank(a) - rank(b))
    .map((e) => {
      const where = e.instancePath === '' ? '(root)' : e.instancePath;
      const extra =
        e.keyword === 'additionalProperties'
          ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
          : e.keyword === 'enum' || e.keyword === 'const'
            ? ` (${JSON.stringify((e.params as { allowedValues?: unknown; allowedValue?: unknown }).allowedValues ?? (e.params as { allowedValue?: unknown }).allowedValue)})`
            : '';
      return `${where} ${e.message ?? e.keyword}${extra}`;
    });
  // The same message twice (both parts of an allOf hold `success`) says nothing more.
  return [...new Set(lines)].slice(0, 5);
}

export { isProvisional, isReference };
/** The contract model's limits, as the kit reads them (`Contract.limits`). */
export type { Limits };
