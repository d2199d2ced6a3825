// The Streamable HTTP endpoint's own answers, before any tool: the one path, POST only, local names only.
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type HttpEndpoint } from '../src/http.js';
import { cli } from './support.js';

let endpoint: HttpEndpoint;
beforeAll(async () => {
  endpoint = await serveHttp(
    { baseUrl: 'http://service.test', apiKeys: [], readOnly: true },
    { host: '127.0.0.1', port: 0 },
    { fetch: async () => new Response('{}', { status: 500 }) },
  );
});
afterAll(() => endpoint?.close());

/** A raw request, so that the Host header is the test's own. */
function send(method: string, path: string, headers: Record<string, string>, body?: string) {
  const url = new URL(endpoint.url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
});
const post = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

describe('the HTTP endpoint', () => {
  it('answers an initialize POST on /mcp', async () => {
    const res = await send('POST', '/mcp', { ...post, Host: new URL(endpoint.url).host }, initialize);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).result.serverInfo.name).toBe('cls-api');
  });

  it('answers 404 off /mcp and 405 to a GET, in JSON-RPC error form', async () => {
    const host = new URL(endpoint.url).host;
    const other = await send('POST', '/', { ...post, Host: host }, initialize);
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body).error.message).toContain('/mcp');
    const get = await send('GET', '/mcp', { Host: host });
    expect(get.status).toBe(405);
  });

  it('refuses a request whose Host is not a local name (DNS rebinding)', async () => {
    const res = await send(
      'POST',
      '/mcp',
      { ...post, Host: `attacker.example:${new URL(endpoint.url).port}` },
      initialize,
    );
    expect(res.status).toBe(403);
  });

  it('answers a body that is not JSON with a JSON-RPC parse error, not a crash', async () => {
    const res = await send('POST', '/mcp', { ...post, Host: new URL(endpoint.url).host }, '{not json');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe(-32700);
  });

  it('answers an initialize with params its schema refuses as invalid params, naming the field', async () => {
    const bad = JSON.parse(initialize) as { params: Record<string, unknown> };
    bad.params.protocolVersion = 5;
    const res = await send('POST', '/mcp', { ...post, Host: new URL(endpoint.url).host }, JSON.stringify(bad));
    expect(JSON.parse(res.body)).toMatchObject({
      id: 1,
      error: { code: -32602, message: expect.stringMatching(/^Invalid initialize request: params\.protocolVersion: /) },
    });
  });

  it('aborts the request of a tool call whose HTTP connection closed before its answer', async () => {
    let aborted: (() => void) | undefined;
    const gone = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    let sent!: () => void;
    const out = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const hanging = await serveHttp(
      { baseUrl: 'http://service.test', apiKeys: ['wms_test_a1b2c3'], readOnly: true },
      { host: '127.0.0.1', port: 0 },
      {
        fetch: (request) => {
          request.signal.addEventListener('abort', () => aborted!());
          sent();
          return new Promise<Response>(() => undefined);
        },
        pacing: false,
      },
    );
    try {
      const url = new URL(hanging.url);
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listWmsOrders' } });
      const req = request({
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/mcp',
        headers: { ...post, Host: url.host },
      });
      req.on('error', () => undefined);
      req.end(body);
      await out;
      req.destroy();
      await gone;
    } finally {
      await hanging.close();
    }
  });
});

describe('cls-mcp --http', () => {
  it('on a port in use says so in one line naming it, and exits 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const { port } = blocker.address() as AddressInfo;
    try {
      const run = spawnSync(process.execPath, [cli, '--http', '--port', String(port)], {
        env: { PATH: process.env.PATH ?? '', CLS_BASE_URL: 'http://127.0.0.1:9' },
        encoding: 'utf8',
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe(
        `cls-mcp: 127.0.0.1:${port} is in use: stop what holds it, or set --port to another port (0 picks a free one)\n`,
      );
    } finally {
      blocker.close();
    }
  });
});
