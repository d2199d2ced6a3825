import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------------------------------
// Files

const here = dirname(fileURLToPath(import.meta.url));
// Compiled, this module sits in dist/ next to the bundle; run from source (vitest, tsx) it sits in src/.
const distDir = basename(here) === 'src' ? join(here, '..', 'dist') : here;

/** The bundled contract: one file, components kept as named `#/components/...` references. */
export const openapiJsonPath: string = join(distDir, 'openapi.json');
/** The same document as `openapiJsonPath`, as YAML. */
export const openapiYamlPath: string = join(distDir, 'openapi.yaml');
/** The contract with every `$ref` replaced by its target, markdown descriptions inlined. */
export const openapiDereferencedJsonPath: string = join(distDir, 'openapi.dereferenced.json');

export const specFiles = {
  json: openapiJsonPath,
  yaml: openapiYamlPath,
  dereferencedJson: openapiDereferencedJsonPath,
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Document types: only as deep as the helpers below need; everything else stays open.

export type JsonSchema = { [keyword: string]: unknown };

export interface Reference {
  $ref: string;
  [sibling: string]: unknown;
}

export interface ExampleObject {
  summary?: string;
  description?: string;
  value?: unknown;
  externalValue?: string;
  [extension: `x-${string}`]: unknown;
}

export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema?: JsonSchema;
  [key: string]: unknown;
}

export interface MediaTypeObject {
  schema?: JsonSchema;
  example?: unknown;
  examples?: Record<string, ExampleObject | Reference>;
  [key: string]: unknown;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
  'x-error-codes'?: string[];
  [key: string]: unknown;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  description?: string;
  required?: boolean;
  schema?: JsonSchema;
  examples?: Record<string, ExampleObject | Reference>;
  'x-provisional'?: boolean;
  [key: string]: unknown;
}

export interface RequestBodyObject {
  description?: string;
  required?: boolean;
  content: Record<string, MediaTypeObject>;
  [key: string]: unknown;
}

export type SecurityRequirement = Record<string, string[]>;

export interface OperationObject {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  security?: SecurityRequirement[];
  parameters?: Array<ParameterObject | Reference>;
  requestBody?: RequestBodyObject | Reference;
  responses?: Record<string, ResponseObject | Reference>;
  'x-provisional'?: boolean;
  'x-mcp-tool'?: string;
  [key: string]: unknown;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItemObject = {
  parameters?: Array<ParameterObject | Reference>;
  [key: string]: unknown;
} & Partial<Record<HttpMethod, OperationObject>>;

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths?: Record<string, PathItemObject>;
  security?: SecurityRequirement[];
  components?: {
    schemas?: Record<string, JsonSchema>;
    responses?: Record<string, ResponseObject | Reference>;
    parameters?: Record<string, ParameterObject | Reference>;
    examples?: Record<string, ExampleObject | Reference>;
    requestBodies?: Record<string, RequestBodyObject | Reference>;
    headers?: Record<string, HeaderObject | Reference>;
    securitySchemes?: Record<string, Record<string, unknown>>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

// ---------------------------------------------------------------------------------------------------------------
// Loading

function readJson(file: string): OpenApiDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new Error(`${file} does not exist: build @cls-api/spec first (pnpm --filter @cls-api/spec build)`);
    }
    throw err;
  }
  return JSON.parse(text) as OpenApiDocument;
}

/** The bundled contract (`dist/openapi.json`), parsed afresh on every call so callers may mutate it. */
export function loadSpec(): OpenApiDocument {
  return readJson(openapiJsonPath);
}

/** The fully dereferenced contract (`dist/openapi.dereferenced.json`): no `$ref` anywhere. */
export function loadDereferencedSpec(): OpenApiDocument {
  return readJson(openapiDereferencedJsonPath);
}

// ---------------------------------------------------------------------------------------------------------------
// References

export function isReference(value: unknown): value is Reference {
  return typeof value === 'object' && value !== null && typeof (value as Reference).$ref === 'string';
}

/** Reads a local JSON pointer (`#/components/schemas/Order`) from the document. */
export function resolvePointer(doc: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#')) {
    throw new Error(`only local references can be resolved in a bundled document, got ${ref}`);
  }
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer === '') return doc;
  let node: unknown = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !(token in node)) {
      throw new Error(`unresolvable reference ${ref}: no "${token}"`);
    }
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/**
 * Follows a chain of `$ref`s to the object it names. Used for responses, parameters, headers and examples, whose
 * bundled form is a reference to `components`. Schemas are returned as written, so that named schemas stay named.
 */
export function deref<T>(doc: OpenApiDocument, value: T | Reference): T {
  let node: unknown = value;
  const seen = new Set<string>();
  for (let next = referenceOf(node); next; next = referenceOf(node)) {
    if (seen.has(next.$ref)) throw new Error(`circular reference ${next.$ref}`);
    seen.add(next.$ref);
    node = resolvePointer(doc, next.$ref);
  }
  return node as T;
}

// What a schema that wraps a reference may add to it and still name it (spec/README.md, "References").
const WRAPPER_SHAPES = [
  'type',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'contains',
  'propertyNames',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'not',
  'if',
  'then',
  'else',
  'enum',
  'const',
];

/**
 * The reference a node stands for: its `$ref`, or the one branch of an `allOf: [{$ref}]` that adds only annotations
 * and bounds (`description`, `minLength`, …), no type or shape of its own (a node with its own `type`, such as
 * `OrderStatusCodeFilter`, is a schema of its own). The contract writes a reference that needs
 * such siblings that way, because tools drop the siblings of a `$ref` or misread the schema.
 */
export function referenceOf(node: unknown): Reference | undefined {
  if (isReference(node)) return node;
  if (typeof node !== 'object' || node === null) return undefined;
  const allOf = (node as JsonSchema).allOf;
  if (!Array.isArray(allOf) || allOf.length !== 1 || !isReference(allOf[0])) return undefined;
  return WRAPPER_SHAPES.some((k) => k in node) ? undefined : allOf[0];
}

// ---------------------------------------------------------------------------------------------------------------
// Error catalogue

export interface ErrorCatalogEntry {
  /** HTTP status the code is returned with (`x-http-status`). */
  status: number;
  /** Areas that use the code (`x-areas`): path segments such as `wms`, or `all`. */
  areas: string[];
  description: string;
}

/** The error codes of `components.schemas.ErrorCode.oneOf`, in catalogue order. */
export function errorCatalog(doc: OpenApiDocument): Map<string, ErrorCatalogEntry> {
  const schema = doc.components?.schemas?.ErrorCode;
  if (!schema) throw new Error('the document has no components.schemas.ErrorCode');
  const branches = deref<JsonSchema>(doc, schema).oneOf;
  if (!Array.isArray(branches)) throw new Error('components.schemas.ErrorCode has no oneOf list');
  const catalog = new Map<string, ErrorCatalogEntry>();
  branches.forEach((raw: unknown, i: number) => {
    const branch = deref<JsonSchema>(doc, raw as JsonSchema);
    const where = `components.schemas.ErrorCode.oneOf[${i}]`;
    const code = branch.const;
    const status = branch['x-http-status'];
    const areas = branch['x-areas'];
    if (typeof code !== 'string') throw new Error(`${where} has no string const`);
    if (typeof status !== 'number' || !Number.isInteger(status)) {
      throw new Error(`${where} (${code}) has no integer x-http-status`);
    }
    if (!Array.isArray(areas) || !areas.every((a) => typeof a === 'string')) {
      throw new Error(`${where} (${code}) has no x-areas list of strings`);
    }
    if (catalog.has(code)) throw new Error(`${where}: ${code} is listed twice`);
    catalog.set(code, {
      status,
      areas: [...areas],
      description: typeof branch.description === 'string' ? branch.description : '',
    });
  });
  return catalog;
}

// ---------------------------------------------------------------------------------------------------------------
// Operations

export interface ExampleInfo {
  summary?: string;
  description?: string;
  value: unknown;
}

export interface HeaderInfo {
  required: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface ParameterInfo {
  name: string;
  in: ParameterObject['in'];
  required: boolean;
  description?: string;
  schema?: JsonSchema;
  provisional: boolean;
}

export interface RequestBodyInfo {
  required: boolean;
  /** The JSON media type the schema was read from (normally `application/json`). */
  contentType?: string;
  /** As written in the bundle: usually a `$ref` to `#/components/schemas/...`. */
  schema?: JsonSchema;
  examples: Record<string, ExampleInfo>;
}

export interface ResponseInfo {
  /** The response key: `200`, `4XX` or `default`. */
  status: string;
  description: string;
  contentType?: string;
  /** As written in the bundle: usually a `$ref` to `#/components/schemas/...`. */
  schema?: JsonSchema;
  /** `x-error-codes`: the catalogue codes this response can carry. Empty on success responses. */
  errorCodes: string[];
  examples: Record<string, ExampleInfo>;
  headers: Record<string, HeaderInfo>;
}

export interface OperationInfo {
  method: HttpMethod;
  path: string;
  operationId: string;
  /** Second path segment: `/v3/wms/orders` is `wms`. */
  area: string;
  tags: string[];
  /** Names of the security schemes the operation accepts; empty for public operations. */
  security: string[];
  /** Path-level and operation-level parameters, the operation's winning on a clash. */
  parameters: ParameterInfo[];
  requestBody?: RequestBodyInfo;
  responses: Record<string, ResponseInfo>;
  provisional: boolean;
  mcpTool?: string;
}

/** Second path segment, which selects the area: `/v3/wms/orders` is `wms`. */
export function areaOf(path: string): string {
  return path.split('/').filter(Boolean)[1] ?? '';
}

function pickJson(content: Record<string, MediaTypeObject> | undefined): [string, MediaTypeObject] | undefined {
  if (!content) return undefined;
  const entries = Object.entries(content);
  return (
    entries.find(([type]) => type === 'application/json') ??
    entries.find(([type]) => /^application\/([\w.-]+\+)?json(;|$)/.test(type)) ??
    entries[0]
  );
}

function examplesOf(doc: OpenApiDocument, media: MediaTypeObject | undefined): Record<string, ExampleInfo> {
  const out: Record<string, ExampleInfo> = {};
  for (const [name, raw] of Object.entries(media?.examples ?? {})) {
    const example = deref<ExampleObject>(doc, raw);
    const info: ExampleInfo = { value: example.value };
    if (example.summary !== undefined) info.summary = example.summary;
    if (example.description !== undefined) info.description = example.description;
    out[name] = info;
  }
  return out;
}

function parameterInfo(doc: OpenApiDocument, raw: ParameterObject | Reference): ParameterInfo {
  const p = deref<ParameterObject>(doc, raw);
  const info: ParameterInfo = {
    name: p.name,
    in: p.in,
    // Path parameters are required whether or not the author wrote it down.
    required: p.in === 'path' ? true : p.required === true,
    provisional: p['x-provisional'] === true,
  };
  if (p.description !== undefined) info.description = p.description;
  if (p.schema !== undefined) info.schema = p.schema;
  return info;
}

function responseInfo(doc: OpenApiDocument, status: string, raw: ResponseObject | Reference): ResponseInfo {
  const r = deref<ResponseObject>(doc, raw);
  const json = pickJson(r.content);
  const headers: Record<string, HeaderInfo> = {};
  for (const [name, rawHeader] of Object.entries(r.headers ?? {})) {
    const h = deref<HeaderObject>(doc, rawHeader);
    const info: HeaderInfo = { required: h.required === true };
    if (h.description !== undefined) info.description = h.description;
    if (h.schema !== undefined) info.schema = h.schema;
    headers[name] = info;
  }
  const info: ResponseInfo = {
    status,
    description: r.description,
    errorCodes: Array.isArray(r['x-error-codes']) ? [...r['x-error-codes']] : [],
    examples: examplesOf(doc, json?.[1]),
    headers,
  };
  if (json) {
    info.contentType = json[0];
    if (json[1].schema !== undefined) info.schema = json[1].schema;
  }
  return info;
}

/** Every operation of the document, in path order then method order. */
export function operations(doc: OpenApiDocument): OperationInfo[] {
  const out: OperationInfo[] = [];
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    const item = deref<PathItemObject>(doc, rawItem);
    const shared = (item.parameters ?? []).map((p) => parameterInfo(doc, p));
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const own = (op.parameters ?? []).map((p) => parameterInfo(doc, p));
      const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
      // An operation without `security` inherits the document's; an empty list means public.
      const requirements = op.security ?? doc.security ?? [];
      const security = [...new Set(requirements.flatMap((req) => Object.keys(req)))];
      const responses: Record<string, ResponseInfo> = {};
      for (const [status, raw] of Object.entries(op.responses ?? {})) {
        responses[status] = responseInfo(doc, status, raw);
      }
      const info: OperationInfo = {
        method,
        path,
        operationId: op.operationId ?? '',
        area: areaOf(path),
        tags: [...(op.tags ?? [])],
        security,
        parameters,
        responses,
        provisional: op['x-provisional'] === true,
      };
      if (op.requestBody) {
        const body = deref<RequestBodyObject>(doc, op.requestBody);
        const json = pickJson(body.content);
        const requestBody: RequestBodyInfo = { required: body.required === true, examples: examplesOf(doc, json?.[1]) };
        if (json) {
          requestBody.contentType = json[0];
          if (json[1].schema !== undefined) requestBody.schema = json[1].schema;
        }
        info.requestBody = requestBody;
      }
      if (typeof op['x-mcp-tool'] === 'string') info.mcpTool = op['x-mcp-tool'];
      out.push(info);
    }
  }
  return out;
}

/** Finds one operation by method and path template (`get`, `/v3/wms/orders/{order_no}`). */
export function findOperation(doc: OpenApiDocument, method: string, path: string): OperationInfo | undefined {
  const m = method.toLowerCase();
  return operations(doc).find((op) => op.method === m && op.path === path);
}

// ---------------------------------------------------------------------------------------------------------------
// Provisional constraints (spec/README.md, "Provisional")

/**
 * The keywords that constrain a value beyond its type. In a schema node marked `x-provisional: true`, and in every
 * schema written inside it, these are designed, not shown by the source: `relaxProvisional` drops them. Types stay,
 * and so does every schema the node only references (`$ref`), whose own marks decide for it.
 */
export const PROVISIONAL_KEYWORDS: readonly string[] = [
  'enum',
  'const',
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'required',
  'dependentRequired',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'if',
  'then',
  'else',
];

/** `x-known-values`: the values of an open set that the contract knows of (a value outside them is allowed). */
export const KNOWN_VALUES_KEYWORD = 'x-known-values';

/**
 * `x-pattern-meaning`: what a value matching the schema's `pattern` is, in words (spec/README.md, "Patterns in
 * words"); an error message says it in place of a pattern no reader can use.
 */
export const PATTERN_MEANING_KEYWORD = 'x-pattern-meaning';

/**
 * Every `pattern` of the document that carries its meaning (`x-pattern-meaning`), by the pattern's text. The meaning
 * is found by the text wherever the pattern is, so one pattern given two meanings is an error of the contract.
 */
export function patternMeanings(doc: unknown): ReadonlyMap<string, string> {
  const meanings = new Map<string, string>();
  const stack: unknown[] = [doc];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const { pattern, [PATTERN_MEANING_KEYWORD]: meaning } = node as Record<string, unknown>;
    if (typeof pattern === 'string' && typeof meaning === 'string') {
      const earlier = meanings.get(pattern);
      if (earlier !== undefined && earlier !== meaning)
        throw new Error(
          `the pattern ${pattern} has two meanings in ${PATTERN_MEANING_KEYWORD}: "${earlier}" and "${meaning}"`,
        );
      meanings.set(pattern, meaning);
    }
    stack.push(...Object.values(node));
  }
  return meanings;
}

/** `x-former-names`: the names a component schema had in an earlier release (spec/README.md, "Former names"). */
export const FORMER_NAMES_KEYWORD = 'x-former-names';

/**
 * A copy of the document whose `components.schemas` also holds every former name of a schema (`x-former-names`) as
 * a deprecated `$ref` to it: what a generator of types reads, so that code written against a former name keeps
 * compiling. A former name that is a current one, or that two schemas claim, is an error of the contract.
 */
export function withFormerNames<T extends OpenApiDocument>(doc: T): T {
  const schemas = doc.components?.schemas;
  if (!schemas) return doc;
  const aliases: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const former = (schema as Record<string, unknown>)[FORMER_NAMES_KEYWORD];
    if (former === undefined) continue;
    if (!Array.isArray(former) || !former.every((f) => typeof f === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(f)))
      throw new Error(`components.schemas.${name}.${FORMER_NAMES_KEYWORD} must be a list of schema names`);
    for (const old of former as string[]) {
      if (old in schemas || old in aliases)
        throw new Error(`components.schemas.${name}: former name ${old} is taken by another schema`);
      aliases[old] = {
        $ref: `#/components/schemas/${name}`,
        description: `Former name of \`${name}\`.`,
        deprecated: true,
      };
    }
  }
  if (Object.keys(aliases).length === 0) return doc;
  return { ...doc, components: { ...doc.components, schemas: { ...schemas, ...aliases } } };
}

/** Whether a schema node (or a parameter) is marked `x-provisional: true`. */
export function isProvisional(node: unknown): boolean {
  return typeof node === 'object' && node !== null && (node as Record<string, unknown>)['x-provisional'] === true;
}

/**
 * A copy of a schema (or of a whole document) in which every node marked `x-provisional: true` has lost its
 * designed constraints (`PROVISIONAL_KEYWORDS`). A value the copy accepts and the original refuses departs only
 * from the contract's designs; a value the copy refuses breaks what the source shows. References are kept, so a
 * relaxed document must be used whole: `relaxProvisional(doc)` relaxes every component it references.
 */
export function relaxProvisional<T>(value: T): T {
  return relax(value) as T;
}

function relax(value: unknown, inherited = false): unknown {
  if (Array.isArray(value)) return value.map((item) => relax(item, inherited));
  if (!value || typeof value !== 'object') return value;
  const provisional = inherited || isProvisional(value);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (provisional && PROVISIONAL_KEYWORDS.includes(key)) continue;
    // Examples and extension values are data, not schemas: copied as they are.
    out[key] =
      key === 'examples' || key === 'example' || key === 'default' || key.startsWith('x-')
        ? child
        : relax(child, provisional);
  }
  // "Exactly one branch" holds only while the branches' designed constraints tell them apart (a result row's
  // `success: const true` and `const false`); relaxed, the branches may overlap, so one matching is enough.
  if (provisional && Array.isArray(out.oneOf)) {
    const { oneOf, ...rest } = out;
    return rest.anyOf === undefined
      ? { ...rest, anyOf: oneOf }
      : { ...rest, allOf: [...((rest.allOf as unknown[]) ?? []), { anyOf: oneOf }] };
  }
  return out;
}

/** Every schema node marked `x-provisional` under `components.schemas`, named `Component` or `Component.path`. */
export function provisionalSchemaNodes(doc: OpenApiDocument): Map<string, JsonSchema> {
  const found = new Map<string, JsonSchema>();
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) provisionalNodesIn(schema, name, found);
  return found;
}

/**
 * Every node marked `x-provisional` in `node` (itself included), named `name` or `name.path`: `properties.size` reads
 * as `.size`; other keywords (items, allOf, then) keep their own name.
 */
export function provisionalNodesIn(
  node: unknown,
  name: string,
  found = new Map<string, JsonSchema>(),
): Map<string, JsonSchema> {
  if (!node || typeof node !== 'object') return found;
  if (Array.isArray(node)) {
    for (const [i, child] of node.entries()) provisionalNodesIn(child, `${name}[${i}]`, found);
    return found;
  }
  if (isProvisional(node)) found.set(name, node as JsonSchema);
  for (const [key, child] of Object.entries(node)) {
    if (key === 'examples' || key === 'example' || key === 'default' || key.startsWith('x-')) continue;
    if (key === 'properties' && child && typeof child === 'object') {
      for (const [prop, sub] of Object.entries(child)) provisionalNodesIn(sub, `${name}.${prop}`, found);
    } else {
      provisionalNodesIn(child, `${name}.${key}`, found);
    }
  }
  return found;
}
