// The MCP server driven the way a host drives it: the SDK's own Client, over stdio (the built `cls-mcp` spawned as
// a child process) or over Streamable HTTP (the built `cls-mcp --http` spawned, its address read from its first
// line), against the reference server started by the repository's helper (`@cls-api/test-servers`).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export { keyOf, startReference, type DemoAccount, type ReferenceServer } from '@cls-api/test-servers';

export const packageDir = join(import.meta.dirname, '..');
export const cli = join(packageDir, 'dist', 'src', 'cli.js');

export type TransportKind = 'stdio' | 'http';

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** The variables the server reads (the kit's: CLS_BASE_URL, CLS_API_KEYS, CLS_CLIENT_ID, CLS_CLIENT_SECRET). */
export type ServerEnv = Record<string, string>;

async function httpEndpoint(args: string[], env: ServerEnv): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, [cli, '--http', '--port', '0', ...args], {
    env: { ...getDefaultEnvironment(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /Streamable HTTP on (\S+)/.exec(out);
      if (m) resolve(new URL(m[1] as string));
    });
    child.once('exit', (code) => reject(new Error(`cls-mcp --http exited with ${code}: ${stderr}`)));
  });
  return { url, child };
}

/** Starts `cls-mcp` with `args` and `env` and connects the SDK's Client to it over `kind`. */
export async function connect(kind: TransportKind, args: string[], env: ServerEnv): Promise<Connected> {
  const client = new Client({ name: 'cls-mcp-test', version: '0.0.0' });
  if (kind === 'stdio') {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, ...args],
      env: { ...getDefaultEnvironment(), ...env },
      stderr: 'pipe',
    });
    await client.connect(transport);
    return { client, close: () => client.close() };
  }
  const { url, child } = await httpEndpoint(args, env);
  await client.connect(new StreamableHTTPClientTransport(url));
  return {
    client,
    async close() {
      await client.close();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content ?? [];
  return content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** The structured result of a tool call. */
export function structured<T = Record<string, unknown>>(result: unknown): T {
  return (result as CallToolResult).structuredContent as T;
}
