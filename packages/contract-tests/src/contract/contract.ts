// The contract as the kit reads it: everything here is derived from the bundled document at run time, so a change
// of the spec changes what the kit checks without a change of code. The facts come from the contract model; each
// kind of question goes to the collaborator that reads it (operations, schemas, error catalogue, shapes, examples).
import {
  contractModel,
  isProvisional,
  isReference,
  relaxProvisional,
  type ErrorCatalogEntry,
  type GatewayLimit,
  type JsonSchema,
  type Limits,
  type OpenApiDocument,
  type OperationInfo,
  type OrderStatuses,
  type QuotaHeaders,
  type ResponseInfo,
  type ServiceTime,
  type ValidateFunction,
  KEY_AREA_KEYWORD,
} from '@cls-api/spec';
import { ErrorCatalogue } from './error-catalogue.js';
import { ContractExamples, type InvalidExample } from './examples.js';
import { Operations, responseFor, successStatus } from './operations.js';
import { ContractSchemas, type Verdict } from './schemas.js';
import { OperationShapes, type BulkShape, type PagedShape } from './shapes.js';

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
  /** Every response header the contract names anywhere, lower-cased. */
  readonly contractHeaders: Set<string>;
  private readonly index: Operations;
  private readonly schemas: ContractSchemas;
  private readonly errorCatalogue: ErrorCatalogue;
  private readonly shapes: OperationShapes;
  private readonly examples: ContractExamples;

  constructor(spec?: OpenApiDocument) {
    // Every fact and both validators come from the contract model (@cls-api/spec). The bundled contract's model is
    // the process's one, so that the schemas it compiled for one run serve the next: compiling them afresh for each
    // run cost the kit's own test suite, which runs it dozens of times in a process, about 40 of its 450 CPU-seconds.
    const model = contractModel(spec);
    const doc = model.doc;
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
    this.contractHeaders = new Set(model.responseHeaders.map((name) => name.toLowerCase()));
    this.index = new Operations(this.operations);
    this.schemas = new ContractSchemas(doc, model);
    this.errorCatalogue = new ErrorCatalogue(this.catalog);
    this.shapes = new OperationShapes(doc, this.relaxedDoc, this.schemas);
    this.examples = new ContractExamples(doc);
  }

  operation(operationId: string): OperationInfo {
    return this.index.operation(operationId);
  }
  findOperation(operationId: string): OperationInfo | undefined {
    return this.index.findOperation(operationId);
  }
  /** Whether the contract has every one of these operations (a case about them is made only then). */
  hasOperations(...operationIds: string[]): boolean {
    return this.index.hasOperations(...operationIds);
  }
  /** The response documented for a status: the exact code, then `4XX`-style ranges, then `default`. */
  responseFor(op: OperationInfo, status: number): ResponseInfo | undefined {
    return responseFor(op, status);
  }
  /** The one documented 2xx status of an operation. */
  successStatus(op: OperationInfo): number {
    return successStatus(op);
  }

  /** Resolves a schema's `$ref` chain (not its children). */
  resolve(schema: JsonSchema | undefined): JsonSchema {
    return this.schemas.resolve(schema);
  }
  /** A validator for any schema of the document, `$ref`s resolved against the bundle. */
  validator(schema: JsonSchema): ValidateFunction {
    return this.schemas.validator(schema);
  }
  validate(schema: JsonSchema, value: unknown): string[] {
    return this.schemas.validate(schema, value);
  }
  /** A validator of the relaxed contract: the schema with its own provisional nodes relaxed, `$ref`s into the relaxed document. */
  relaxedValidator(schema: JsonSchema): ValidateFunction {
    return this.schemas.relaxedValidator(schema);
  }
  /** Errors of a value against the relaxed contract: what breaks the source, not merely a design. */
  validateRelaxed(schema: JsonSchema, value: unknown): string[] {
    return this.schemas.validateRelaxed(schema, value);
  }
  /** A value judged by both contracts: failures against the relaxed one, departures where only the full one refuses. */
  verdict(schema: JsonSchema, value: unknown): Verdict {
    return this.schemas.verdict(schema, value);
  }
  /** Whether refusing `value` rests on a design only (the relaxed contract accepts it, or its parameter is provisional). */
  provisionalInput(schema: JsonSchema | undefined, value: unknown, parameter?: { provisional?: boolean }): boolean {
    return this.schemas.provisionalInput(schema, value, parameter);
  }
  /** Whether a schema is, or refers through its `$ref` chain to, the contract's `Identifier`. */
  isIdentifier(schema: JsonSchema | undefined): boolean {
    return this.schemas.isIdentifier(schema);
  }
  /** A schema with its `$ref` resolved and its `allOf` parts merged into one: to read a shape from, not to validate. */
  merged(schema: JsonSchema | undefined, depth = 0, doc: OpenApiDocument = this.doc): JsonSchema {
    return this.schemas.merged(schema, depth, doc);
  }
  /** The values a named schema knows, with their `x-enumDescriptions`. */
  enumDescriptions(schemaName: string): Map<number | string, string> {
    return this.schemas.enumDescriptions(schemaName);
  }

  /** The status an error code is returned with (`x-http-status`), from the catalogue. */
  statusOf(code: string): number {
    return this.errorCatalogue.statusOf(code);
  }
  /** Whether the operation documents `code` on the status the catalogue gives it. */
  documents(op: OperationInfo, code: string): boolean {
    return this.errorCatalogue.documents(op, code);
  }

  securityScheme(name: string): Record<string, unknown> | undefined {
    return this.doc.components?.securitySchemes?.[name];
  }
  isApiKeyScheme(name: string): boolean {
    return this.securityScheme(name)?.type === 'apiKey';
  }
  /**
   * The areas of the API keys an operation takes: its API key schemes' `x-key-area`, the first segment of a key (the
   * MCP area lists the scheme of every area).
   */
  keyAreasOf(op: OperationInfo): string[] {
    return op.security.flatMap((name) => {
      const scheme = this.securityScheme(name);
      const area = scheme?.type === 'apiKey' ? scheme[KEY_AREA_KEYWORD] : undefined;
      return typeof area === 'string' ? [area] : [];
    });
  }
  isBearerScheme(name: string): boolean {
    const scheme = this.securityScheme(name);
    return scheme?.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer';
  }

  /** `x-invalid-examples` of the operation's request body: each a rejected body with its expected status and code. */
  invalidExamples(op: OperationInfo): InvalidExample[] {
    return this.examples.invalidExamples(op);
  }
  /** The headers a named response example states it carries (`x-response-headers`), lower-cased. */
  exampleHeaders(op: OperationInfo, status: string, name: string): Record<string, string> | undefined {
    return this.examples.exampleHeaders(op, status, name);
  }

  /** The page and size parameters when the success schema has `pagination`, else undefined. */
  paged(op: OperationInfo): PagedShape | undefined {
    return this.shapes.paged(op);
  }
  /** What makes two operations' parameters the same rule: the shared component both name, else name, place, schema. */
  parameterComponent(op: OperationInfo, param: { name: string; in: string; schema?: JsonSchema }): string {
    return this.shapes.parameterComponent(op, param);
  }
  /** The pagination property names as the Pagination schema declares them. */
  paginationFields(op: OperationInfo): string[] {
    return this.shapes.paginationFields(op);
  }
  /** The bulk shape when the body holds an array of rows with `maxItems` and the result rows report success. */
  bulk(op: OperationInfo): BulkShape | undefined {
    return this.shapes.bulk(op);
  }

  /** The gateway limits a path falls under, most specific first. */
  gatewayScopes(path: string): GatewayLimit[] {
    return this.limits.gateway.filter((g) => path.startsWith(g.appliesTo));
  }
}

export { ContractGap } from './gap.js';
export { formatErrors, IDENTIFIER_SCHEMA, type Verdict } from './schemas.js';
export type { InvalidExample } from './examples.js';
export type { BulkShape, PagedShape } from './shapes.js';
export { isProvisional, isReference };
/** The contract model's limits, as the kit reads them (`Contract.limits`). */
export type { Limits };
