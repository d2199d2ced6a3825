// The tools of the service's MCP area (`/v3/mcp/`), derived from the contract: one per read operation marked
// `x-mcp-tool` (DECISIONS G12), its arguments the operation's path and query parameters, and a call of one refused in
// the same words by every server that answers it (the reference server serves the tools; the mock answers calls).
import {
  isReference,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
  operations,
  resolvePointer,
} from './document.js';
import { type ErrorObject, readCredentialSchemes } from './model.js';
import { itemName, shown } from './text.js';

/** A tool as `GET /v3/mcp/tools` lists it, with where each argument goes in the wrapped operation's input. */
export interface McpToolDefinition {
  name: string;
  description: string;
  /** The area of the keys that may call it (a key's first segment, `wms`). */
  area: string;
  operation_id: string;
  input_schema: JsonSchema;
  argumentLocations: Record<string, 'path' | 'query'>;
}

/** A schema without the contract's `x-…` annotations, which mean nothing to a tool's caller. */
function withoutExtensions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutExtensions);
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => !key.startsWith('x-'))
        .map(([key, value]) => [key, withoutExtensions(value)]),
    );
  }
  return node;
}

const ANNOTATIONS = new Set(['title', 'description', 'examples', 'deprecated']);

/**
 * A schema whose one-branch `allOf` only annotates its branch (how the contract writes a reference beside a
 * description: spec/README.md, "What other tools read"), as that branch with the annotations: what an agent reads
 * in a tool's arguments is then the type and pattern themselves.
 */
function unwrapped(schema: JsonSchema): JsonSchema {
  const { allOf, ...rest } = schema;
  if (!Array.isArray(allOf) || allOf.length !== 1 || Object.keys(rest).some((k) => !ANNOTATIONS.has(k))) return schema;
  return { ...unwrapped(allOf[0] as JsonSchema), ...rest };
}

/**
 * `node` with every reference replaced by what it names, so that a tool's input schema stands alone (an agent reads
 * it without the document). A reference that leads back into itself is an error of the document.
 */
function inlined(doc: OpenApiDocument, node: unknown, depth = 0): unknown {
  if (depth > 32) throw new Error('a parameter schema refers to itself: a tool cannot state its arguments');
  if (Array.isArray(node)) return node.map((item) => inlined(doc, item, depth + 1));
  if (!node || typeof node !== 'object') return node;
  if (isReference(node)) return inlined(doc, resolvePointer(doc, node.$ref), depth + 1);
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlined(doc, value, depth + 1)]));
}

function inputSchemaOf(
  doc: OpenApiDocument,
  op: OperationInfo,
): { schema: JsonSchema; locations: Record<string, 'path' | 'query'> } {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const locations: Record<string, 'path' | 'query'> = {};
  for (const p of op.parameters) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    if (!p.schema) throw new Error(`${op.operationId}: parameter ${p.name} has no schema`);
    const schema = unwrapped(withoutExtensions(inlined(doc, p.schema)) as JsonSchema);
    properties[p.name] = p.description === undefined ? schema : { ...schema, description: p.description };
    if (p.required) required.push(p.name);
    locations[p.name] = p.in;
  }
  const schema: JsonSchema = { type: 'object', additionalProperties: false };
  if (required.length > 0) schema.required = required;
  schema.properties = properties;
  return { schema, locations };
}

/**
 * The tools of the MCP area: one per operation carrying `x-mcp-tool`, in the document's order, each with the JSON
 * Schema of its arguments derived from the operation's path and query parameters, with its references inlined, so
 * that it stands alone: the same tools from the bundle and from the dereferenced bundle.
 */
export function mcpToolsOf(doc: OpenApiDocument): McpToolDefinition[] {
  // The areas whose keys a tool can take: those of the contract's API-key schemes.
  const areas = new Set(readCredentialSchemes(doc).flatMap((s) => (s.keyArea === undefined ? [] : [s.keyArea])));
  const tools: McpToolDefinition[] = [];
  for (const op of operations(doc)) {
    if (op.mcpTool === undefined) continue;
    // DECISIONS G12: tools wrap read operations only, so an agent cannot write through them.
    if (op.method !== 'get')
      throw new Error(`x-mcp-tool ${op.mcpTool} is on ${op.method.toUpperCase()} ${op.path}: tools wrap reads only`);
    if (!areas.has(op.area))
      throw new Error(`x-mcp-tool ${op.mcpTool} is on ${op.path}, whose area ${op.area} cannot be a tool's`);
    if (tools.some((t) => t.name === op.mcpTool)) throw new Error(`x-mcp-tool ${op.mcpTool} is used twice`);
    const { schema, locations } = inputSchemaOf(doc, op);
    tools.push({
      name: op.mcpTool,
      description: doc.paths?.[op.path]?.[op.method]?.summary ?? op.operationId,
      area: op.area,
      operation_id: op.operationId,
      input_schema: schema,
      argumentLocations: locations,
    });
  }
  return tools;
}

/** The operation that calls a tool by its name, which is that operation's one path parameter. */
export const TOOL_CALL_OPERATION = 'callMcpTool';

/**
 * The tool a request of the tool-call operation names: the segment of `pathname` (the request's path, from the
 * service's root) where `op`'s path has its one path parameter, percent-decoded. Undefined for another operation, a
 * path of another shape, or a segment that does not decode.
 */
export function calledToolName(op: Pick<OperationInfo, 'operationId' | 'path' | 'parameters'>, pathname: string) {
  if (op.operationId !== TOOL_CALL_OPERATION) return undefined;
  const parameter = op.parameters.find((p) => p.in === 'path');
  const at = parameter ? op.path.split('/').indexOf(`{${parameter.name}}`) : -1;
  const segment = at < 0 ? undefined : pathname.split('/')[at];
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The message of the 404 for a call of a tool the area does not have (the name escaped by `shown`). */
export function unknownToolMessage(name: string): string {
  return `Tool ${shown(name)} was not found.`;
}

/** The message of the 403 for a call with a key of another area than the tool's (DECISIONS G8). */
export function toolAreaMessage(tool: Pick<McpToolDefinition, 'name' | 'area'>): string {
  return `Tool ${tool.name} needs an API key of the ${tool.area} area.`;
}

/**
 * The arguments with the defaults of the tool's input schema filled in (page 1, size 10), as the request validator
 * does for the wrapped operation's own route. A tool's arguments are one flat object of path and query parameters,
 * so the top level is all there is; anything but an object is left to the validator to refuse.
 */
export function withToolDefaults(schema: JsonSchema, args: unknown): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const filled = { ...(args as Record<string, unknown>) };
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [name, property] of Object.entries(properties)) {
    if (filled[name] === undefined && property.default !== undefined) filled[name] = structuredClone(property.default);
  }
  return filled;
}

/** The refusal of a tool's arguments by its input schema (the validator's errors, first first), in its words. */
export function toolArgumentRefusal(errors: readonly ErrorObject[]): {
  code: 'REQUIRED_PARAMETER' | 'INVALID_PARAMETER';
  message: string;
} {
  // Named as the servers name a field (`itemName`): a name is the caller's own text, so it is escaped and bounded.
  const named = (instancePath: string, child?: string) => {
    const item = itemName(instancePath, child);
    return item === '' ? 'arguments' : `arguments.${item}`;
  };
  const missing = errors.find((e) => e.keyword === 'required');
  if (missing) {
    const name = (missing.params as { missingProperty: string }).missingProperty;
    return { code: 'REQUIRED_PARAMETER', message: `${named(missing.instancePath, name)} is required.` };
  }
  const first = errors[0];
  if (first?.keyword === 'additionalProperties') {
    const name = (first.params as { additionalProperty: string }).additionalProperty;
    return {
      code: 'INVALID_PARAMETER',
      message: `${named(first.instancePath, name)} is not an argument of this tool.`,
    };
  }
  return {
    code: 'INVALID_PARAMETER',
    message: `${named(first?.instancePath ?? '')} ${first?.message ?? 'is invalid'}.`,
  };
}
