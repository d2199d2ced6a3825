// What the mock needs to know about the contract, read from the bundled document: the operations and their routes,
// every named response example, and the error codes the mock answers with when Prism cannot. The operations, the
// catalogue and the credential schemes are the contract model's (`@cls-api/spec`); routes and scenarios are the mock's.
import {
  contractModel,
  deref,
  integerQueryParameters,
  type McpToolDefinition,
  mcpToolsOf,
  patternMeanings,
  type ErrorCatalogEntry,
  type IntegerQuerySyntax,
  type ExampleObject,
  type JsonSchema,
  type MediaTypeObject,
  type OpenApiDocument,
  type OperationInfo,
  type Reference,
  type ResponseObject,
  type SchemaValidator,
  toolArgumentRefusal,
  TOOL_CALL_OPERATION,
  withToolDefaults,
} from '@cls-api/spec';
import {
  type BodyLimits,
  bodyLimitOf,
  describeRequestError,
  maxRequestBodyBytes,
  operationBodyLimits,
  pathPattern,
  type RequestErrorWords,
  schemaAt,
} from '@cls-api/server';

/**
 * Example-object extension naming the response headers that come with one scenario, such as the `Retry-After` of
 * the monthly-quota 429. OpenAPI ties headers to a response, not to one of its examples, so without it the mock
 * cannot tell the two 429s apart.
 */
export const RESPONSE_HEADERS_EXTENSION = 'x-response-headers';

/**
 * The most any request body can be for the mock: what Prism behind it reads (its body parser stops at 10 MiB).
 * The contract's own bounds (Contract.bodyLimits, 7.3 MB for a 1,000-row bulk request) are below it, as
 * test/timeouts.test.ts checks: under a contract that allowed more, the mock would refuse its largest valid bodies.
 */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** One named response example of one operation: a scenario the mock can be asked for. */
export interface Scenario {
  operationId: string;
  method: string;
  path: string;
  /** The response key, e.g. `200` or `429`. */
  status: string;
  /** The example's key: what `Prefer: example=` names. */
  example: string;
  summary: string;
  /** The example body. */
  value: unknown;
  /** `error.code` of an error example. */
  errorCode?: string;
  /** Header values the example declares with `x-response-headers`. */
  headers: Record<string, string>;
}

export interface Route {
  op: OperationInfo;
  /** Matches the request path; capture groups are the path parameters in template order. */
  pattern: RegExp;
  /** Literal segments: the more, the more specific (`/orders/draft` before `/orders/{order_no}`). */
  literalSegments: number;
}

/**
 * The roles the mock answers itself, mapped to catalogue codes. The codes are checked against the catalogue when
 * the mock starts, and their HTTP status is always the catalogue's.
 */
export const ERROR_ROLES = {
  /** No operation at this method and path. */
  unknownRoute: 'NOT_FOUND',
  /** A parameter or body fails its schema (DECISIONS G5). */
  invalid: 'INVALID_PARAMETER',
  /** A required parameter, body or property is missing (DECISIONS G5). */
  missing: 'REQUIRED_PARAMETER',
  /** No credential of the operation's scheme was sent. */
  noCredential: 'AUTH_MISSING_TOKEN',
  /** Only a credential of a scheme the operation does not accept was sent (an API key on /v3/pay/). */
  wrongCredential: 'AUTH_FORBIDDEN',
  /** The credential cannot be one: an API key header sent twice. */
  invalidCredential: 'AUTH_INVALID_TOKEN',
  /** Prism failed. */
  internal: 'INTERNAL_ERROR',
} as const;
export type ErrorRole = keyof typeof ERROR_ROLES;

export interface CredentialScheme {
  name: string;
  /** The request header that carries it. */
  header: string;
  /** For `http` schemes, the authorization scheme (`bearer`). */
  httpScheme?: string;
  /** For API-key schemes, the area of the keys it takes (`x-key-area`), a key's first segment. */
  keyArea?: string;
}

export class Contract {
  readonly doc: OpenApiDocument;
  readonly catalog: ReadonlyMap<string, ErrorCatalogEntry>;
  readonly operations: readonly OperationInfo[];
  readonly routes: Route[];
  readonly schemes: Map<string, CredentialScheme>;
  /** Each pattern the contract puts in words (`x-pattern-meaning`), by its text, as Prism's messages quote it. */
  readonly patternMeanings: ReadonlyMap<string, string>;
  /** How every integer query parameter is written (`info.x-limits.query_integer_syntax`), which Prism does not check. */
  readonly queryIntegerSyntax: IntegerQuerySyntax;
  /** Each operation's integer query parameters, by operationId. */
  readonly integerQuery: ReadonlyMap<string, readonly string[]>;
  /** The MCP area's tools by name (`mcpToolsOf`): a call the reference server refuses is refused here too. */
  readonly tools: ReadonlyMap<string, McpToolDefinition>;
  /** The operation that calls a tool (`callMcpTool`), naming it in its path (`calledToolName`); none without tools. */
  readonly toolCall?: { op: OperationInfo };
  /**
   * The request bodies the mock reads, as the reference server sizes them: each operation's own bound from its
   * schema, and the largest the contract allows, never above what Prism reads (MAX_BODY_BYTES).
   */
  readonly bodyLimits: BodyLimits;
  /** Request bodies as the reference server validates them: a member of an open set is taken (DECISIONS G24). */
  private readonly bodyValidator: SchemaValidator;

  constructor(doc: OpenApiDocument) {
    this.doc = doc;
    this.patternMeanings = patternMeanings(doc);
    const model = contractModel(doc);
    this.catalog = model.catalog;
    this.operations = model.operations;
    this.queryIntegerSyntax = model.limits;
    this.integerQuery = new Map(this.operations.map((op) => [op.operationId, integerQueryParameters(doc, op)]));
    this.bodyLimits = {
      bodyLimit: Math.min(maxRequestBodyBytes(doc, this.operations).bytes, MAX_BODY_BYTES),
      operationLimits: operationBodyLimits(doc, this.operations),
    };
    this.bodyValidator = model.validator({ openValues: true });
    this.tools = new Map(mcpToolsOf(doc).map((tool) => [tool.name, tool]));
    if (this.tools.size > 0) {
      const op = this.operations.find((o) => o.operationId === TOOL_CALL_OPERATION);
      // A renamed operation would leave every call taken unchecked: refuse to start instead.
      if (!op?.parameters.some((p) => p.in === 'path'))
        throw new Error(`the contract has MCP tools but no ${TOOL_CALL_OPERATION} operation naming one in its path`);
      this.toolCall = { op };
    }
    for (const [role, code] of Object.entries(ERROR_ROLES)) {
      if (!this.catalog.has(code)) {
        throw new Error(`the contract's error catalogue has no ${code}, which the mock answers for "${role}"`);
      }
    }
    this.routes = this.operations.map((op) => routeOf(op)).sort((a, b) => b.literalSegments - a.literalSegments);
    // Header names lower-cased, as Node gives a request's headers.
    this.schemes = new Map(
      model.credentialSchemes.map(({ name, header, httpScheme, keyArea }) => [
        name,
        {
          name,
          header: header.toLowerCase(),
          ...(httpScheme !== undefined ? { httpScheme } : {}),
          ...(keyArea !== undefined ? { keyArea } : {}),
        },
      ]),
    );
  }

  /** The first refusal of `body` by the operation's body schema, in the reference server's words; undefined if none. */
  bodyRefusal(op: OperationInfo, body: unknown): RequestErrorWords | undefined {
    const schema = op.requestBody?.schema;
    const first = schema === undefined ? undefined : this.bodyValidator.errors(schema, body)[0];
    return first && describeRequestError('body', first, (at) => schemaAt(this.doc, schema, at));
  }

  /** The first refusal of a tool's arguments by its input schema, in the reference server's words; undefined if none. */
  toolArgumentRefusal(tool: McpToolDefinition, args: unknown): ReturnType<typeof toolArgumentRefusal> | undefined {
    const errors = this.bodyValidator.errors(tool.input_schema, withToolDefaults(tool.input_schema, args));
    return errors.length > 0 ? toolArgumentRefusal(errors) : undefined;
  }

  /** The code the mock answers for `role`, with its catalogue status. */
  errorFor(role: ErrorRole): { code: string; status: number } {
    const code = ERROR_ROLES[role];
    return { code, status: this.catalog.get(code)!.status };
  }

  /** The operation serving `method` and `pathname`, or undefined when the contract has none. */
  match(method: string, pathname: string): { route: Route; pathMatches: Route[] } | undefined {
    const m = method.toLowerCase();
    const pathMatches = this.routes.filter((r) => r.pattern.test(pathname));
    const route = pathMatches.find((r) => r.op.method === m);
    return route ? { route, pathMatches } : undefined;
  }

  /** The largest request body `op` takes (any operation's largest for a request of none), bytes. */
  bodyLimitOf(op: OperationInfo | undefined): number {
    return bodyLimitOf(op?.operationId, this.bodyLimits);
  }

  /** The methods of the operations this document has at a concrete path, upper-case, in the document's order. */
  methodsAt(pathname: string): string[] {
    const at = new Set(this.routes.filter((r) => r.pattern.test(pathname)).map((r) => r.op));
    return [...new Set(this.operations.filter((op) => at.has(op)).map((op) => op.method.toUpperCase()))];
  }

  /** Every named response example of `op`, in response order. */
  scenariosOf(op: OperationInfo): Scenario[] {
    const out: Scenario[] = [];
    for (const [status, response] of Object.entries(op.responses)) {
      for (const [example, info] of Object.entries(response.examples)) {
        const raw = this.rawExample(op, status, example);
        const scenario: Scenario = {
          operationId: op.operationId,
          method: op.method,
          path: op.path,
          status,
          example,
          summary: info.summary ?? '',
          value: info.value,
          headers: headersOf(raw),
        };
        const code = errorCodeOf(info.value);
        if (code !== undefined) scenario.errorCode = code;
        out.push(scenario);
      }
    }
    return out;
  }

  /** Every scenario of every operation. */
  scenarios(): Scenario[] {
    return this.operations.flatMap((op) => this.scenariosOf(op));
  }

  /** The example object as written, extensions included (the spec helpers keep only summary and value). */
  private rawExample(op: OperationInfo, status: string, key: string): ExampleObject | undefined {
    const item = this.doc.paths?.[op.path];
    const operation = item?.[op.method];
    const rawResponse = operation?.responses?.[status];
    if (!rawResponse) return undefined;
    const response = deref<ResponseObject>(this.doc, rawResponse);
    const media = jsonMedia(response.content);
    const rawExample = media?.examples?.[key];
    return rawExample ? deref<ExampleObject>(this.doc, rawExample as ExampleObject | Reference) : undefined;
  }

  /** The response schema of `op` at `status`, as a schema that can be compiled against the whole document. */
  responseSchema(op: OperationInfo, status: string): JsonSchema | undefined {
    return op.responses[status]?.schema;
  }
}

function jsonMedia(content: Record<string, MediaTypeObject> | undefined): MediaTypeObject | undefined {
  if (!content) return undefined;
  return content['application/json'] ?? Object.entries(content).find(([t]) => /json/.test(t))?.[1];
}

function headersOf(example: ExampleObject | undefined): Record<string, string> {
  const declared = example?.[RESPONSE_HEADERS_EXTENSION];
  const out: Record<string, string> = {};
  if (declared && typeof declared === 'object') {
    for (const [name, value] of Object.entries(declared as Record<string, unknown>)) {
      if (value !== null && value !== undefined) out[name] = String(value);
    }
  }
  return out;
}

export function errorCodeOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: { code?: unknown } }).error;
  return typeof error?.code === 'string' ? error.code : undefined;
}

function routeOf(op: OperationInfo): Route {
  const literalSegments = op.path.split('/').filter((s) => s !== '' && !/^\{[^}]+\}$/.test(s)).length;
  // Exactly the path: Prism routes no trailing slash, and the reference server answers one 404.
  return { op, pattern: pathPattern(op.path), literalSegments };
}
