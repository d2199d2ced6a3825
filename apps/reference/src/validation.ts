import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { resolvePointer, type JsonSchema, type OpenApiDocument, type OperationInfo } from '@cls-api/spec';
import { shown } from './errors.js';

// ajv-formats is CommonJS; under NodeNext its default import is the module object with the plugin on `default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** The id under which the contract's components are registered, so `#/components/…` references resolve. */
const DOC_ID = 'https://cls-api.local/openapi.json';

/** OpenAPI keywords that may sit in a schema object without being JSON Schema validation keywords. */
const OPENAPI_ANNOTATIONS = ['example', 'discriminator', 'xml', 'externalDocs'];

function extensionKeywords(value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => extensionKeywords(v, found));
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key.startsWith('x-')) found.add(key);
      extensionKeywords(child, found);
    }
  }
  return found;
}

/** A copy of `schema` whose local references point into the registered contract. */
export function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOC_ID}${value}` : anchored(value);
  }
  return out;
}

/** Ajv 2020 (with ajv-formats) that knows the contract's components. */
export function contractAjv(doc: OpenApiDocument, options: { coerceTypes: boolean; useDefaults: boolean }): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allErrors: false,
    // Errors carry the schema they failed (`parentSchema`), so a message can name what the client may send.
    verbose: true,
    coerceTypes: options.coerceTypes,
    useDefaults: options.useDefaults,
  });
  addFormats(ajv);
  for (const keyword of [...OPENAPI_ANNOTATIONS, ...extensionKeywords(doc, new Set())]) ajv.addKeyword(keyword);
  ajv.addKeyword('components');
  ajv.addSchema({ components: doc.components ?? {} }, DOC_ID);
  return ajv;
}

export type RequestPart = 'params' | 'query' | 'body';

/** A request that does not match the contract, described the way the client wrote it. */
export class RequestValidationError extends Error {
  constructor(
    readonly part: RequestPart,
    /** `orders[2].receiver_name`, `size`, or '' for the whole body. */
    readonly item: string,
    /** True when a required item is absent (REQUIRED_PARAMETER), false for a wrong format or value. */
    readonly missing: boolean,
    message: string,
  ) {
    super(message);
    this.name = 'RequestValidationError';
  }
}

/**
 * `/orders/2/receiver_name` → `orders[2].receiver_name`, as a message may show it: a property name is the client's
 * own text (`a\u0010b`), so it is escaped and bounded (`shown`).
 */
export function itemName(instancePath: string, child?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  let out = '';
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return shown(out);
}

function describe(part: RequestPart, error: ErrorObject): RequestValidationError {
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    const item = itemName(error.instancePath, String(p.missingProperty));
    const what = part === 'body' ? item : `The ${part === 'query' ? 'query' : 'path'} parameter ${item}`;
    return new RequestValidationError(part, item, true, `${what} is required.`);
  }
  const item = itemName(error.instancePath);
  if (error.keyword === 'minProperties') {
    // An object that names fewer items than it needs lacks a required item, whichever one the client meant to
    // send (`PATCH /v3/wms/orders/{order_no}` with `{}`: DECISIONS G27).
    const subject = item === '' ? 'The request body' : item;
    const properties = Object.keys(((error.parentSchema as JsonSchema | undefined)?.properties ?? {}) as object);
    const choice = properties.length > 0 ? `: give at least ${String(p.limit)} of ${properties.join(', ')}` : '';
    const names = p.limit === 1 ? 'names no field' : `names fewer than ${String(p.limit)} fields`;
    return new RequestValidationError(part, item, true, `${subject} ${names}${choice}.`);
  }
  if (error.keyword === 'additionalProperties') {
    const extra = itemName(error.instancePath, String(p.additionalProperty));
    return new RequestValidationError(part, extra, false, `${extra} is not allowed.`);
  }
  const subject = item === '' ? 'The request body' : part === 'body' ? item : `The ${part === 'query' ? 'query' : 'path'} parameter ${item}`;
  return new RequestValidationError(part, item, false, `${subject} ${error.message ?? 'is invalid'}.`);
}

export interface RequestValidator {
  /** Validates and, for params and query, coerces and fills defaults in place. Throws RequestValidationError. */
  (request: { params: unknown; query: unknown; body: unknown }): void;
}

/** The `type` a schema finally has, following its `$ref`s through the document. */
function typeOf(doc: OpenApiDocument, schema: unknown): unknown {
  let current = schema as Record<string, unknown> | undefined;
  for (let hops = 0; hops < 32 && current && typeof current === 'object'; hops++) {
    if (current.type !== undefined) return current.type;
    if (typeof current.$ref !== 'string') return undefined;
    current = resolvePointer(doc, current.$ref) as Record<string, unknown> | undefined;
  }
  return undefined;
}

export interface RequestValidatorOptions {
  doc: OpenApiDocument;
  /**
   * How an integer query parameter is written (`info.x-limits.query_integer_syntax`). Checked on the raw text,
   * before Ajv coerces it: coercion turns `1e1`, `0x10` or ` 10` into numbers and `Infinity` into a number that
   * passes `minimum`/`maximum`, so only the text tells them from `10`.
   */
  integerSyntax: RegExp;
}

function parameterSchema(op: OperationInfo, location: 'path' | 'query'): JsonSchema | undefined {
  const params = op.parameters.filter((p) => p.in === location);
  if (params.length === 0) return undefined;
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, anchored(p.schema ?? {})])),
    required: params.filter((p) => p.required).map((p) => p.name),
  };
}

/** The request validator of one operation, compiled from the contract's own parameter and body schemas. */
export function requestValidator(op: OperationInfo, ajv: { coercing: Ajv2020; strict: Ajv2020 }, options: RequestValidatorOptions): RequestValidator {
  const compile = (ajvInstance: Ajv2020, schema: JsonSchema | undefined): ValidateFunction | undefined =>
    schema === undefined ? undefined : ajvInstance.compile(schema);
  const integerQuery = op.parameters.filter((p) => p.in === 'query' && typeOf(options.doc, p.schema) === 'integer').map((p) => p.name);
  const { integerSyntax } = options;
  const params = compile(ajv.coercing, parameterSchema(op, 'path'));
  const query = compile(ajv.coercing, parameterSchema(op, 'query'));
  const bodySchema = op.requestBody?.schema;
  const body = compile(ajv.strict, bodySchema === undefined ? undefined : (anchored(bodySchema) as JsonSchema));
  const bodyRequired = op.requestBody?.required === true;

  return (request) => {
    if (params && !params(request.params)) throw describe('params', params.errors![0]!);
    const rawQuery = (request.query ?? {}) as Record<string, unknown>;
    for (const name of integerQuery) {
      const value = rawQuery[name];
      if (value === undefined) continue;
      if (typeof value !== 'string' || !integerSyntax.test(value)) {
        // The value is not echoed: it may hold anything, control characters included, which a message may not.
        const how = Array.isArray(value) ? 'given once' : `written as decimal digits only (${integerSyntax.source})`;
        throw new RequestValidationError('query', name, false, `The query parameter ${name} must be ${how}.`);
      }
    }
    if (query && !query(request.query)) throw describe('query', query.errors![0]!);
    if (body) {
      if (request.body === undefined) {
        if (bodyRequired) throw new RequestValidationError('body', '', true, 'The request body is required.');
      } else if (!body(request.body)) {
        throw describe('body', body.errors![0]!);
      }
    }
  };
}

/** Validates response bodies against the contract (strict-contract mode). */
export function responseValidator(op: OperationInfo, ajv: Ajv2020): (status: number, body: unknown) => string | undefined {
  const validators = new Map<string, ValidateFunction>();
  return (status, body) => {
    const response = op.responses[String(status)];
    if (!response) return `${op.operationId} does not document status ${status}`;
    if (!response.schema) return undefined;
    let validate = validators.get(response.status);
    if (!validate) {
      validate = ajv.compile(anchored(response.schema) as JsonSchema);
      validators.set(response.status, validate);
    }
    if (validate(body)) return undefined;
    return `${op.operationId} ${status}: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`;
  };
}
