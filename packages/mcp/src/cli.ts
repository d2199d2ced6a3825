#!/usr/bin/env node
// `cls-mcp`: the MCP server over stdio (the default, for a host that starts it) or Streamable HTTP (`--http`).
import { listenRefusal } from '@cls-api/spec';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError, parseCli, USAGE } from './config.js';
import { connectServer } from './connect.js';
import { serveHttp } from './http.js';
import { createMcpServer } from './server.js';

async function main(): Promise<void> {
  const config = parseCli(process.argv.slice(2));
  if (config.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (config.transport.kind === 'http') {
    const endpoint = await serveHttp(config.options, config.transport);
    // stdout is free with HTTP; a host or a script reads the address from this line.
    process.stdout.write(`cls-mcp: Streamable HTTP on ${endpoint.url}\n`);
    const stop = () => void endpoint.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return;
  }
  // With stdio, stdout carries the protocol: nothing else may be written to it.
  const server = createMcpServer(config.options);
  await connectServer(server, new StdioServerTransport(), { lines: true });
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`cls-mcp: ${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  const refused = listenRefusal(err, { port: '--port', host: '--host' });
  if (refused) {
    process.stderr.write(`cls-mcp: ${refused}\n`);
    process.exit(1);
  }
  process.stderr.write(`cls-mcp: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
