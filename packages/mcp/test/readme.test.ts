// The configuration block at the top of the README, as written: the host's command, arguments and variable names
// from the JSON, spawned by the SDK's stdio client from a project where the package is installed (as `npx` finds
// it there), with the variables' values those of the reference server.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keyOf, packageDir, startReference, structured, type ReferenceServer } from './support.js';

interface HostConfig {
  mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
}

const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const project = mkdtempSync(join(tmpdir(), 'cls-mcp-readme-'));
let reference: ReferenceServer;

beforeAll(async () => {
  reference = await startReference({ from: import.meta.url });
  // A project with the package installed, as `npm install @cls-api/mcp` leaves it (the package linked in).
  mkdirSync(join(project, 'node_modules', '@cls-api'), { recursive: true });
  mkdirSync(join(project, 'node_modules', '.bin'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'host', private: true }));
  symlinkSync(packageDir, join(project, 'node_modules', '@cls-api', 'mcp'), 'dir');
  symlinkSync(join('..', '@cls-api', 'mcp', 'dist', 'src', 'cli.js'), join(project, 'node_modules', '.bin', 'cls-mcp'));
});
afterAll(async () => {
  await reference?.close();
  rmSync(project, { recursive: true, force: true });
});

// npx walks the installed package's whole dependency tree before it starts the server (seconds of CPU on a quiet
// machine, a minute and more on two cores shared with every other suite of `pnpm test`), so neither this test nor
// the SDK's requests (60 s by default) are bounded by that: the limit is the hooks' own.
const PATIENT = { timeout: 600_000 };
it('starts with a host configuration block that starts the server, as written', { timeout: 900_000 }, async () => {
  expect(readme.startsWith('# @cls-api/mcp\n\n```json\n')).toBe(true);
  const block = /^```json\n([\s\S]*?)```/m.exec(readme)![1]!;
  const config = JSON.parse(block) as HostConfig;
  const [name, server] = Object.entries(config.mcpServers)[0]!;
  expect(name).toBe('cls-api');
  expect(Object.keys(server.env).sort()).toEqual([
    'CLS_API_KEYS',
    'CLS_BASE_URL',
    'CLS_CLIENT_ID',
    'CLS_CLIENT_SECRET',
  ]);
  const account = reference.accounts[0]!;
  const values: Record<string, string> = {
    CLS_BASE_URL: reference.baseUrl,
    CLS_API_KEYS: `${keyOf(account, 'wms')},${keyOf(account, 'manager')},${keyOf(account, 'cam')}`,
    CLS_CLIENT_ID: account.client_id,
    CLS_CLIENT_SECRET: account.client_secret,
  };
  const client = new Client({ name: 'host', version: '0.0.0' });
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    cwd: project,
    // The README's variables with real values; npm is kept off the network, so the installed package must serve.
    env: {
      ...getDefaultEnvironment(),
      ...Object.fromEntries(Object.keys(server.env).map((k) => [k, values[k]!])),
      npm_config_offline: 'true',
    },
    stderr: 'pipe',
  });
  // Read, so that the server can never block on a full pipe, and kept for the message of a failure.
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  await client.connect(transport, PATIENT).catch((err: unknown) => {
    throw new Error(`the README's server did not start: ${String(err)}\n${stderr}`);
  });
  try {
    const { tools } = await client.listTools(undefined, PATIENT);
    expect(tools.length).toBeGreaterThan(0);
    const orders = await client.callTool({ name: 'listManagerOrders', arguments: { size: 1 } }, undefined, PATIENT);
    expect(orders.isError).toBeFalsy();
    const deposits = await client.callTool(
      { name: 'listDeposits', arguments: { date_from: '2026-01-01', date_to: '2026-01-31' } },
      undefined,
      PATIENT,
    );
    expect(deposits.isError, JSON.stringify(deposits)).toBeFalsy();
    expect(structured(deposits)).toHaveProperty('data');
  } finally {
    await client.close();
  }
});
