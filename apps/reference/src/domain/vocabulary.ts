// The domain's vocabulary from the contract: the handler types, the status codes this server assigns (checked
// against the contract's known values at start), paging, and the MCP tools (derived from the document at start).

import type { components, HandlerInput, HandlerResult, OperationId } from '@cls-api/server';
import {
  KNOWN_VALUES_KEYWORD,
  type ContractModel,
  type JsonSchema,
  type McpToolDefinition as SpecMcpTool,
  mcpToolsOf as specMcpTools,
  type OpenApiDocument,
} from '@cls-api/spec';
import type { RequestContext } from '../environment.js';
import type { Window } from '../store/interface.js';

/** Every operation but the two token operations, which the framework serves (`src/auth/tokens.ts`). */
export type DomainOperationId = Exclude<OperationId, 'createAccessToken' | 'refreshAccessToken'>;
/** A domain handler: the generated handler type, with the environment of the credential in its context. */
export type DomainHandler<K extends DomainOperationId> = (
  input: HandlerInput<K>,
  ctx: RequestContext,
) => Promise<HandlerResult<K>>;
export type DomainHandlers = { [K in DomainOperationId]: DomainHandler<K> };

export type OrderStatusCode = components['schemas']['OrderStatusCode'];
export type Pagination = components['schemas']['Pagination'];

/**
 * The meaning of each known status code of `components.schemas.OrderStatusCode` (its `x-known-values` and
 * `x-enumDescriptions`). The set is open (DECISIONS G24): a client may meet other codes; this server assigns
 * only these.
 */
export const ORDER_STATUS = {
  registered: 10,
  preparing: 20,
  shipped: 30,
  delivered: 40,
  cancelled: 90,
} as const satisfies Record<string, OrderStatusCode>;

/** The only draft status the service shows. */
export const DRAFT_STATUS_OPEN = 'open' satisfies components['schemas']['DraftOrder']['status'];

/** The known values of an open set (`x-known-values`), from the contract model; the contract must state them. */
function knownValues(model: ContractModel, schema: unknown, where: string): unknown[] {
  const values = model.knownValues(schema as JsonSchema | undefined);
  if (!values) throw new Error(`the contract gives no ${KNOWN_VALUES_KEYWORD} for ${where}`);
  return values;
}

/**
 * Refuses to start when the contract's known values and this server's meanings differ: a status the contract adds
 * (or drops) must be given a meaning in `ORDER_STATUS` first, and the draft status the server writes must be one
 * the contract knows. `model` is the model of the dereferenced bundle.
 */
export function assertKnownValues(model: ContractModel): void {
  const schemas = model.doc.components?.schemas ?? {};
  const mapped: unknown[] = Object.values(ORDER_STATUS);
  const statuses = knownValues(model, schemas.OrderStatusCode, 'OrderStatusCode');
  const unmapped = statuses.filter((v) => !mapped.includes(v));
  const unknown = mapped.filter((v) => !statuses.includes(v));
  if (unmapped.length || unknown.length) {
    throw new Error(
      `OrderStatusCode: the contract knows ${statuses.join(', ')}, this server gives meanings to ${mapped.join(', ')}`,
    );
  }
  // What this server ships and delivers with must be a shipped code, or its own shipped orders could be modified.
  const notShipped = [ORDER_STATUS.shipped, ORDER_STATUS.delivered].filter((code) => !model.isShipped(code));
  if (notShipped.length) {
    throw new Error(
      `OrderStatusCode: this server marks orders shipped with ${notShipped.join(', ')}, which x-shipped-values (${model.orderStatuses.shipped.join(', ')}) leaves out`,
    );
  }
  const draftStatus = (schemas.DraftOrder as { properties?: Record<string, unknown> } | undefined)?.properties?.status;
  if (!knownValues(model, draftStatus, 'DraftOrder.status').includes(DRAFT_STATUS_OPEN)) {
    throw new Error(
      `DraftOrder.status: the contract does not know the status ${DRAFT_STATUS_OPEN}, which this server writes`,
    );
  }
}

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

/** A tool of the MCP area (`mcpToolsOf` in @cls-api/spec), its area one of the contract's. */
export interface McpToolDefinition extends SpecMcpTool {
  area: McpArea;
}

/** The tools of the MCP area, derived from the contract by @cls-api/spec, each area one of `McpArea`. */
export function mcpToolsOf(doc: OpenApiDocument): McpToolDefinition[] {
  return specMcpTools(doc) as McpToolDefinition[];
}
