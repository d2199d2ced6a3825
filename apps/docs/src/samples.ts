// Code samples of every operation, curl and the TypeScript client, built from the operation's own examples: path
// and required query values from the parameter schemas' `examples`, parameters with a `default` at that default
// (`page=1&size=10`), and the body from each request example. Every sample runs as written against a reader's own
// data (the sandbox's demo data included): an identifier the examples cannot know (an order number, a draft id) is
// read the way a person would, by an earlier call written into the sample (STEPS), and what a sample creates gets a
// fresh identifier on every run (FRESH), so running it twice succeeds twice (apps/docs/test/operation-samples.test.ts).
import {
  contractModel,
  deref,
  referenceOf,
  operations,
  resolvePointer,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
} from '@cls-api/spec';

/** One entry of Redoc's `x-codeSamples`. */
export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: string;
  source: string;
}

/** The labels of the samples; Redoc 3 matches them against `codeSamples.languages` of redocly.yaml. */
export const SAMPLE_LABELS = { curl: 'curl', typescript: 'TypeScript' } as const;

/** A TypeScript sample as a file, for the compiler. */
export interface SampleFile {
  name: string;
  source: string;
}

interface RequestShape {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  /** Request examples by name, in document order. */
  bodies: Array<{ name: string; value: unknown }>;
  /** `apiKey`, `jwt` or none (public). */
  credential: 'apiKey' | 'jwt' | 'none';
  apiKeyHeader?: string;
  /** The area whose key the sample sends (`wms`, `manager`, `cam`), with `credential: 'apiKey'`. */
  keyArea?: string;
}

/**
 * The environment variables the samples read, one per credential, as the guides set them up ("Getting started")
 * and as the contract-test kit reads them (packages/contract-tests/README.md), so one shell runs both.
 */
export const SAMPLE_ENV = {
  baseUrl: 'CLS_BASE_URL',
  accessToken: 'CLS_ACCESS_TOKEN',
  clientId: 'CLS_CLIENT_ID',
  clientSecret: 'CLS_CLIENT_SECRET',
  apiKey: (area: string) => `CLS_API_KEY_${area.toUpperCase()}`,
} as const;

/** The areas an API key can belong to: the `area` values of an MCP tool (spec/components/schemas/McpTool.yaml). */
export function keyAreas(doc: OpenApiDocument): string[] {
  const tool = deref<JsonSchema>(doc, doc.components?.schemas?.McpTool ?? {});
  const area = deref<JsonSchema>(doc, (tool.properties as Record<string, JsonSchema> | undefined)?.area ?? {});
  if (!Array.isArray(area.enum)) throw new Error('schema McpTool has no area enum to take the key areas from');
  return area.enum.map(String);
}

/**
 * The area whose key an operation's sample sends. A key opens its own area's paths; the MCP area takes a key of
 * any area to list the tools and the key of the tool's own area to call one (spec/guides/authentication.md): the
 * tool a path names is the `x-mcp-tool` of the operation it wraps. Listing shows the first area's key.
 */
function keyAreaOf(doc: OpenApiDocument, op: OperationInfo, path: Record<string, unknown>): string {
  const areas = keyAreas(doc);
  if (areas.includes(op.area)) return op.area;
  const ops = operations(doc);
  for (const value of Object.values(path)) {
    const wrapped = ops.find((o) => o.mcpTool !== undefined && o.mcpTool === value);
    if (wrapped && areas.includes(wrapped.area)) return wrapped.area;
  }
  return areas.includes('manager') ? 'manager' : areas[0]!;
}

/**
 * A value the sample computes instead of a literal: `shell` is written into a curl sample (inside double quotes or
 * an unquoted heredoc), `ts` into a TypeScript sample as an expression.
 */
export class Expr {
  constructor(
    readonly shell: string,
    readonly ts: string,
  ) {}
}

/** The names of the values the samples compute: a fresh identifier's run token, and each step's result. */
const RUN = new Expr('$RUN', 'run');

/**
 * An earlier call a sample makes for a value it needs, as a reader would: a list for something that exists, the
 * creating operation for something the sample then changes (so a second run finds a new one).
 */
interface Step {
  /** The shell variable; the TypeScript constant is its camel case. */
  variable: string;
  /** The comment above the step, for the reader; `{summary}` is the summary of the step's operation. */
  why: string;
  /** The TypeScript sample's name for the step's response. */
  response: string;
  operationId: string;
  /** The query, or how the contract gives it (a status code the contract names). */
  query?: Record<string, unknown> | ((doc: OpenApiDocument) => Record<string, unknown>);
  /**
   * The request body, from the operation's first request example (default: that example); its values are filled
   * in as the operation's own sample fills them (NEEDS, FRESH).
   */
  body?: (example: unknown) => unknown;
  /** Where the value is in the response body, as a JSON pointer; a link of the contract names it where one exists. */
  pick: string | { link: string; name: string };
  /** The value can be null in the schema, though never where the step looks (an invoice number of a shipped order). */
  nullable?: boolean;
  /** Exported in the shell, for the variables a guide names (the JWT of spec/guides/authentication.md). */
  exported?: boolean;
}

const ENV_VALUE = (name: string) => new Expr(`$${name}`, `process.env.${name}!`);

/** The first row of a bulk example, as a step sends it: one new row of quantity 1. */
function firstRow(example: unknown): Record<string, unknown> {
  const rows = (example as { orders?: Array<Record<string, unknown>> }).orders;
  if (!rows?.[0]) throw new Error('a bulk step needs an example with rows under "orders"');
  return { ...rows[0], quantity: 1 };
}

const STEPS = {
  anyOrder: {
    response: 'orders',
    variable: 'ORDER_NO',
    why: 'An order number of yours: the newest order, from "{summary}".',
    operationId: 'listWmsOrders',
    query: { page: 1, size: 1 },
    pick: '/data/0/order_no',
  },
  managerOrder: {
    response: 'orders',
    variable: 'ORDER_NO',
    why: 'An order number of yours: the newest order, from "{summary}".',
    operationId: 'listManagerOrders',
    query: { page: 1, size: 1 },
    pick: '/data/0/order_no',
  },
  registeredOrder: {
    response: 'orders',
    variable: 'ORDER_NO',
    why: 'An order that can still change: the newest in status {registered} (registered), from "{summary}".',
    operationId: 'listWmsOrders',
    // The status an order starts in: the first of OrderStatusCode's known values (`x-known-values`).
    query: (doc) => ({ page: 1, size: 1, order_status_code: registeredStatus(doc) }),
    pick: '/data/0/order_no',
  },
  shippedOrder: {
    response: 'orders',
    variable: 'INVOICE_NO',
    why: 'An invoice number of yours: that of the newest shipped order (status {shipped}), from "{summary}".',
    operationId: 'listWmsOrders',
    // The first status code the contract lists as shipped (`x-shipped-values` of OrderStatusCode).
    query: (doc) => ({ page: 1, size: 1, order_status_code: shippedStatus(doc) }),
    pick: '/data/0/invoice_no',
    nullable: true,
  },
  newOrder: {
    response: 'registered',
    variable: 'ORDER_NO',
    why: 'An order of your own to use here, from "{summary}".',
    operationId: 'registerOrders',
    body: (example) => ({ orders: [firstRow(example)] }),
    pick: { link: 'getWmsOrder', name: 'order_no' },
  },
  newDraft: {
    response: 'opened',
    variable: 'DRAFT_ID',
    why: 'A draft of your own, from "{summary}".',
    operationId: 'registerDraftOrders',
    body: (example) => ({ orders: [firstRow(example)] }),
    pick: { link: 'getDraftOrder', name: 'draft_id' },
  },
  newReturn: {
    response: 'returned',
    variable: 'RETURN_NO',
    why: 'A return of your own, of that order, from "{summary}".',
    operationId: 'registerReturn',
    pick: { link: 'getReturn', name: 'return_no' },
  },
  refreshToken: {
    response: 'tokens',
    variable: 'REFRESH_TOKEN',
    why: 'A refresh token: the one your last token response carried, from "{summary}".',
    operationId: 'createAccessToken',
    pick: { link: 'refreshAccessToken', name: 'refresh_token' },
  },
  accessToken: {
    response: 'tokens',
    variable: SAMPLE_ENV.accessToken,
    why: 'A JWT, from "{summary}", as the Authentication guide shows.',
    operationId: 'createAccessToken',
    pick: '/data/access_token',
    exported: true,
  },
} satisfies Record<string, Step>;

type StepName = keyof typeof STEPS;

const camel = (variable: string) =>
  variable
    .toLowerCase()
    .replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
    .replace(/^cls([A-Z])/, (_, c: string) => c.toLowerCase());

function stepValue(name: StepName): Expr {
  const variable = STEPS[name].variable;
  return new Expr(`$${variable}`, camel(variable));
}

/**
 * Where an operation's sample takes the values its examples cannot know: a path parameter or a body property (at
 * any depth) by name, from a step. The examples' own values (`ORD-20261120-0001`) name records of the example's
 * world, not of a reader's account.
 */
const NEEDS: Record<string, Record<string, StepName | Expr>> = {
  createAccessToken: { client_id: ENV_VALUE(SAMPLE_ENV.clientId), client_secret: ENV_VALUE(SAMPLE_ENV.clientSecret) },
  refreshAccessToken: { refresh_token: 'refreshToken' },
  getWmsOrder: { order_no: 'anyOrder' },
  updateWmsOrder: { order_no: 'registeredOrder' },
  getDraftOrder: { draft_id: 'newDraft' },
  registerReturn: { order_no: 'newOrder' },
  getReturn: { return_no: 'newReturn' },
  cancelReturn: { return_no: 'newReturn' },
  getManagerOrder: { order_no: 'managerOrder' },
  listInvoiceVideos: { invoice_no: 'shippedOrder' },
  callMcpTool: { order_no: 'anyOrder' },
};

/** The body properties an operation creates a record under: a sample (or step) sends a fresh value each run. */
const FRESH: Record<string, string[]> = {
  registerOrders: ['mall_order_no'],
  registerDraftOrders: ['mall_order_no'],
  createProduct: ['product_code'],
  addProductOptions: ['option_code'],
};

/** `value` with every property named in `fresh` made unique to the run, and every property named in `needs` replaced. */
function fill(value: unknown, fresh: string[], needs: Record<string, StepName | Expr>): unknown {
  if (Array.isArray(value)) return value.map((v) => fill(v, fresh, needs));
  if (value === null || typeof value !== 'object' || value instanceof Expr) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => {
      const need = needs[k];
      if (need !== undefined) return [k, typeof need === 'string' ? stepValue(need) : need];
      if (fresh.includes(k) && typeof v === 'string') return [k, freshValue(v)];
      return [k, fill(v, fresh, needs)];
    }),
  );
}

function freshValue(example: string): Expr {
  const template = example.replace(/[`$\\]/g, '\\$&');
  return new Expr(`${heredocText(JSON.stringify(example).slice(1, -1))}-${RUN.shell}`, `\`${template}-\${${RUN.ts}}\``);
}

/** Does a value hold computed parts, of the run token among them? */
function exprs(value: unknown): Expr[] {
  if (value instanceof Expr) return [value];
  if (Array.isArray(value)) return value.flatMap(exprs);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(exprs);
  return [];
}

/** The JSON pointer of a step's value: its own, or that of the contract's link to the operation that uses it. */
function pointerOf(doc: OpenApiDocument, step: Step): string {
  if (typeof step.pick === 'string') return step.pick;
  const { link, name } = step.pick;
  const op = operations(doc).find((o) => o.operationId === step.operationId)!;
  const raw = doc.paths?.[op.path]?.[op.method] as { responses?: Record<string, unknown> } | undefined;
  const ok = deref<{ links?: Record<string, unknown> }>(doc, raw?.responses?.['200'] ?? {});
  for (const l of Object.values(ok.links ?? {})) {
    const linked = deref<{
      operationId?: string;
      parameters?: Record<string, string>;
      requestBody?: Record<string, string>;
    }>(doc, l as object);
    if (linked.operationId !== link) continue;
    const expression = linked.parameters?.[name] ?? linked.requestBody?.[name];
    const pointer = /^\$response\.body#(\/.*)$/.exec(expression ?? '');
    if (pointer) return pointer[1]!;
  }
  throw new Error(`${step.operationId} has no link to ${link} that gives ${name}`);
}

function schemaValue(doc: OpenApiDocument, schema: JsonSchema | undefined, pick: 'example' | 'default'): unknown {
  // A named schema that refines another (`ProductCode` is `$ref: Identifier` plus its own examples) speaks first:
  // follow the `$ref` chain one hop at a time and take the nearest value.
  let s: JsonSchema | undefined = schema;
  for (let hops = 0; s && hops < 10; hops++) {
    const value =
      pick === 'default'
        ? s.default
        : Array.isArray(s.examples) && s.examples.length > 0
          ? s.examples[0]
          : (s.example ?? s.default);
    if (value !== undefined) return value;
    const next = referenceOf(s);
    s = next ? (resolvePointer(doc, next.$ref) as JsonSchema) : undefined;
  }
  return undefined;
}

function shapeOf(doc: OpenApiDocument, op: OperationInfo): RequestShape {
  const shape: RequestShape = { path: {}, query: {}, bodies: [], credential: 'none' };
  for (const p of op.parameters) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    const value = p.required ? schemaValue(doc, p.schema, 'example') : schemaValue(doc, p.schema, 'default');
    if (value === undefined) {
      if (p.required) throw new Error(`${op.operationId}: parameter ${p.name} has no example in its schema`);
      continue;
    }
    shape[p.in][p.name] = value;
  }
  for (const [name, example] of Object.entries(op.requestBody?.examples ?? {})) {
    shape.bodies.push({ name, value: example.value });
  }
  if (op.requestBody && shape.bodies.length === 0)
    throw new Error(`${op.operationId}: the request body has no example`);
  // An operation that takes either credential (the manager area) shows its first: the API key.
  for (const name of op.security) {
    const scheme = deref<Record<string, unknown>>(doc, doc.components?.securitySchemes?.[name] ?? {});
    if (scheme.type === 'apiKey' && typeof scheme.name === 'string') {
      shape.credential = 'apiKey';
      shape.apiKeyHeader = scheme.name;
      shape.keyArea = keyAreaOf(doc, op, shape.path);
      break;
    }
    if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer') {
      shape.credential = 'jwt';
      break;
    }
  }
  return shape;
}

// ---------------------------------------------------------------------------------------------------------------
// What a sample sends, its steps included

interface Call {
  op: OperationInfo;
  shape: RequestShape;
  body: unknown;
}

/** The request of `op` with its examples' values, the values NEEDS names filled in and FRESH values made fresh. */
function callOf(doc: OpenApiDocument, op: OperationInfo, bodyOf?: (example: unknown) => unknown): Call {
  const shape = shapeOf(doc, op);
  const needs = NEEDS[op.operationId] ?? {};
  for (const name of Object.keys(shape.path)) {
    const need = needs[name];
    if (need !== undefined) shape.path[name] = typeof need === 'string' ? stepValue(need) : need;
  }
  const example = shape.bodies[0]?.value;
  const raw = example === undefined ? undefined : bodyOf ? bodyOf(example) : example;
  return { op, shape, body: fill(raw, FRESH[op.operationId] ?? [], needs) };
}

/** The steps a sample of `op` runs first, each after the steps it needs itself. */
function stepsOf(op: OperationInfo, seen: StepName[] = []): StepName[] {
  for (const need of Object.values(NEEDS[op.operationId] ?? {})) {
    if (typeof need !== 'string' || seen.includes(need)) continue;
    const stepOp = { operationId: STEPS[need].operationId } as OperationInfo;
    stepsOf(stepOp, seen);
    if (!seen.includes(need)) seen.push(need);
  }
  return seen;
}

const opById = (doc: OpenApiDocument, id: string) => {
  const op = operations(doc).find((o) => o.operationId === id);
  if (!op) throw new Error(`a sample step names operation ${id}, which the contract does not have`);
  return op;
};

/** The status code the samples look for a shipped order by: the first the contract model names as shipped. */
function shippedStatus(doc: OpenApiDocument): number {
  return contractModel(doc).orderStatuses.shipped[0]!;
}

/**
 * The status code the samples look for an order that can still change by: the first of the contract's known values
 * for OrderStatusCode, where its description starts an order. A shipped code there would make the sample fail.
 */
function registeredStatus(doc: OpenApiDocument): number {
  const model = contractModel(doc);
  const schema = doc.components?.schemas?.OrderStatusCode as JsonSchema | undefined;
  const first = model.knownValues(schema)?.[0];
  if (typeof first !== 'number' || model.isShipped(first))
    throw new Error(`OrderStatusCode's first known value (${first}) is not a status in which an order can change`);
  return first;
}

/** A step's query, as written or as the contract gives it. */
function queryOf(doc: OpenApiDocument, step: Step): Record<string, unknown> | undefined {
  return typeof step.query === 'function' ? step.query(doc) : step.query;
}

/** The comment of a step, naming its operation by the summary the reader sees on that operation's page. */
function whyOf(doc: OpenApiDocument, step: Step): string {
  const op = opById(doc, step.operationId);
  const summary = doc.paths?.[op.path]?.[op.method]?.summary;
  if (typeof summary !== 'string') throw new Error(`operation ${step.operationId} has no summary to name it by`);
  return step.why
    .replace('{summary}', summary)
    .replace('{shipped}', String(shippedStatus(doc)))
    .replace('{registered}', String(registeredStatus(doc)));
}

/** A JSON pointer as a property path: `/data/0/order_no` is `.data[0].order_no` (`[0]!` in TypeScript). */
function accessOf(pointer: string, ts: boolean): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]${ts ? '!' : ''}` : `.${part}`))
    .join('');
}

const usesRun = (values: unknown[]) => values.flatMap(exprs).some((e) => e === RUN || e.shell.includes(RUN.shell));

// ---------------------------------------------------------------------------------------------------------------
// curl

/** The URL of a call, in double quotes. */
function curlUrl(call: Call): string {
  const path = call.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = call.shape.path[name];
    return value instanceof Expr ? value.shell : encodeURIComponent(String(value));
  });
  const query = new URLSearchParams(
    Object.entries(call.shape.query).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  return `"$${SAMPLE_ENV.baseUrl}${path}${query ? `?${query}` : ''}"`;
}

function credentialHeader(shape: RequestShape): string[] {
  if (shape.credential === 'apiKey') return [`-H "${shape.apiKeyHeader}: $${SAMPLE_ENV.apiKey(shape.keyArea!)}"`];
  if (shape.credential === 'jwt') return [`-H "Authorization: Bearer $${SAMPLE_ENV.accessToken}"`];
  return [];
}

/** JSON text with each computed value written by `write`, the rest by `literal`. */
function jsonWith(value: unknown, space: number, literal: (text: string) => string, write: (e: Expr) => string) {
  const found: Expr[] = [];
  const text = JSON.stringify(value, (_, v: unknown) => (v instanceof Expr ? `@@${found.push(v) - 1}@@` : v), space);
  return literal(text).replace(/@@(\d+)@@/g, (_, i: string) => write(found[Number(i)]!));
}

function curlStep(doc: OpenApiDocument, name: StepName): string {
  const step: Step = STEPS[name];
  const call = callOf(doc, opById(doc, step.operationId), step.body);
  const query = queryOf(doc, step);
  if (query) Object.assign(call.shape.query, query);
  const request = [
    `curl -sS${call.op.method === 'get' ? '' : ` -X ${call.op.method.toUpperCase()}`} ${curlUrl(call)}`,
    ...credentialHeader(call.shape),
  ];
  const pick = `node -p 'JSON.parse(require("fs").readFileSync(0, "utf8"))${accessOf(pointerOf(doc, step), false)}'`;
  const assign = `${step.exported ? 'export ' : ''}${step.variable}="$(`;
  if (call.body === undefined) return `# ${whyOf(doc, step)}\n${assign}${request.join(' \\\n  ')} |\n  ${pick})"`;
  // The body on one line of an unquoted heredoc, so that the shell fills in the values of earlier steps.
  request.push('-H "Content-Type: application/json"', `-d @- <<JSON | ${pick}`);
  return `# ${whyOf(doc, step)}\n${assign}${request.join(' \\\n  ')}\n${jsonWith(call.body, 0, heredocText, (e) => e.shell)}\nJSON\n)"`;
}

/** Text inside an unquoted heredoc, taken literally. */
const heredocText = (text: string) => text.replace(/[`$\\]/g, '\\$&');

function curlSample(doc: OpenApiDocument, call: Call, steps: StepName[]): string {
  const { op, shape, body } = call;
  const lines = [`curl -sS${op.method === 'get' ? '' : ` -X ${op.method.toUpperCase()}`} ${curlUrl(call)}`];
  lines.push(...credentialHeader(shape));
  lines.push('-H "Accept: application/json"');
  if (body !== undefined) {
    lines.push('-H "Content-Type: application/json"');
    // A body with computed values is an unquoted heredoc, so the shell fills them in; any other stays literal.
    lines.push(
      exprs(body).length > 0
        ? `-d @- <<JSON\n${jsonWith(body, 2, heredocText, (e) => e.shell)}\nJSON`
        : `-d @- <<'JSON'\n${JSON.stringify(body, null, 2)}\nJSON`,
    );
  }
  // A JWT sample obtains its token first, as Authentication shows, unless the reader's shell has one.
  const all: StepName[] = shape.credential === 'jwt' ? ['accessToken', ...steps] : steps;
  const stepBodies = all.map((n) => {
    const step: Step = STEPS[n];
    return callOf(doc, opById(doc, step.operationId), step.body).body;
  });
  const prelude = [
    ...(usesRun([body, ...stepBodies]) ? ['RUN="$(date +%s)-$$" # new identifiers on every run'] : []),
    ...all.map((n) => curlStep(doc, n)),
  ];
  return [...prelude, lines.join(' \\\n  ')].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// TypeScript

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The widest line a sample writes on one line before breaking an object or array over several. */
const LINE_WIDTH = 80;

function inlineLiteral(value: unknown): string {
  if (value instanceof Expr) return value.ts;
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${value.map(inlineLiteral).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    return `{ ${entries.map(([k, v]) => `${keyOf(k)}: ${inlineLiteral(v)}`).join(', ')} }`;
  }
  return scalar(value);
}

const keyOf = (k: string) => (IDENTIFIER.test(k) ? k : `'${k}'`);

function scalar(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  throw new Error(`no TypeScript literal for ${typeof value}`);
}

/**
 * A value as a TypeScript literal the way a person would write it: on one line when it fits in `LINE_WIDTH`
 * (counting `indent` and the `lead` text before it), else one property or item per line, two-space indented.
 */
export function tsLiteral(value: unknown, indent = '', lead = 0): string {
  const inline = inlineLiteral(value);
  if (
    value === null ||
    typeof value !== 'object' ||
    value instanceof Expr ||
    indent.length + lead + inline.length <= LINE_WIDTH
  )
    return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((v) => `${inner}${tsLiteral(v, inner, 1)},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  return `{\n${entries.map(([k, v]) => `${inner}${keyOf(k)}: ${tsLiteral(v, inner, keyOf(k).length + 3)},`).join('\n')}\n${indent}}`;
}

function clientSetup(shape: RequestShape): string {
  const options = [`  baseUrl: process.env.${SAMPLE_ENV.baseUrl}!,`];
  if (shape.credential === 'apiKey')
    options.push(
      `  apiKey: process.env.${SAMPLE_ENV.apiKey(shape.keyArea!)}!, // the ${shape.keyArea} key (Getting started)`,
    );
  if (shape.credential === 'jwt') {
    options.push('  // A JWT: the client obtains it with these and renews it when it expires (Authentication).');
    options.push(
      `  jwt: { clientId: process.env.${SAMPLE_ENV.clientId}!, clientSecret: process.env.${SAMPLE_ENV.clientSecret}! },`,
    );
  }
  return `const client = createClient({\n${options.join('\n')}\n});`;
}

/** The client a step calls with: the sample's own when it sends the same credential, else one of the step's area. */
function stepClient(main: RequestShape, step: RequestShape): string {
  if (step.credential === 'none') return 'client';
  if (step.credential === 'apiKey' && main.credential === 'apiKey' && step.keyArea === main.keyArea) return 'client';
  if (step.credential !== 'apiKey') throw new Error('a sample step needs a JWT: give it its own client');
  return `${step.keyArea}Client`;
}

/** The call expression of `call` on `client`, its literal laid out after `lead` characters. */
function tsCall(client: string, call: Call, lead: string, query?: Record<string, unknown>): string {
  const init: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  if (Object.keys(call.shape.path).length > 0) params.path = call.shape.path;
  const q = { ...call.shape.query, ...query };
  if (Object.keys(q).length > 0) params.query = q;
  if (Object.keys(params).length > 0) init.params = params;
  if (call.body !== undefined) init.body = call.body;
  const head = `${lead}await ${client}.${call.op.method.toUpperCase()}('${call.op.path}'`;
  return Object.keys(init).length > 0 ? `${head}, ${tsLiteral(init, '', head.length + 4)});` : `${head});`;
}

const THROW = (error: string) => `throw new Error(\`\${${error}.error.code}: \${${error}.error.message}\`);`;

function typescriptSample(doc: OpenApiDocument, call: Call, steps: StepName[]): string {
  const stepCalls = steps.map((n) => {
    const step: Step = STEPS[n];
    return { name: n, step, call: callOf(doc, opById(doc, step.operationId), step.body) };
  });
  const clients = new Map<string, string>();
  for (const s of stepCalls) {
    const name = stepClient(call.shape, s.call.shape);
    if (name !== 'client')
      clients.set(
        name,
        `const ${name} = createClient({\n  baseUrl: process.env.${SAMPLE_ENV.baseUrl}!,\n  apiKey: process.env.${SAMPLE_ENV.apiKey(s.call.shape.keyArea!)}!, // the ${s.call.shape.keyArea} key, for the step below\n});`,
      );
  }
  const lines = [
    "import { createClient } from '@cls-api/client';",
    '',
    clientSetup(call.shape),
    ...clients.values(),
    '',
  ];
  if (usesRun([call.body, ...stepCalls.map((s) => s.call.body)]))
    lines.push(`const ${RUN.ts} = Date.now().toString(36); // new identifiers on every run`, '');
  for (const s of stepCalls) {
    const value = stepValue(s.name).ts;
    const response = s.step.response;
    lines.push(
      `// ${whyOf(doc, s.step)}`,
      tsCall(stepClient(call.shape, s.call.shape), s.call, `const ${response} = `, queryOf(doc, s.step)),
      `if (${response}.error) {`,
      `  ${THROW(`${response}.error`)}`,
      '}',
      `const ${value} = ${response}.data${accessOf(pointerOf(doc, s.step), true)}${s.step.nullable ? '!' : ''};`,
      '',
    );
  }
  lines.push(
    tsCall('client', call, 'const { data, error } = '),
    'if (error) {',
    '  // Branch on error.error.code; the message is for people and can change.',
    `  ${THROW('error')}`,
    '}',
    'console.log(data.data);',
    '',
  );
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------

export interface OperationSamples {
  codeSamples: CodeSample[];
  /** The TypeScript sample as a file, to be type-checked against the client. */
  file: SampleFile;
}

/**
 * The samples of one operation, with its first request example as the body. Redoc 3 shows one sample per language
 * (matched by label against `codeSamples.languages` in redocly.yaml), so further request examples get none; the
 * reference shows them as bodies.
 */
export function samplesOf(doc: OpenApiDocument, op: OperationInfo): OperationSamples {
  const call = callOf(doc, op);
  const steps = stepsOf(op);
  const ts = typescriptSample(doc, call, steps);
  return {
    codeSamples: [
      { lang: 'Shell', label: SAMPLE_LABELS.curl, source: curlSample(doc, call, steps) },
      { lang: 'TypeScript', label: SAMPLE_LABELS.typescript, source: ts },
    ],
    file: { name: `${op.operationId}.ts`, source: ts },
  };
}
