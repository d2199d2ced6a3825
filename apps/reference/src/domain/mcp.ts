// The MCP area: the tools are the contract's operations marked `x-mcp-tool`, called through their own handlers.

import type { ErrorObject, JsonSchema, SchemaValidator } from '@cls-api/spec';
import type { RequestContext } from '../environment.js';
import { shown } from '@cls-api/server';
import { ApiError } from '../errors.js';
import type { DomainHandlers, McpArea, McpTool, McpToolDefinition, Pagination } from './vocabulary.js';

type WrappedHandlers = Omit<DomainHandlers, 'listMcpTools' | 'callMcpTool'>;
type AnyInput = { params: Record<string, unknown>; query: Record<string, unknown>; body: undefined };
type AnyHandler = (input: AnyInput, ctx: RequestContext) => Promise<{ data: unknown; pagination?: Pagination }>;

interface CallableTool {
  definition: McpToolDefinition;
  handler: AnyHandler;
}

/**
 * The arguments with the defaults of the tool's input schema filled in (page 1, size 10), as the request validator
 * does for the wrapped operation's own route. The model's body validator fills none (it validates JSON as sent),
 * and a tool's arguments are one flat object of path and query parameters, so the top level is all there is.
 */
function withDefaults(schema: JsonSchema, args: Record<string, unknown>): Record<string, unknown> {
  // Anything but an object is left to the validator to refuse.
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const properties = (schema.properties ?? {}) as Record<string, { default?: unknown }>;
  for (const [name, property] of Object.entries(properties)) {
    if (args[name] === undefined && property.default !== undefined) args[name] = structuredClone(property.default);
  }
  return args;
}

function argumentError(errors: ErrorObject[]): ApiError {
  const missing = errors.find((e) => e.keyword === 'required');
  if (missing) {
    const name = (missing.params as { missingProperty: string }).missingProperty;
    return new ApiError('REQUIRED_PARAMETER', `arguments.${shown(name)} is required.`);
  }
  const first = errors[0];
  if (first?.keyword === 'additionalProperties') {
    const name = (first.params as { additionalProperty: string }).additionalProperty;
    // The name is the caller's own text: escaped and bounded, never repeated raw (it may hold control characters).
    return new ApiError('INVALID_PARAMETER', `arguments.${shown(name)} is not an argument of this tool.`);
  }
  const where = `arguments${shown((first?.instancePath ?? '').replaceAll('/', '.'))}`;
  return new ApiError('INVALID_PARAMETER', `${where} ${first?.message ?? 'is invalid'}.`);
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
      if (!tool) throw new ApiError('NOT_FOUND', `Tool ${shown(params.tool_name)} was not found.`);
      const { definition } = tool;
      // DECISIONS G8: a key may call the tools of its own area only.
      if (ctx.keyArea !== definition.area) {
        throw new ApiError(
          'AUTH_FORBIDDEN',
          `Tool ${definition.name} needs an API key of the ${definition.area} area.`,
        );
      }
      const args = withDefaults(definition.input_schema, structuredClone(body.arguments) as Record<string, unknown>);
      const errors = validator.errors(definition.input_schema, args);
      if (errors.length > 0) throw argumentError(errors);
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
