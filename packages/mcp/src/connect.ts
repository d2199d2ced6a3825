// A server connected so that every request a host sends gets an answer it can act on. The SDK leaves two gaps, and
// this file fills only those:
// - over stdio, a line that is not JSON, or JSON that is not a JSON-RPC message, is reported to `onerror` and
//   dropped, so a host waiting for its answer waits forever. It is answered as the SDK's own Streamable HTTP
//   transport answers the same body (-32700, `id` null), so the server says the same on both transports;
// - an `initialize` whose params the SDK's schema refuses is answered -32603, internal error, with the schema's
//   issues as a JSON dump. It is -32602, invalid params, naming each field in the words this server's own methods
//   use (server.ts, `parsedRequest`). (`ping`, the SDK's other method, takes only what every message may carry,
//   which the transport has checked.)
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { invalidParams } from './server.js';

/** The message a line the transport could not read is answered with, or undefined for any other transport error. */
function unreadable(error: Error): string | undefined {
  if (error instanceof SyntaxError) return 'Parse error: Invalid JSON';
  // The SDK checks the parsed line against its message schema, whose error lists the issues.
  if (Array.isArray((error as { issues?: unknown }).issues)) return 'Parse error: Invalid JSON-RPC message';
  return undefined;
}

/**
 * Connects `server` to `transport`, answering what the SDK would leave unanswered or call its own fault. `lines`
 * says the transport reads lines, as stdio does (the Streamable HTTP transport answers an unreadable body itself).
 */
export async function connectServer(server: Server, transport: Transport, { lines = false } = {}): Promise<void> {
  // Set before connect(), which keeps it and adds the server's own.
  if (lines) {
    transport.onerror = (error) => {
      const message = unreadable(error);
      // JSON-RPC answers a request it could not read with a null id: the id could not be read either.
      const answer = { jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError, message } };
      if (message) void transport.send(answer as unknown as JSONRPCMessage).catch(() => undefined);
    };
  }
  await server.connect(transport);
  // The server reads messages through the handler connect() set; a refused request stops here, answered.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (!isJSONRPCRequest(message) || message.method !== 'initialize') return deliver?.(message, extra);
    const parsed = InitializeRequestSchema.safeParse(message);
    if (parsed.success) return deliver?.(message, extra);
    const refusal = invalidParams(message.method, parsed.error.issues);
    const answer = { jsonrpc: '2.0' as const, id: message.id, error: { code: refusal.code, message: refusal.message } };
    void transport.send(answer, { relatedRequestId: message.id }).catch(() => undefined);
  };
}
