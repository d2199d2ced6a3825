// Streamable HTTP: one endpoint, `/mcp`, stateless (every POST is answered on its own, by a server made for it),
// so that any number of hosts can share one process. The clients behind the servers are shared (`Callers`): one
// pacer, one JWT, one quota state for the process.
import { createServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpOptions } from './config.js';
import { connectServer } from './connect.js';
import { Callers, createMcpServer, type ClientSettings } from './server.js';

export interface HttpEndpoint {
  /** `http://127.0.0.1:3333/mcp` */
  url: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function jsonRpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function serveHttp(
  options: McpOptions,
  listen: { host: string; port: number },
  settings: ClientSettings = {},
): Promise<HttpEndpoint> {
  const callers = new Callers(options, settings);
  let allowedHosts: string[] | undefined;
  const http: HttpServer = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname;
    if (path !== '/mcp') return jsonRpcError(res, 404, 'Not found: the MCP endpoint is /mcp');
    if (req.method !== 'POST')
      return jsonRpcError(res, 405, 'Method not allowed: this server is stateless; POST to /mcp');
    const server = createMcpServer(options, callers);
    // On a loopback address only local hosts' names are answered: a web page cannot reach the server through a
    // name it controls (DNS rebinding).
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      ...(allowedHosts ? { enableDnsRebindingProtection: true, allowedHosts } : {}),
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    connectServer(server, transport)
      .then(() => transport.handleRequest(req, res))
      .catch((err: unknown) => {
        if (!res.headersSent) jsonRpcError(res, 500, `Internal error: ${(err as Error).message}`);
      });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(listen.port, listen.host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  if (LOOPBACK.has(listen.host)) {
    allowedHosts = ['127.0.0.1', 'localhost', '[::1]'].map((h) => `${h}:${port}`);
  }
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return {
    url: `http://${host}:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
