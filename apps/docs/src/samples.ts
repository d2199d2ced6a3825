// Code samples of every operation, curl and the TypeScript client, built from the operation's own examples: path
// and required query values from the parameter schemas' `examples`, parameters with a `default` at that default
// (`page=1&size=10`), and the body from each request example.
import {
  deref,
  isReference,
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
    s = isReference(s) ? (resolvePointer(doc, s.$ref) as JsonSchema) : undefined;
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
// curl

function curlSample(op: OperationInfo, shape: RequestShape, body: unknown): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(shape.path[name])));
  const query = new URLSearchParams(
    Object.entries(shape.query).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  const lines = [
    `curl -sS${op.method === 'get' ? '' : ` -X ${op.method.toUpperCase()}`} "$${SAMPLE_ENV.baseUrl}${path}${query ? `?${query}` : ''}"`,
  ];
  if (shape.credential === 'apiKey') lines.push(`-H "${shape.apiKeyHeader}: $${SAMPLE_ENV.apiKey(shape.keyArea!)}"`);
  if (shape.credential === 'jwt') lines.push(`-H "Authorization: Bearer $${SAMPLE_ENV.accessToken}"`);
  lines.push('-H "Accept: application/json"');
  if (body !== undefined) {
    lines.push('-H "Content-Type: application/json"');
    lines.push(`-d @- <<'JSON'\n${JSON.stringify(body, null, 2)}\nJSON`);
  }
  return lines.join(' \\\n  ');
}

// ---------------------------------------------------------------------------------------------------------------
// TypeScript

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The widest line a sample writes on one line before breaking an object or array over several. */
const LINE_WIDTH = 80;

function inlineLiteral(value: unknown): string {
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
  if (value === null || typeof value !== 'object' || indent.length + lead + inline.length <= LINE_WIDTH) return inline;
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

function typescriptSample(op: OperationInfo, shape: RequestShape, body: unknown): string {
  const init: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  if (Object.keys(shape.path).length > 0) params.path = shape.path;
  if (Object.keys(shape.query).length > 0) params.query = shape.query;
  if (Object.keys(params).length > 0) init.params = params;
  if (body !== undefined) init.body = body;
  const call = `const { data, error } = await client.${op.method.toUpperCase()}('${op.path}'`;
  const args = Object.keys(init).length > 0 ? `${call}, ${tsLiteral(init, '', call.length + 4)});` : `${call});`;
  return [
    "import { createClient } from '@cls-api/client';",
    '',
    clientSetup(shape),
    '',
    args,
    'if (error) {',
    '  // Branch on error.error.code; the message is for people and can change.',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal, shown as text
    '  throw new Error(`${error.error.code}: ${error.error.message}`);',
    '}',
    'console.log(data.data);',
    '',
  ].join('\n');
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
  const shape = shapeOf(doc, op);
  const body = shape.bodies[0]?.value;
  const ts = typescriptSample(op, shape, body);
  return {
    codeSamples: [
      { lang: 'Shell', label: SAMPLE_LABELS.curl, source: curlSample(op, shape, body) },
      { lang: 'TypeScript', label: SAMPLE_LABELS.typescript, source: ts },
    ],
    file: { name: `${op.operationId}.ts`, source: ts },
  };
}
