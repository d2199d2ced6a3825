import { describeRequestError, type RequestPart, schemaAt } from '@cls-api/server';
import {
  integerQueryMessage,
  integerQueryParameters,
  isReference,
  KNOWN_VALUES_KEYWORD,
  resolvePointer,
  type ErrorObject,
  type IntegerQuerySyntax,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
  type SchemaValidator,
} from '@cls-api/spec';
import { SLICE_MS, Slices } from './slices.js';

// Requests and responses are validated by the contract model's validators (`@cls-api/spec`'s `contractModel`), the
// one Ajv configuration of the repository: `validator({ coerceTypes: true, openValues: true })` for path and query
// parameters (text, coerced and defaulted), `validator({ openValues: true })` for bodies (a request may carry any
// member of an open set, DECISIONS G24: `order_status_code=55` is an empty page), `validator()` for responses.

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

function describe(
  part: RequestPart,
  error: ErrorObject,
  schemaOf?: (instancePath: string) => JsonSchema | undefined,
): RequestValidationError {
  const { item, missing, message } = describeRequestError(part, error, schemaOf);
  return new RequestValidationError(part, item, missing, message);
}

/**
 * Validates and, for params and query, coerces and fills defaults in place. Throws (or, in slices, rejects with)
 * RequestValidationError. `inSlices` asks for a bulk body's rows to be checked in slices of the event loop
 * (`BulkRows`): a promise is returned then, for a bulk operation's body; the outcome is the same either way.
 */
export type RequestValidator = (
  request: { params: unknown; query: unknown; body: unknown },
  inSlices?: boolean,
) => undefined | Promise<void>;

// A bulk body (rows: `OrderBulkRequest.orders`, at most 1,000 of several kilobytes each) is checked in one Ajv call
// that holds the event loop for milliseconds. In slices it is checked in two parts: the body with its rows' schema
// replaced by `false` (the envelope: every other keyword, the rows' own bounds and type included, as they were),
// then each row against the rows' schema, with a turn for others between slices. The errors of the whole body are
// the envelope's with the rows' errors, in row order, in place of the `false` ones (Ajv checks every keyword,
// `allErrors`, and the items of an array one after another): the first of them, the one reported, is the same.

/** Keys beside a `$ref` that check nothing, so the reference reads as the schema it names. */
function isAnnotation(key: string): boolean {
  if (key.startsWith('x-')) return key !== KNOWN_VALUES_KEYWORD;
  return ['title', 'description', '$comment', 'examples', 'deprecated', 'readOnly', 'writeOnly'].includes(key);
}

/**
 * Keywords that would make the rows reach Ajv other than through the one `items` (or make the order of the errors
 * the model's own: a `oneOf`'s are rearranged, `errorsOfTakenBranches`): a schema with one is checked whole.
 */
const NOT_SPLIT = [
  '$dynamicRef',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'patternProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'prefixItems',
  'contains',
  'uniqueItems',
];

type SchemaNode = Record<string, unknown>;

/** The schema a node is, through `$ref`s that carry only annotations; undefined if one carries more. */
function plain(doc: OpenApiDocument, node: unknown): SchemaNode | undefined {
  let current = node;
  for (let hops = 0; hops < 32; hops++) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!isReference(current)) return current as SchemaNode;
    if (!Object.keys(current).every((key) => key === '$ref' || isAnnotation(key))) return undefined;
    current = resolvePointer(doc, current.$ref);
  }
  return undefined;
}

/** Whether `keyword` is used anywhere in `schema` or a schema it references. */
function uses(doc: OpenApiDocument, schema: unknown, keyword: string): boolean {
  const seen = new Set<unknown>();
  const stack = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node) && Object.hasOwn(node, keyword)) return true;
    if (isReference(node)) stack.push(resolvePointer(doc, node.$ref));
    for (const child of Object.values(node)) stack.push(child);
  }
  return false;
}

/** The rows of a bulk body: the one member of its object that is an array of objects. */
export interface BulkRows {
  /** The member (`orders`). */
  member: string;
  /** Where the rows are, as Ajv writes an error's `instancePath` (`/orders`). */
  pointer: string;
  /** The body's schema with the rows' `items` replaced by `false`. */
  envelope: JsonSchema;
  /** The schema of one row (`OrderRow`), as the contract writes it. */
  row: JsonSchema;
}

/**
 * The rows of a body of `bodySchema`, found in the schema; undefined when the body holds no array of objects, or
 * when its schema cannot be split without changing what its validation reports (`NOT_SPLIT`).
 */
export function bulkRowsOf(doc: OpenApiDocument, bodySchema: JsonSchema | undefined): BulkRows | undefined {
  if (bodySchema === undefined || uses(doc, bodySchema, 'oneOf')) return undefined;
  const body = plain(doc, bodySchema);
  if (!body || NOT_SPLIT.some((k) => k in body) || 'allOf' in body) return undefined;
  const properties = body.properties as Record<string, unknown> | undefined;
  if (!properties || typeof properties !== 'object') return undefined;

  // The member's schema with its `items` set to `false`: every schema on the way to it copied, the references
  // to them replaced by the copies (each held only annotations beside it), the rest shared with the document.
  const split = (node: unknown, found: unknown[]): SchemaNode | undefined => {
    const schema = plain(doc, node);
    if (!schema || NOT_SPLIT.some((k) => k in schema)) return undefined;
    const copy: SchemaNode = { ...schema };
    if ('items' in schema) {
      found.push(schema.items);
      copy.items = false;
    }
    if (Array.isArray(schema.allOf)) {
      const parts = schema.allOf.map((part) => split(part, found));
      if (parts.some((part) => part === undefined)) return undefined;
      copy.allOf = parts;
    }
    return copy;
  };
  const bulk: BulkRows[] = [];
  for (const [member, memberSchema] of Object.entries(properties)) {
    const found: unknown[] = [];
    const envelopeMember = split(memberSchema, found);
    if (!envelopeMember || found.length !== 1) continue;
    const row = plain(doc, found[0]);
    if (row?.type !== 'object') continue;
    bulk.push({
      member,
      pointer: `/${member.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      envelope: { ...body, properties: { ...properties, [member]: envelopeMember } } as JsonSchema,
      row: found[0] as JsonSchema,
    });
  }
  return bulk.length === 1 ? bulk[0] : undefined;
}

/**
 * The first error of `value` against the body's schema, as one validation of the whole body reports it, found in
 * slices of the event loop: the envelope's errors in order, the rows' first one standing where the rows' are.
 */
async function firstBulkError(
  validator: SchemaValidator,
  bulk: BulkRows,
  value: unknown,
  slices: Slices,
): Promise<ErrorObject | undefined> {
  const rowsAt = `${bulk.pointer}/`;
  let rowsChecked = false;
  for (const error of validator.errors(bulk.envelope, value)) {
    if (!error.instancePath.startsWith(rowsAt)) return error;
    if (rowsChecked) continue;
    rowsChecked = true;
    // The `false` errors are there only when Ajv checked the rows, an array: this one.
    const rows = (value as Record<string, unknown[]>)[bulk.member]!;
    for (let i = 0; i < rows.length; i++) {
      await slices.maybe();
      const [first] = validator.errors(bulk.row, rows[i]);
      if (first) return { ...first, instancePath: `${rowsAt}${i}${first.instancePath}` };
    }
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
  integerSyntax: IntegerQuerySyntax;
  /** How long a bulk body's rows are checked before others get a turn, in slices (`SLICE_MS` unless given). */
  sliceMs?: number;
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
  const integerQuery = integerQueryParameters(options.doc, op);
  const { integerSyntax } = options;
  const params = check(validators.parameters, parameterSchema(op, 'path'));
  const query = check(validators.parameters, parameterSchema(op, 'query'));
  const bodySchema = op.requestBody?.schema;
  const body = check(validators.body, bodySchema);
  const bodyRequired = op.requestBody?.required === true;
  const bodySchemaAt = (instancePath: string) => schemaAt(options.doc, bodySchema, instancePath);
  const bulk = bulkRowsOf(options.doc, bodySchema);
  if (bulk) {
    validators.body.compile(bulk.envelope);
    validators.body.compile(bulk.row);
  }
  const sliceMs = options.sliceMs ?? SLICE_MS;

  return (request, inSlices = false) => {
    const paramsError = params?.(request.params);
    if (paramsError) throw describe('params', paramsError);
    const rawQuery = (request.query ?? {}) as Record<string, unknown>;
    for (const name of integerQuery) {
      const value = rawQuery[name];
      if (value === undefined) continue;
      const refused = integerQueryMessage(name, value as string | string[], integerSyntax);
      if (refused !== undefined) throw new RequestValidationError('query', name, false, refused);
    }
    const queryError = query?.(request.query);
    if (queryError) throw describe('query', queryError);
    if (body) {
      if (request.body === undefined) {
        if (bodyRequired) throw new RequestValidationError('body', '', true, 'The request body is required.');
      } else if (bulk && inSlices) {
        return firstBulkError(validators.body, bulk, request.body, new Slices(sliceMs)).then((bodyError) => {
          if (bodyError) throw describe('body', bodyError, bodySchemaAt);
        });
      } else {
        const bodyError = body(request.body);
        if (bodyError) throw describe('body', bodyError, bodySchemaAt);
      }
    }
    return undefined;
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
