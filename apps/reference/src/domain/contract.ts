// What the domain reads from the contract: status codes (checked against the generated types), paging and the
// MCP tools (read from the bundled document at run time).

import type { components, Handlers } from '@cls-api/server';
import type { OpenApiDocument, JsonSchema, OperationInfo } from '@cls-api/spec';
import { operations } from '@cls-api/spec';
import type { Window } from './store.js';

export type DomainHandlers = Omit<Handlers, 'createAccessToken' | 'refreshAccessToken'>;

export type OrderStatusCode = components['schemas']['OrderStatusCode'];
export type Pagination = components['schemas']['Pagination'];

/** The meaning of each status code of `components.schemas.OrderStatusCode` (its `x-enumDescriptions`). */
export const ORDER_STATUS = {
  registered: 10,
  preparing: 20,
  shipped: 30,
  delivered: 40,
  cancelled: 90,
} as const satisfies Record<string, OrderStatusCode>;

// A status the contract adds (or drops) must be given a meaning here: this fails to compile until it is.
type UnmappedStatus = Exclude<OrderStatusCode, (typeof ORDER_STATUS)[keyof typeof ORDER_STATUS]>;
const everyStatusMapped: [UnmappedStatus] extends [never] ? true : false = true;
void everyStatusMapped;

/** Shipped orders (`30` shipped, `40` delivered) can no longer be modified. */
export function isShipped(code: number): boolean {
  return code === ORDER_STATUS.shipped || code === ORDER_STATUS.delivered;
}

/** The only draft status the service shows. */
export const DRAFT_STATUS_OPEN = 'open' satisfies components['schemas']['DraftOrder']['status'];

export function windowOf(page: number, size: number): Window {
  return { offset: (page - 1) * size, limit: size };
}

/** `total_pages` is `ceil(total / size)`, `has_next` is `page < total_pages` (components.schemas.Pagination). */
export function paginationOf(page: number, size: number, total: number): Pagination {
  const total_pages = Math.ceil(total / size);
  return { page, size, total, total_pages, has_next: page < total_pages };
}

// ---------------------------------------------------------------------------------------------------------------
// MCP tools

export type McpTool = components['schemas']['McpTool'];
export type McpArea = McpTool['area'];

export interface McpToolDefinition extends McpTool {
  /** Where each argument goes in the wrapped operation's input. */
  argumentLocations: Record<string, 'path' | 'query'>;
}

const MCP_AREAS: ReadonlySet<string> = new Set<McpArea>(['wms', 'manager', 'cam']);

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

function inputSchemaOf(op: OperationInfo): { schema: JsonSchema; locations: Record<string, 'path' | 'query'> } {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const locations: Record<string, 'path' | 'query'> = {};
  for (const p of op.parameters) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    if (!p.schema) throw new Error(`${op.operationId}: parameter ${p.name} has no schema`);
    if (JSON.stringify(p.schema).includes('"$ref"')) {
      throw new Error(`${op.operationId}: parameter ${p.name} has a $ref: derive tools from the dereferenced document`);
    }
    const schema = withoutExtensions(p.schema) as JsonSchema;
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
 * Schema of its arguments derived from the operation's path and query parameters. `doc` must be the dereferenced
 * bundle (`loadDereferencedSpec()`), so that each input schema stands alone.
 */
export function mcpToolsOf(doc: OpenApiDocument): McpToolDefinition[] {
  const tools: McpToolDefinition[] = [];
  for (const op of operations(doc)) {
    if (op.mcpTool === undefined) continue;
    // DECISIONS G12: tools wrap read operations only, so an agent cannot write through them.
    if (op.method !== 'get') throw new Error(`x-mcp-tool ${op.mcpTool} is on ${op.method.toUpperCase()} ${op.path}: tools wrap reads only`);
    if (!MCP_AREAS.has(op.area)) throw new Error(`x-mcp-tool ${op.mcpTool} is on ${op.path}, whose area ${op.area} cannot be a tool's`);
    if (tools.some((t) => t.name === op.mcpTool)) throw new Error(`x-mcp-tool ${op.mcpTool} is used twice`);
    const { schema, locations } = inputSchemaOf(op);
    tools.push({
      name: op.mcpTool,
      description: doc.paths?.[op.path]?.[op.method]?.summary ?? op.operationId,
      area: op.area as McpArea,
      operation_id: op.operationId,
      input_schema: schema,
      argumentLocations: locations,
    });
  }
  return tools;
}
