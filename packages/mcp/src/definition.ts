// The shape of one generated tool (generated/tools.ts, written by scripts/generate.mjs from the contract).

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition {
  /** The operation's `operationId`. */
  name: string;
  /** The operation's summary. */
  title: string;
  description: string;
  method: string;
  path: string;
  /** The second path segment: `wms`, `manager`, `pay`, `cam`, `mcp`, `auth`. */
  area: string;
  provisional: boolean;
  /** The credentials the operation accepts, in the contract's order; empty when it is public. */
  credentials: Array<'apiKey' | 'jwt'>;
  pathParams: string[];
  queryParams: string[];
  /** Set when the client sends the body's rows in chunks (`client.bulk`). */
  bulk?: { rowsField: string; maxRows: number };
  /**
   * Set on a call of an MCP tool of the `/v3/mcp/` area: the path parameter naming the tool, and each tool's area,
   * whose key the call takes.
   */
  keyAreaFrom?: {
    param: string;
    areas: Record<string, string>;
    /** Whether each tool it can call only reads: read-only mode refuses a call of one that writes. */
    reads: Record<string, boolean>;
  };
  inputSchema: { type: 'object'; properties: Record<string, object>; required?: string[]; [keyword: string]: unknown };
  annotations: ToolAnnotations;
}

/** What the server's instructions tell a model about the service, read from the contract when generating. */
export interface ServiceFacts {
  /** `Commerce and Logistics Service API v3` */
  title: string;
  summary: string;
  /** Each area (`wms`) by its name (`Warehouse`). */
  areas: Record<string, string>;
  /** Calls a month of the account's test keys, together; null when not limited. */
  testCallsPerMonth: number | null;
  bulkRowsPerRequest: number;
  /**
   * The query parameters several operations share, by name, with their description (`page`: `Page number,
   * 1-based.`): said once in the instructions, left out of each tool's schema.
   */
  sharedParameters: Record<string, string>;
}
