// The stdio transport's own answers, before any tool, to lines a host sends by mistake: each gets a JSON-RPC
// answer on stdout, as the HTTP endpoint's body would (http.test.ts), and the server goes on reading.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from './support.js';

const env = { PATH: process.env.PATH ?? '', CLS_BASE_URL: 'http://127.0.0.1:9', CLS_API_KEYS: 'wms_test_x' };
const initialize = {
  jsonrpc: '2.0',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/**
 * `cls-mcp` on stdio, fed `lines` and then an initialize of id `last`; resolves with every line it wrote to stdout
 * up to the answer to that initialize, which comes after the others (a line left unanswered is missing, not awaited).
 */
function answers(lines: string[]): Promise<Array<Record<string, unknown>>> {
  const child = spawn(process.execPath, [cli], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  stops.push(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const out: Array<Record<string, unknown>> = [];
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      out.push(JSON.parse(line) as Record<string, unknown>);
      if (out.at(-1)?.id === 'last') resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`cls-mcp exited with ${code} after ${out.length} lines: ${stderr}`)));
    const fed = [...lines, JSON.stringify({ ...initialize, id: 'last' })];
    child.stdin.write(fed.map((l) => `${l}\n`).join(''));
  });
}

describe('over stdio', () => {
  it('a line that is not JSON, or not a JSON-RPC message, is a parse error with a null id; the next is read', async () => {
    const [notJson, notMessage, batch, next] = await answers([
      '{not json',
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 5 }),
      '[1,2]',
    ]);
    expect(notJson).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: Invalid JSON' },
    });
    const invalid = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: Invalid JSON-RPC message' },
    };
    expect(notMessage).toEqual(invalid);
    expect(batch).toEqual(invalid);
    expect(next).toMatchObject({ id: 'last', result: { serverInfo: { name: 'cls-api' } } });
  });

  it('an initialize with params its schema refuses is invalid params naming the field, not an internal error', async () => {
    const bad = { ...initialize, id: 1, params: { ...initialize.params, protocolVersion: 5 } };
    const [refused, next] = await answers([JSON.stringify(bad)]);
    expect(refused).toMatchObject({
      id: 1,
      error: { code: -32602, message: expect.stringMatching(/^Invalid initialize request: params\.protocolVersion: /) },
    });
    expect(next).toMatchObject({ id: 'last', result: { protocolVersion: '2025-06-18' } });
  });
});
