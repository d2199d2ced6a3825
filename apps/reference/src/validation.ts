import {
  referenceOf,
  resolvePointer,
  type ErrorObject,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
  type SchemaValidator,
} from '@cls-api/spec';
import { shown } from './errors.js';

// Requests and responses are validated by the contract model's validators (`@cls-api/spec`'s `contractModel`), the
// one Ajv configuration of the repository: `validator({ coerceTypes: true, openValues: true })` for path and query
// parameters (text, coerced and defaulted), `validator({ openValues: true })` for bodies (a request may carry any
// member of an open set, DECISIONS G24: `order_status_code=55` is an empty page), `validator()` for responses.

/** The schema that applies at `instancePath` of a value of `schema`, following `$ref`s, `properties`, `items`. */
function schemaAt(doc: OpenApiDocument, schema: unknown, instancePath: string): JsonSchema | undefined {
  const deref = (node: unknown): Record<string, unknown> | undefined => {
    let current = node as Record<string, unknown> | undefined;
    // A reference wrapped to carry a description (`allOf: [{$ref}]`) is the schema it names.
    for (let hops = 0, next = referenceOf(current); hops < 32 && next; hops++, next = referenceOf(current)) {
      current = resolvePointer(doc, next.$ref) as Record<string, unknown> | undefined;
    }
    return current && typeof current === 'object' ? current : undefined;
  };
  let current = deref(schema);
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!current) return undefined;
    current = /^\d+$/.test(segment)
      ? deref(current.items)
      : deref((current.properties as Record<string, unknown> | undefined)?.[segment]);
  }
  return current as JsonSchema | undefined;
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

function describe(
  part: RequestPart,
  error: ErrorObject,
  schemaOf: (instancePath: string) => JsonSchema | undefined = () => undefined,
): RequestValidationError {
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
    const properties = Object.keys((schemaOf(error.instancePath)?.properties ?? {}) as object);
    const choice = properties.length > 0 ? `: give at least ${String(p.limit)} of ${properties.join(', ')}` : '';
    const names = p.limit === 1 ? 'names no field' : `names fewer than ${String(p.limit)} fields`;
    return new RequestValidationError(part, item, true, `${subject} ${names}${choice}.`);
  }
  if (error.keyword === 'additionalProperties') {
    const extra = itemName(error.instancePath, String(p.additionalProperty));
    return new RequestValidationError(part, extra, false, `${extra} is not allowed.`);
  }
  const subject =
    item === ''
      ? 'The request body'
      : part === 'body'
        ? item
        : `The ${part === 'query' ? 'query' : 'path'} parameter ${item}`;
  return new RequestValidationError(part, item, false, `${subject} ${error.message ?? 'is invalid'}.`);
}

/** Validates and, for params and query, coerces and fills defaults in place. Throws RequestValidationError. */
export type RequestValidator = (request: { params: unknown; query: unknown; body: unknown }) => void;

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

/** The contract model's validators a request is checked with. */
export interface RequestValidators {
  /** Path and query parameters: `validator({ coerceTypes: true, openValues: true })` (coerces, fills defaults). */
  parameters: SchemaValidator;
  /** The body, taken as sent: `validator({ openValues: true })`. */
  body: SchemaValidator;
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
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema ?? {}])),
    required: params.filter((p) => p.required).map((p) => p.name),
  };
}

/** The request validator of one operation, compiled from the contract's own parameter and body schemas. */
export function requestValidator(
  op: OperationInfo,
  validators: RequestValidators,
  options: RequestValidatorOptions,
): RequestValidator {
  const check = (validator: SchemaValidator, schema: JsonSchema | undefined) => {
    if (schema === undefined) return undefined;
    // Compiled now, at start-up, not on the first request.
    validator.compile(schema);
    return (value: unknown): ErrorObject | undefined => validator.errors(schema, value)[0];
  };
  const integerQuery = op.parameters
    .filter((p) => p.in === 'query' && typeOf(options.doc, p.schema) === 'integer')
    .map((p) => p.name);
  const { integerSyntax } = options;
  const params = check(validators.parameters, parameterSchema(op, 'path'));
  const query = check(validators.parameters, parameterSchema(op, 'query'));
  const bodySchema = op.requestBody?.schema;
  const body = check(validators.body, bodySchema);
  const bodyRequired = op.requestBody?.required === true;
  const bodySchemaAt = (instancePath: string) => schemaAt(options.doc, bodySchema, instancePath);

  return (request) => {
    const paramsError = params?.(request.params);
    if (paramsError) throw describe('params', paramsError);
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
    const queryError = query?.(request.query);
    if (queryError) throw describe('query', queryError);
    if (body) {
      if (request.body === undefined) {
        if (bodyRequired) throw new RequestValidationError('body', '', true, 'The request body is required.');
      } else {
        const bodyError = body(request.body);
        if (bodyError) throw describe('body', bodyError, bodySchemaAt);
      }
    }
  };
}

/** Validates response bodies against the contract (strict-contract mode), with the model's `validator()`. */
export function responseValidator(
  op: OperationInfo,
  validator: SchemaValidator,
): (status: number, body: unknown) => string | undefined {
  return (status, body) => {
    const response = op.responses[String(status)];
    if (!response) return `${op.operationId} does not document status ${status}`;
    if (!response.schema) return undefined;
    // The first error, as Ajv's `errorsText` writes it (`body/data/0/status must be …`).
    const [first] = validator.errors(response.schema, body);
    if (first === undefined) return undefined;
    return `${op.operationId} ${status}: body${first.instancePath} ${first.message ?? 'is invalid'}`;
  };
}
