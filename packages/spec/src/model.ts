// The contract model: every fact a tool reads from the contract, typed and checked once, and the one Ajv
// configuration that validates against it. The server, the client's generator, the kit, the mock and the docs read
// the contract through this module and never read an `x-` extension themselves, so that a new limit, code or
// rule in `spec/` reaches all of them without an edit (ARCHITECTURE.md).
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parseTimeOfDay, ServiceTime, type TimeOfDay } from './calendar.js';
import {
  deref,
  errorCatalog,
  HTTP_METHODS,
  isProvisional,
  KNOWN_VALUES_KEYWORD,
  loadSpec,
  operations,
  patternMeanings,
  provisionalNodesIn,
  provisionalSchemaNodes,
  referenceOf,
  relaxProvisional,
  resolvePointer,
  type ErrorCatalogEntry,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
  type ParameterObject,
} from './document.js';

export type { ErrorObject, ValidateFunction };

/** The contract lacks, or misstates, a fact a tool needs: the message names it. */
export class ContractError extends Error {
  override name = 'ContractError';
}

function fail(what: string): never {
  throw new ContractError(`the contract (@cls-api/spec) does not state ${what}`);
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(what);
  return value as Record<string, unknown>;
}

function positive(value: unknown, what: string): number {
  if (typeof value !== 'number' || !(value > 0)) fail(`${what} as a positive number`);
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// Limits (`info.x-limits`)

/**
 * A gateway speed limit: a token bucket per source address over the paths under `appliesTo`. The one shape of a
 * gateway limit: the server enforces these, the client paces under them, the kit probes them.
 */
export interface GatewayLimit {
  /** Its key in `info.x-limits` (`gateway`, `gateway_mcp`). */
  name: string;
  /** Path prefix the bucket applies to (`/v3/`, `/v3/mcp/`). */
  appliesTo: string;
  ratePerSecond: number;
  burst: number;
}

export interface Limits {
  /** Every gateway limit, in the order `info.x-limits` states them (`gatewayLimits(path)` orders by specificity). */
  gateway: GatewayLimit[];
  /** Calls per month by credential (`test`, `live`, `jwt`); null where usage is not limited. */
  monthlyQuota: ReadonlyMap<string, number | null>;
  /** Rows of one bulk request. */
  bulkRowsPerRequest: number;
  /** The time of day that ends a return's withdrawal window (DECISIONS G13). */
  returnWithdrawalDeadline: TimeOfDay;
  /** How every integer query parameter is written (DECISIONS G23). */
  queryIntegerSyntax: RegExp;
  /** The same syntax in words (`query_integer_meaning`), as a refusal says it. */
  queryIntegerMeaning: string;
}

/** How an integer query parameter is written: the pattern that checks it and the words that tell it. */
export type IntegerQuerySyntax = Pick<Limits, 'queryIntegerSyntax' | 'queryIntegerMeaning'>;

/** `info.x-limits`, checked: throws a `ContractError` naming what is missing or malformed. */
export function readLimits(doc: OpenApiDocument): Limits {
  const raw = object(deref(doc, (doc.info['x-limits'] ?? null) as JsonSchema), 'info.x-limits');
  const gateway: GatewayLimit[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (!value || typeof value !== 'object' || !('rate_per_second' in value)) continue;
    const v = value as Record<string, unknown>;
    if (typeof v.applies_to !== 'string' || !v.applies_to.startsWith('/'))
      fail(`info.x-limits.${name}.applies_to as a path prefix`);
    gateway.push({
      name,
      appliesTo: v.applies_to,
      ratePerSecond: positive(v.rate_per_second, `info.x-limits.${name}.rate_per_second`),
      burst: positive(v.burst, `info.x-limits.${name}.burst`),
    });
  }
  if (gateway.length === 0) fail('a gateway limit in info.x-limits');
  const monthlyQuota = new Map<string, number | null>();
  for (const [credential, entry] of Object.entries(object(raw.monthly_quota, 'info.x-limits.monthly_quota'))) {
    const calls = object(entry, `info.x-limits.monthly_quota.${credential}`).calls_per_month;
    if (calls !== null && (typeof calls !== 'number' || !Number.isInteger(calls) || calls < 0)) {
      fail(`info.x-limits.monthly_quota.${credential}.calls_per_month as a count or null`);
    }
    monthlyQuota.set(credential, calls);
  }
  const rows = raw.bulk_rows_per_request;
  if (typeof rows !== 'number' || !Number.isInteger(rows) || rows < 1)
    fail('info.x-limits.bulk_rows_per_request as a count');
  const deadline =
    typeof raw.return_withdrawal_deadline === 'string' ? parseTimeOfDay(raw.return_withdrawal_deadline) : undefined;
  if (!deadline) fail('info.x-limits.return_withdrawal_deadline as HH:MM');
  const syntax = raw.query_integer_syntax;
  if (typeof syntax !== 'string' || !syntax.startsWith('^') || !syntax.endsWith('$')) {
    fail('info.x-limits.query_integer_syntax as an anchored pattern');
  }
  const meaning = raw.query_integer_meaning;
  if (typeof meaning !== 'string' || meaning.trim() === '') fail('info.x-limits.query_integer_meaning as words');
  return {
    gateway,
    monthlyQuota,
    bulkRowsPerRequest: rows,
    returnWithdrawalDeadline: deadline,
    queryIntegerSyntax: new RegExp(syntax, 'u'),
    queryIntegerMeaning: meaning,
  };
}

/** The `type` a schema finally has, following its `$ref`s through the document. */
function typeOf(doc: OpenApiDocument, schema: unknown): unknown {
  let current = schema as Record<string, unknown> | undefined;
  for (let hops = 0; hops < 32 && current && typeof current === 'object'; hops++) {
    if (current.type !== undefined) return current.type;
    const next = referenceOf(current);
    if (!next) return undefined;
    current = resolvePointer(doc, next.$ref) as Record<string, unknown> | undefined;
  }
  return undefined;
}

/** The names of an operation's integer query parameters: those `info.x-limits.query_integer_syntax` says how to write. */
export function integerQueryParameters(doc: OpenApiDocument, op: OperationInfo): string[] {
  return op.parameters.filter((p) => p.in === 'query' && typeOf(doc, p.schema) === 'integer').map((p) => p.name);
}

/**
 * Why the raw value of an integer query parameter is refused, as the 400 message every server of the contract
 * answers with, or undefined when it is written as `syntax` says (`Limits.queryIntegerSyntax`, worded by
 * `queryIntegerMeaning`). A value given more
 * than once arrives as an array. The value is not repeated: it may hold anything, control characters included.
 */
export function integerQueryMessage(
  name: string,
  value: string | readonly string[],
  syntax: IntegerQuerySyntax,
): string | undefined {
  if (typeof value === 'string' && syntax.queryIntegerSyntax.test(value)) return undefined;
  const how = typeof value === 'string' ? `written as ${syntax.queryIntegerMeaning}` : 'given once';
  return `The query parameter ${name} must be ${how}.`;
}

/** `info.x-service-time-zone`, checked to be an IANA zone this runtime knows. */
export function readTimeZone(doc: OpenApiDocument): string {
  const zone = doc.info['x-service-time-zone'];
  if (typeof zone !== 'string' || zone === '') fail('info.x-service-time-zone');
  new ServiceTime(zone);
  return zone;
}

// ---------------------------------------------------------------------------------------------------------------
// Response headers of the monthly quota

/** The headers of the monthly quota, spelt as the contract declares them on its 429. */
export interface QuotaHeaders {
  /** `X-RateLimit-Limit`: the allowance for the month. */
  limit: string;
  /** `X-RateLimit-Remaining`: calls left this month. */
  remaining: string;
  /** `X-RateLimit-Reset`: when the allowance resets. */
  reset: string;
  /** `Retry-After`: on the quota's 429 only, which it tells apart from the gateway's. */
  retryAfter: string;
}

/**
 * The quota headers, read from the headers the operations declare on their 429: `Retry-After` (HTTP's own name) and
 * one rate-limit header ending in each of `-Limit`, `-Remaining` and `-Reset`.
 */
export function readQuotaHeaders(ops: readonly OperationInfo[]): QuotaHeaders {
  const declared = new Set<string>();
  for (const op of ops) for (const name of Object.keys(op.responses['429']?.headers ?? {})) declared.add(name);
  const names = [...declared];
  const one = (suffix: string): string => {
    const found = names.filter((n) => n.toLowerCase().endsWith(suffix.toLowerCase()) && n.includes('-'));
    if (found.length !== 1)
      fail(`one header ending in ${suffix} on a 429 response (found ${found.join(', ') || 'none'})`);
    return found[0]!;
  };
  const retryAfter = names.find((n) => n.toLowerCase() === 'retry-after') ?? fail('Retry-After on a 429 response');
  return { limit: one('-Limit'), remaining: one('-Remaining'), reset: one('-Reset'), retryAfter };
}

/** Every header the operations' responses declare, the first spelling of each (header names ignore case). */
export function readResponseHeaders(ops: readonly OperationInfo[]): string[] {
  const names = new Map<string, string>();
  for (const op of ops) {
    for (const response of Object.values(op.responses)) {
      for (const name of Object.keys(response.headers ?? {})) {
        if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
      }
    }
  }
  return [...names.values()].sort();
}

// ---------------------------------------------------------------------------------------------------------------
// Credentials

/** A security scheme whose credential travels in a request header: an API key, or HTTP authentication. */
export interface CredentialScheme {
  /** Its name in `components.securitySchemes` (`WmsApiKey`, `BearerAuth`). */
  name: string;
  kind: 'apiKey' | 'http';
  /** The request header it travels in, as the contract spells it (`X-API-Key`; `Authorization` for HTTP). */
  header: string;
  /** For `http`, the authentication scheme, lower-cased (`bearer`). */
  httpScheme?: string;
  /** For `apiKey`, the area of the keys it stands for (`x-key-area`): a key's first segment (`wms`). */
  keyArea?: string;
}

/** The extension on an API key scheme naming the area of its keys. */
export const KEY_AREA_KEYWORD = 'x-key-area';

/** The schemes of `components.securitySchemes` sent in a header, in document order; other kinds are left out. */
export function readCredentialSchemes(doc: OpenApiDocument): CredentialScheme[] {
  const out: CredentialScheme[] = [];
  for (const [name, raw] of Object.entries(doc.components?.securitySchemes ?? {})) {
    const scheme = object(deref(doc, raw as JsonSchema), `components.securitySchemes.${name}`);
    if (scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string') {
      const keyArea = scheme[KEY_AREA_KEYWORD];
      if (typeof keyArea !== 'string' || !/^[a-z][a-z0-9]*$/.test(keyArea))
        fail(`components.securitySchemes.${name}.${KEY_AREA_KEYWORD}, the area of its keys`);
      out.push({ name, kind: 'apiKey', header: scheme.name, keyArea });
    } else if (scheme.type === 'http' && typeof scheme.scheme === 'string')
      out.push({ name, kind: 'http', header: 'Authorization', httpScheme: scheme.scheme.toLowerCase() });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Order statuses

/** The extension on `components.schemas.OrderStatusCode` listing the codes of a shipped order. */
export const SHIPPED_VALUES_KEYWORD = 'x-shipped-values';

/** What the contract says of order status codes (the codes it knows: `knownValues`). */
export interface OrderStatuses {
  /** The codes of an order that has shipped and can no longer be modified (`x-shipped-values`). */
  shipped: readonly number[];
}

/** `OrderStatusCode`'s shipped codes, checked: integers, each one of its known values. */
export function readOrderStatuses(doc: OpenApiDocument): OrderStatuses {
  const schema = object(
    deref(doc, (doc.components?.schemas?.OrderStatusCode ?? null) as JsonSchema),
    'components.schemas.OrderStatusCode',
  );
  const shipped = schema[SHIPPED_VALUES_KEYWORD];
  if (!Array.isArray(shipped) || shipped.length === 0 || !shipped.every((v) => Number.isInteger(v)))
    fail(`OrderStatusCode.${SHIPPED_VALUES_KEYWORD} as a list of integers`);
  const known = Array.isArray(schema[KNOWN_VALUES_KEYWORD]) ? (schema[KNOWN_VALUES_KEYWORD] as unknown[]) : [];
  const unknown = shipped.filter((code) => !known.includes(code));
  if (unknown.length > 0)
    fail(`the shipped status ${unknown.join(', ')} among OrderStatusCode.${KNOWN_VALUES_KEYWORD}`);
  return { shipped: [...(shipped as number[])] };
}

// ---------------------------------------------------------------------------------------------------------------
// Validation: one Ajv configuration for every tool

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => void;
const DOC_ID = 'https://contract.cls-api.invalid/openapi.json';

export interface ValidatorOptions {
  /**
   * Validate against the relaxed contract (`relaxProvisional`): only what the source shows. A value the relaxed
   * validator accepts and the full one refuses departs from a design only.
   */
  relaxed?: boolean;
  /** Coerce strings to the schema's scalar types: request parameters arrive as text. */
  coerceTypes?: boolean;
  /**
   * Accept any member of an open set (`x-known-values` is not checked): what a server does with a request, where
   * `order_status_code=55` is a valid filter. Without it a value outside the known ones is an error, which is how
   * the kit finds departures from the contract's knowledge. The relaxed validator never checks them.
   */
  openValues?: boolean;
}

/** Validates values against schemas of the contract (`$ref`s resolve against the whole document). */
export interface SchemaValidator {
  /** The compiled validator of a schema, cached by the schema's text. */
  compile(schema: JsonSchema): ValidateFunction;
  /** The errors of `value` against `schema`; [] when valid. */
  errors(schema: JsonSchema, value: unknown): ErrorObject[];
}

/**
 * `x-known-values`: a value outside the list is an error of the full validator only, so that a value the source
 * leaves open departs from the contract's knowledge without breaking it (spec/README.md, "Open value sets").
 */
function knownValuesKeyword() {
  const show = (v: unknown) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
  const validate = (known: unknown[], data: unknown): boolean => {
    if (known.some((k) => k === data)) return true;
    validate.errors = [
      {
        keyword: KNOWN_VALUES_KEYWORD,
        message: `${show(data)} is not a known value (${known.map(show).join(', ')}): the set is open`,
        params: { knownValues: known },
      },
    ];
    return false;
  };
  validate.errors = [] as Array<Partial<ErrorObject>>;
  return { keyword: KNOWN_VALUES_KEYWORD, schemaType: 'array' as const, errors: true, validate };
}

/** Document-local `$ref`s made absolute, so a schema compiled on its own resolves them against the document. */
function absolutize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absolutize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? DOC_ID + v : absolutize(v);
    }
    return out;
  }
  return value;
}

function createValidator(doc: OpenApiDocument, options: ValidatorOptions): SchemaValidator {
  const relaxed = options.relaxed === true;
  const source = relaxed ? relaxProvisional(doc) : doc;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateSchema: false,
    validateFormats: true,
    // Errors name their schema, so that the errors of a `oneOf` can be told by branch (errorsOfTakenBranches).
    verbose: true,
    ...(options.coerceTypes ? { coerceTypes: true, useDefaults: true } : {}),
  });
  addFormats(ajv);
  if (!relaxed && options.openValues !== true) ajv.addKeyword(knownValuesKeyword());
  ajv.addSchema({ $id: DOC_ID, components: source.components ?? {}, paths: source.paths ?? {} } as object);
  const meanings = patternMeanings(doc);
  const cache = new Map<string, ValidateFunction>();
  // Callers pass the same schema objects of the document on every request: found by identity, a schema costs no
  // serialisation (its text was a measurable share of a request's CPU in the reference server, BENCHMARKS.md).
  const byObject = new WeakMap<object, ValidateFunction>();
  const compile = (schema: JsonSchema): ValidateFunction => {
    const known = byObject.get(schema);
    if (known) return known;
    const key = JSON.stringify(schema);
    let fn = cache.get(key);
    if (!fn) {
      fn = ajv.compile(absolutize(relaxed ? relaxProvisional(schema) : schema) as object);
      cache.set(key, fn);
    }
    byObject.set(schema, fn);
    return fn;
  };
  return {
    compile,
    errors(schema, value) {
      const fn = compile(schema);
      return fn(value) ? [] : inWords(errorsOfTakenBranches(fn.errors ?? [], value, compile), meanings);
    },
  };
}

/** The keywords that check how a string is written, which a pattern's meaning (`x-pattern-meaning`) puts in words. */
const WRITTEN_FORM_KEYWORDS = new Set(['pattern', 'minLength', 'maxLength', 'format']);

/**
 * The errors of a value whose pattern the document puts in words (`x-pattern-meaning`, found by the pattern's text,
 * so a schema inlined without its extensions is read the same) say that instead, once per value: a calendar check is
 * a few hundred characters of regular expression that tell a reader nothing, and "fewer than 10 characters" does not
 * say which 10.
 */
function inWords(errors: ErrorObject[], meanings: ReadonlyMap<string, string>): ErrorObject[] {
  const meaningAt = new Map<string, string>();
  for (const error of errors) {
    const meaning = error.keyword === 'pattern' ? meanings.get(String(error.params.pattern)) : undefined;
    if (meaning !== undefined) meaningAt.set(error.instancePath, meaning);
  }
  if (meaningAt.size === 0) return errors;
  const said = new Set<string>();
  return errors.filter((error) => {
    const meaning = WRITTEN_FORM_KEYWORDS.has(error.keyword) ? meaningAt.get(error.instancePath) : undefined;
    if (meaning === undefined) return true;
    if (said.has(error.instancePath)) return false;
    said.add(error.instancePath);
    error.message = `must be ${meaning}`;
    return true;
  });
}

/**
 * A validator over any document of this repository in the one Ajv configuration, for a document that is not the
 * contract (the sandbox document, `loadSandboxSpec`); the contract's own is `contractModel().validator()`.
 */
export function documentValidator(doc: OpenApiDocument, options: ValidatorOptions = {}): SchemaValidator {
  return createValidator(doc, options);
}

/**
 * Ajv reports the errors of every branch of a failed `oneOf`. A branch whose boolean `const` refused the value (the
 * success row, for a result row whose `success` is false) is a branch the value never meant to take. When exactly
 * one branch is left, the value's errors are that branch's own: the value is checked against it alone, and those
 * errors replace what the `oneOf` reported. Otherwise every error stays.
 */
function errorsOfTakenBranches(
  errors: readonly ErrorObject[],
  value: unknown,
  compile: (schema: JsonSchema) => ValidateFunction,
): ErrorObject[] {
  let out = [...errors];
  for (const failed of errors) {
    const branches = failed.keyword === 'oneOf' ? failed.schema : undefined;
    if (!Array.isArray(branches)) continue;
    const prefix = `${failed.schemaPath}/`;
    const untaken = new Set<number>();
    for (const e of errors) {
      if (e.keyword !== 'const' || !e.schemaPath.startsWith(prefix)) continue;
      const match = /^(\d+)\/properties\/[^/]+\/const$/.exec(e.schemaPath.slice(prefix.length));
      if (match && typeof (e.params as { allowedValue?: unknown }).allowedValue === 'boolean')
        untaken.add(Number(match[1]));
    }
    const taken = branches.map((_, i) => i).filter((i) => !untaken.has(i));
    if (untaken.size === 0 || taken.length !== 1) continue;
    const at = failed.instancePath;
    const check = compile(branches[taken[0]!] as JsonSchema);
    const own = check(valueAt(value, at))
      ? []
      : (check.errors ?? []).map((e) => ({ ...e, instancePath: at + e.instancePath }));
    // Every error under the value's path is replaced: those of the branches cannot all be told apart (an error
    // inside a referenced schema names that schema, not the branch), and the branch checks the whole value.
    const under = (e: ErrorObject) => e.instancePath === at || e.instancePath.startsWith(`${at}/`);
    out = [...out.filter((e) => !under(e)), ...own];
  }
  const seen = new Set<string>();
  return out.filter((e) => {
    const key = `${e.instancePath} ${e.schemaPath} ${e.keyword} ${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The part of a value at a JSON pointer (Ajv's `instancePath`). */
function valueAt(value: unknown, pointer: string): unknown {
  let node = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

// ---------------------------------------------------------------------------------------------------------------
// The model

export interface ProvisionalElement {
  kind: 'operation' | 'parameter' | 'schema';
  /** operationId, component parameter name, or schema node (`Pagination.size`). */
  name: string;
  /** Where it shows: `GET /v3/wms/orders`, `query size`, `schema Pagination.size`. */
  where: string;
}

/** Every fact of one contract document a tool reads, checked when the model is made. */
export class ContractModel {
  readonly doc: OpenApiDocument;
  readonly operations: readonly OperationInfo[];
  readonly catalog: ReadonlyMap<string, ErrorCatalogEntry>;
  readonly limits: Limits;
  /** The monthly quota's response headers. */
  readonly quotaHeaders: QuotaHeaders;
  /** The shipped order status codes. */
  readonly orderStatuses: OrderStatuses;
  /** The security schemes sent in a request header. */
  readonly credentialSchemes: readonly CredentialScheme[];
  /** Every header a response of some operation declares, as the contract spells it, once per name, sorted. */
  readonly responseHeaders: readonly string[];
  readonly timeZone: string;
  /** Wall-clock arithmetic in the service time zone. */
  readonly time: ServiceTime;
  private readonly byId: Map<string, OperationInfo>;
  private readonly validatorCache = new Map<string, SchemaValidator>();

  constructor(doc: OpenApiDocument) {
    this.doc = doc;
    this.operations = operations(doc);
    this.byId = new Map(this.operations.map((op) => [op.operationId, op]));
    this.catalog = errorCatalog(doc);
    this.limits = readLimits(doc);
    this.quotaHeaders = readQuotaHeaders(this.operations);
    this.orderStatuses = readOrderStatuses(doc);
    this.credentialSchemes = readCredentialSchemes(doc);
    this.responseHeaders = readResponseHeaders(this.operations);
    this.timeZone = readTimeZone(doc);
    this.time = new ServiceTime(this.timeZone);
  }

  /** The operation with this operationId; throws a `ContractError` when there is none. */
  operation(operationId: string): OperationInfo {
    return this.byId.get(operationId) ?? fail(`an operation ${operationId}`);
  }

  findOperation(operationId: string): OperationInfo | undefined {
    return this.byId.get(operationId);
  }

  /** The codes an operation documents for a status (`x-error-codes`). */
  errorCodes(op: OperationInfo, status: number | string): string[] {
    return op.responses[String(status)]?.errorCodes ?? [];
  }

  /** Whether an order in status `code` has shipped and can no longer be modified. */
  isShipped(code: number): boolean {
    return this.orderStatuses.shipped.includes(code);
  }

  /** The gateway limits a path falls under, most specific (longest `appliesTo`) first. */
  gatewayLimits(path: string): GatewayLimit[] {
    return this.limits.gateway
      .filter((g) => path.startsWith(g.appliesTo))
      .sort((a, b) => b.appliesTo.length - a.appliesTo.length);
  }

  /** The areas whose operations accept `scheme` (`BearerAuth`: `manager`, `pay`), sorted. */
  areasAccepting(scheme: string): string[] {
    return [...new Set(this.operations.filter((op) => op.security.includes(scheme)).map((op) => op.area))].sort();
  }

  /**
   * The known members of an open set (`x-known-values`) of a schema, following its `$ref`s; undefined when the
   * schema states none.
   */
  knownValues(schema: JsonSchema | undefined): unknown[] | undefined {
    let node: unknown = schema;
    for (let hops = 0; hops < 32 && node && typeof node === 'object'; hops++) {
      const known = (node as JsonSchema)[KNOWN_VALUES_KEYWORD];
      if (Array.isArray(known)) return [...known];
      const ref = (node as JsonSchema).$ref;
      if (typeof ref !== 'string') return undefined;
      node = resolvePointer(this.doc, ref);
    }
    return undefined;
  }

  /** A validator of this contract; one per set of options, compiled lazily and kept. */
  validator(options: ValidatorOptions = {}): SchemaValidator {
    const key = `${options.relaxed === true}/${options.coerceTypes === true}/${options.openValues === true}`;
    let v = this.validatorCache.get(key);
    if (!v) {
      v = createValidator(this.doc, options);
      this.validatorCache.set(key, v);
    }
    return v;
  }

  /** Every `x-provisional` operation, component parameter and schema node, in document order. */
  provisionalElements(): ProvisionalElement[] {
    const found: ProvisionalElement[] = [];
    for (const [path, item] of Object.entries(this.doc.paths ?? {})) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (op && isProvisional(op) && op.operationId)
          found.push({ kind: 'operation', name: op.operationId, where: `${method.toUpperCase()} ${path}` });
      }
    }
    for (const [name, raw] of Object.entries(this.doc.components?.parameters ?? {})) {
      const p = deref<ParameterObject>(this.doc, raw);
      if (isProvisional(p)) found.push({ kind: 'parameter', name, where: `${p.in} \`${p.name}\`` });
      // A parameter whose bound the source shows keeps it on its own node and marks only the designed rest.
      else
        for (const nested of provisionalNodesIn(p.schema, `${name}.schema`).keys())
          found.push({ kind: 'parameter', name: nested, where: `${p.in} \`${p.name}\`` });
    }
    for (const name of provisionalSchemaNodes(this.doc).keys())
      found.push({ kind: 'schema', name, where: `schema \`${name}\`` });
    return found;
  }
}

let bundled: ContractModel | undefined;

/** The model of the bundled contract (`dist/openapi.json`), made once per process; or of another document. */
export function contractModel(doc?: OpenApiDocument): ContractModel {
  if (doc) return new ContractModel(doc);
  bundled ??= new ContractModel(loadSpec());
  return bundled;
}
