// The MCP server: lists the exposed tools and calls each through @cls-api/client, which brings the contract's
// rules (credentials per area, JWT renewal, the two 429s, pacing, bulk chunking, typed errors); this file only maps
// tool arguments to a request and the client's result or error to a tool result.
import { createRequire } from 'node:module';
import {
  ApiError,
  BulkChunkError,
  CredentialError,
  NetworkError,
  QuotaExceededError,
  type ErrorCode,
  type ThrowingClsClient,
} from '@cls-api/client';
import { HALF_SURROGATE_PAIR, illFormedTextAt, itemName, shown } from '@cls-api/spec';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode as JsonRpcErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpOptions } from './config.js';
import type { ToolDefinition } from './definition.js';
import { renderResult, type Pagination } from './render.js';
import { toolTable } from '../generated/tools.js';
import { argumentErrors, instructions } from './arguments.js';
import { Callers, exposedTools, howToExpose, type ClientSettings } from './tools.js';

/** This package's version: its package.json is two levels up from dist/src/, one from src/ (the tests). */
function packageVersion(): string {
  const require = createRequire(import.meta.url);
  for (const candidate of ['../../package.json', '../package.json']) {
    try {
      const manifest = require(candidate) as { name?: string; version?: string };
      if (manifest.name === '@cls-api/mcp' && manifest.version) return manifest.version;
    } catch {
      // not this level
    }
  }
  throw new Error('@cls-api/mcp: package.json not found next to the code');
}
const version = packageVersion();

type Arguments = Record<string, unknown>;

function toolError(text: string, error: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { error } };
}

/** An error of the client as the tool error a model reads: the contract's `error.code` first, then the message. */
export function errorResult(err: unknown): CallToolResult {
  if (err instanceof QuotaExceededError) {
    const resetAt = err.resetAt?.toISOString();
    const when = resetAt
      ? `it resets at ${resetAt}${err.retryAfterSeconds === undefined ? '' : ` (in ${err.retryAfterSeconds} s)`}`
      : err.retryAfterSeconds === undefined
        ? 'the service did not say when it resets'
        : `retry after ${err.retryAfterSeconds} s`;
    return toolError(
      `${err.code ?? 'RATE_LIMIT_EXCEEDED'}: ${err.message} The account's monthly quota of test calls is used up${err.limit === undefined ? '' : ` (${err.limit} calls, shared by all its test keys)`}; ${when}. Retrying earlier cannot succeed.`,
      {
        status: err.status,
        code: err.code,
        message: err.message,
        quota: {
          limit: err.limit,
          remaining: err.remaining,
          resetAt,
          retryAfterSeconds: err.retryAfterSeconds,
        },
      },
    );
  }
  if (err instanceof ApiError) {
    return toolError(
      `${err.code ?? `HTTP ${err.status}`}: ${err.message} (HTTP ${err.status} on ${err.method} ${err.url})`,
      {
        status: err.status,
        code: err.code,
        message: err.message,
      },
    );
  }
  if (err instanceof BulkChunkError) {
    const cause = errorResult(err.cause);
    const causeText = cause.content[0]?.type === 'text' ? cause.content[0].text : String(err.cause);
    return toolError(`${bulkFailure(err)} ${causeText}`, {
      ...(cause.structuredContent?.error as Record<string, unknown>),
      chunkIndex: err.chunkIndex,
      rowStart: err.rowStart,
      rowEnd: err.rowEnd,
      chunkWritten: err.chunkWritten,
      completed: err.completed,
    });
  }
  if (err instanceof NetworkError) {
    const written = err.mayHaveWritten ? ' The write may or may not have been stored; it was not repeated.' : '';
    return toolError(`No response from ${err.method} ${err.url}: ${err.message}.${written}`, {
      message: err.message,
      mayHaveWritten: err.mayHaveWritten,
    });
  }
  if (err instanceof CredentialError) return toolError(err.message, { message: err.message });
  const message = err instanceof Error ? err.message : String(err);
  return toolError(`The call failed: ${message}`, { message });
}

/** What a failed bulk request means for the rows: only what is true of this job (one request has no rows before it). */
export function bulkFailure(err: BulkChunkError): string {
  const written = err.chunkWritten === false ? 'nothing of it was registered' : 'it may or may not have been stored';
  if (err.chunkCount === 1) return `The request failed and ${written}.`;
  const parts = [
    `Rows ${err.rowStart} to ${err.rowEnd - 1} (counted from 0; request ${err.chunkIndex + 1} of ${err.chunkCount}) failed and ${written}`,
  ];
  if (err.chunkIndex > 0) parts.push(`rows 0 to ${err.rowStart - 1} were accepted`);
  if (err.chunkIndex < err.chunkCount - 1) parts.push(`the rows from ${err.rowEnd} on were not sent`);
  const numbering = err.rowStart > 0 ? ` Row numbers in the service's message count from row ${err.rowStart}.` : '';
  return `${parts.join('; ')}.${numbering}`;
}

/**
 * Arguments the server refuses before sending anything get the code the service would answer them with; typed by
 * the contract's codes (`ErrorCode`), so a code the contract drops stops the build.
 */
function argumentError(text: string, code: ErrorCode): CallToolResult {
  return toolError(text, { code, message: text });
}

const NOTHING_SENT = 'Nothing was sent, so no call was counted; correct the arguments and call again.';

function pick(args: Arguments, names: string[]): Record<string, unknown> | undefined {
  const out = Object.fromEntries(names.filter((n) => args[n] !== undefined).map((n) => [n, args[n]]));
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Every argument checked against the tool's input schema (types, required fields, the service's own constraints;
 * bounds that may still change are left open by the generator), so that a mistake costs no call of the quota.
 */
function checkArguments(tool: ToolDefinition, args: Arguments): CallToolResult | undefined {
  const errors = argumentErrors(tool, args);
  if (errors.length === 0) {
    // No schema says text is Unicode. The service refuses such text, and in a path or query a URL cannot carry it.
    const illFormed = illFormedTextAt(args);
    if (!illFormed) return undefined;
    const where = illFormed.propertyName ? `a property name in ${illFormed.path || 'arguments'}` : illFormed.path;
    return argumentError(
      `${tool.name}: ${where} holds ${HALF_SURROGATE_PAIR}, which is not Unicode text. ${NOTHING_SENT}`,
      'INVALID_PARAMETER',
    );
  }
  // Named as both servers name a field they refuse.
  const where = (e: (typeof errors)[number]) => {
    const missing =
      e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : undefined;
    return itemName(e.instancePath, missing) || 'arguments';
  };
  const listed = errors.slice(0, 5).map((e) => {
    const value = JSON.stringify(valueAt(args, e.instancePath));
    const got = e.keyword === 'required' ? '' : ` (got ${value === undefined ? 'nothing' : shown(value)})`;
    return `${where(e)} ${e.message ?? 'is not valid'}${got}`;
  });
  const more = errors.length > listed.length ? `; and ${errors.length - listed.length} more` : '';
  const code: ErrorCode = errors.every((e) => e.keyword === 'required') ? 'REQUIRED_PARAMETER' : 'INVALID_PARAMETER';
  return argumentError(`${tool.name}: ${listed.join('; ')}${more}. ${NOTHING_SENT}`, code);
}

function valueAt(value: unknown, pointer: string): unknown {
  let node = value;
  for (const part of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

type LooseRequest = (
  method: string,
  path: string,
  init: {
    params: { path?: Record<string, unknown>; query?: Record<string, unknown> };
    body?: unknown;
    signal: AbortSignal;
  },
) => Promise<{ data: unknown }>;
type LooseBulk = (
  rows: unknown[],
  options: { params?: { path: Record<string, unknown> }; signal: AbortSignal },
) => Promise<unknown>;

/**
 * A tool call sent through the client. `signal` aborts when the host cancels the call or its connection closes: a
 * call still waiting for its turn is then never sent (it would spend a call of the monthly quota for an answer no one
 * reads), and a bulk job sends no further chunk.
 */
async function call(
  client: ThrowingClsClient,
  tool: ToolDefinition,
  args: Arguments,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const path = pick(args, tool.pathParams);
  const query = pick(args, tool.queryParams);
  const known = new Set([...tool.pathParams, ...tool.queryParams, 'body']);
  const unknown = Object.keys(args).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    return argumentError(
      `${tool.name} takes no argument ${unknown.map((k) => shown(k)).join(', ')}`,
      'INVALID_PARAMETER',
    );
  }
  for (const name of tool.inputSchema.required ?? []) {
    if (args[name] === undefined) {
      return argumentError(`${tool.name} needs the argument ${name}`, 'REQUIRED_PARAMETER');
    }
  }
  const refused = checkArguments(tool, args);
  if (refused) return refused;
  if (tool.bulk) {
    const rows = (args.body as Record<string, unknown> | undefined)?.[tool.bulk.rowsField];
    if (!Array.isArray(rows)) {
      return argumentError(`${tool.name} needs body.${tool.bulk.rowsField}, an array of rows`, 'REQUIRED_PARAMETER');
    }
    const bulk = client.bulk[tool.name as keyof typeof client.bulk] as unknown as LooseBulk;
    const data = await bulk(rows, path ? { params: { path }, signal } : { signal });
    return { content: [{ type: 'text', text: renderResult(data) }], structuredContent: { data } };
  }
  const request = client.request as unknown as LooseRequest;
  const init = {
    params: { ...(path ? { path } : {}), ...(query ? { query } : {}) },
    ...(args.body !== undefined ? { body: args.body } : {}),
    signal,
  };
  const { data: envelope } = await request(tool.method.toUpperCase(), tool.path, init);
  const { data, pagination } = (envelope ?? {}) as { data?: unknown; pagination?: Pagination };
  return {
    content: [{ type: 'text', text: renderResult(data, pagination) }],
    structuredContent: pagination ? { data, pagination } : { data },
  };
}

/** A pattern longer than this is a calendar check (leap years, days per month), not a hint a model can use. */
const LISTED_PATTERN_MAX = 64;

/**
 * The input schema as listed: the generated one less its calendar-sized patterns, which cost a model hundreds of
 * tokens per tool and say no more than the field's description (`YYYY-MM-DD`). The server still checks them.
 */
export function listedSchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(listedSchema) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'pattern' && typeof value === 'string' && value.length > LISTED_PATTERN_MAX) continue;
    out[key] = listedSchema(value);
  }
  return out as T;
}

/** The MCP tool a model sees: name, description, input schema and annotations, as generated from the contract. */
function listed(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: listedSchema(tool.inputSchema),
    annotations: { ...tool.annotations },
  };
}

type Issues = ReadonlyArray<{ path: PropertyKey[]; message: string }>;

interface RequestSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: Issues } };
}

/**
 * A JSON-RPC error this server answers a request with, its message as written: the SDK answers any error thrown by a
 * handler with the error's `code` and `message`. Its own McpError writes the code into the message as well ("MCP
 * error -32602: …"), which the SDK's client then prefixes again: a host showed the code twice before the words.
 */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The -32602 error of a request of `method` that its schema refused, naming each field it refused. */
export function invalidParams(method: string, issues: Issues): ProtocolError {
  const named = issues.map((i) => `${i.path.map(String).join('.') || 'the request'}: ${i.message}`);
  return new ProtocolError(JsonRpcErrorCode.InvalidParams, `Invalid ${method} request: ${named.join('; ')}`);
}

/** The request as its schema reads it, or the -32602 error that names each argument it refused. */
function parsedRequest<T extends { method: string }>(schema: RequestSchema<T>, raw: { method: string }): T {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw invalidParams(raw.method, result.error.issues);
}

/**
 * An MCP server of the API with the tools the options expose. `callers` may be shared by several servers (the HTTP
 * transport makes one per request) so that they share credentials, token and quota state.
 */
export function createMcpServer(options: McpOptions, callers: Callers = new Callers(options)): Server {
  // The SDK's low-level Server, not McpServer: McpServer registers tools by zod schemas, and these tools' input
  // schemas are JSON Schema generated from the contract, which the low-level server lists as they are.
  const tools = exposedTools(options);
  const server = new Server(
    { name: 'cls-api', title: 'Commerce and Logistics Service API v3', version },
    { capabilities: { tools: {} }, instructions: instructions(options, tools) },
  );
  // Each handler is registered by its method alone: the SDK parses a request by the schema given here before any
  // handler runs, and answered one it refused there (`arguments` a string, `cursor` a number) with -32603, an error
  // of this server. Parsed in the handler, it is -32602, invalid params: the caller's to correct. (For tools/call
  // the SDK's own check of the request comes first, with the same code.)
  server.setRequestHandler(ListToolsRequestSchema.pick({ method: true }).loose(), async (raw) => {
    const request = parsedRequest(ListToolsRequestSchema, raw);
    // Every tool is listed at once and no cursor is ever given out: any cursor is one this server did not issue.
    if (request.params?.cursor !== undefined) {
      throw invalidParams('tools/list', [
        { path: ['params', 'cursor'], message: 'this server lists every tool at once and gives out no cursor' },
      ]);
    }
    return { tools: tools.map(listed) };
  });
  server.setRequestHandler(CallToolRequestSchema.pick({ method: true }).loose(), async (raw, extra) => {
    const request = parsedRequest(CallToolRequestSchema, raw);
    const name = request.params.name;
    const tool = tools.find((t) => t.name === name);
    if (!tool) {
      const hidden = toolTable.find((t) => t.name === name);
      let why = 'the contract has no such operation';
      if (hidden) {
        const how = howToExpose(hidden, options);
        const readOnlyWins =
          options.readOnly && how.flags.includes('--allow-writes') ? ' (and without --read-only, which wins)' : '';
        why = `${how.why}. To expose it with every tool listed now, start the server with ${how.flags.join(' ')}${readOnlyWins}`;
      }
      // The server's own code, not the service's: nothing was sent.
      return toolError(`Tool ${name} is not available: ${why}.`, { code: 'TOOL_NOT_AVAILABLE', message: why });
    }
    const args = request.params.arguments ?? {};
    if (tool.keyAreaFrom && options.readOnly) {
      const named = args[tool.keyAreaFrom.param];
      if (typeof named === 'string' && tool.keyAreaFrom.reads[named] === false) {
        // The whole command line, the areas kept: --allow-writes alone would drop the opt-in area of this tool.
        const flags = ['--allow-writes', ...(options.areas ? ['--areas', options.areas.join(',')] : [])].join(' ');
        const why = `${named} writes, and the server is read-only: start it with ${flags} (and without --read-only, which wins) to call it`;
        return toolError(`Tool ${name} cannot call ${named}: ${why}.`, { code: 'TOOL_NOT_AVAILABLE', message: why });
      }
    }
    const client = callers.clientFor(tool, args);
    if ('missing' in client) return toolError(client.missing, { message: client.missing });
    try {
      return await call(client, tool, args, extra.signal);
    } catch (err) {
      return errorResult(err);
    }
  });
  return server;
}

export { Callers, type ClientSettings };
