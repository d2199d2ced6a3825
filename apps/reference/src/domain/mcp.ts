// The MCP area: the tools are the contract's operations marked `x-mcp-tool`, called through their own handlers.

import {
  type SchemaValidator,
  toolArgumentRefusal,
  toolAreaMessage,
  unknownToolMessage,
  withToolDefaults,
} from '@cls-api/spec';
import type { RequestContext } from '../environment.js';
import { ApiError } from '../errors.js';
import type { DomainHandlers, McpArea, McpTool, McpToolDefinition, Pagination } from './vocabulary.js';

type WrappedHandlers = Omit<DomainHandlers, 'listMcpTools' | 'callMcpTool'>;
type AnyInput = { params: Record<string, unknown>; query: Record<string, unknown>; body: undefined };
type AnyHandler = (input: AnyInput, ctx: RequestContext) => Promise<{ data: unknown; pagination?: Pagination }>;

interface CallableTool {
  definition: McpToolDefinition;
  handler: AnyHandler;
}

/** `validator` is the contract model's `validator()`: arguments are JSON, taken as sent. */
export function mcpHandlers(
  definitions: McpToolDefinition[],
  wrapped: WrappedHandlers,
  validator: SchemaValidator,
): Pick<DomainHandlers, 'listMcpTools' | 'callMcpTool'> {
  const tools = new Map<string, CallableTool>();
  for (const definition of definitions) {
    const handler = (wrapped as unknown as Record<string, AnyHandler | undefined>)[definition.operation_id];
    if (!handler) throw new Error(`MCP tool ${definition.name} wraps ${definition.operation_id}, which has no handler`);
    validator.compile(definition.input_schema);
    tools.set(definition.name, { definition, handler });
  }
  const listing: McpTool[] = definitions.map(({ name, description, area, operation_id, input_schema }) => ({
    name,
    description,
    area,
    operation_id,
    input_schema,
  }));

  return {
    async listMcpTools() {
      return { data: structuredClone(listing) };
    },

    async callMcpTool({ params, body }, ctx) {
      const tool = tools.get(params.tool_name);
      if (!tool) throw new ApiError('NOT_FOUND', unknownToolMessage(params.tool_name));
      const { definition } = tool;
      // DECISIONS G8: a key may call the tools of its own area only.
      if (ctx.keyArea !== definition.area) throw new ApiError('AUTH_FORBIDDEN', toolAreaMessage(definition));
      const args = withToolDefaults(definition.input_schema, structuredClone(body.arguments)) as Record<
        string,
        unknown
      >;
      const errors = validator.errors(definition.input_schema, args);
      if (errors.length > 0) {
        const refused = toolArgumentRefusal(errors);
        throw new ApiError(refused.code, refused.message);
      }
      const input: AnyInput = { params: {}, query: {}, body: undefined };
      for (const [name, value] of Object.entries(args)) {
        input[definition.argumentLocations[name] === 'path' ? 'params' : 'query'][name] = value;
      }
      // The wrapped operation's errors propagate unchanged: same status, same code. The context is the caller's,
      // so the tool acts in the environment of the key used (DECISIONS G20).
      const result = await tool.handler(input, { ...ctx, area: definition.area satisfies McpArea });
      return {
        data: {
          tool: definition.name,
          result: result.data as Record<string, unknown>,
          ...(result.pagination === undefined ? {} : { pagination: result.pagination }),
        },
      };
    },
  };
}
