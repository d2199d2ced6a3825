// The server in process, through the SDK's in-memory transport, with a fake service: what the client does under
// it, with no real time passing (a virtual clock) and no machine speed involved.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, ErrorCode, type McpError } from '@modelcontextprotocol/sdk/types.js';
import { contractModel, HALF_SURROGATE_PAIR } from '@cls-api/spec';
import { describe, expect, it } from 'vitest';
import { toolTable } from '../generated/tools.js';
import { parseCli, type McpOptions } from '../src/config.js';
import { Callers, createMcpServer, type ClientSettings } from '../src/server.js';
import { exposedTools } from '../src/tools.js';
import { structured, textOf } from './support.js';

const options: McpOptions = {
  baseUrl: 'http://service.test',
  apiKeys: ['wms_test_a1b2c3', 'manager_test_d4e5f6'],
  readOnly: true,
};

/** A row the contract's own example of the draft operation holds: valid against the tool's input schema. */
const draftRow = (
  Object.values(contractModel().operation('registerDraftOrders').requestBody!.examples)[0]!.value as {
    orders: Array<Record<string, unknown>>;
  }
).orders[0]!;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

async function connected(settings: ClientSettings, opts: McpOptions = options): Promise<Client> {
  const server = createMcpServer(opts, new Callers(opts, settings));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(b);
  return client;
}

/** A server with writes allowed over a service that answers every request with an empty list, and what it sent. */
async function writable(): Promise<{ seen: Request[]; client: Client }> {
  const seen: Request[] = [];
  const client = await connected(
    {
      fetch: async (request) => {
        seen.push(request);
        return json(200, { success: true, data: [] });
      },
    },
    { ...options, readOnly: false },
  );
  return { seen, client };
}

/** A clock that moves only when the client sleeps. */
function virtualTimers() {
  let now = Date.parse('2026-11-20T00:00:00Z');
  const slept: number[] = [];
  return {
    slept,
    timers: {
      now: () => now,
      sleep: async (ms: number) => {
        slept.push(ms);
        now += ms;
      },
    },
  };
}

/**
 * Resolves once the in-memory transport has delivered what was sent before (it delivers each message on a later
 * turn of the event loop, not after a time).
 */
async function settled(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe('a tool call', () => {
  it('is retried by the client after a gateway 429 (no Retry-After), and the tool succeeds', async () => {
    const seen: Request[] = [];
    const answers = [
      json(429, { success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests' } }),
      json(200, { success: true, data: [{ supplier_code: 'SUP-1', supplier_name: 'Hanil' }] }),
    ];
    const { timers, slept } = virtualTimers();
    const client = await connected({
      fetch: async (request) => {
        seen.push(request);
        return answers.shift()!;
      },
      timers,
      pacing: false,
    });
    const result = await client.callTool({ name: 'listSuppliers', arguments: {} });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(seen).toHaveLength(2);
    expect(slept).toHaveLength(1);
    expect(seen.every((r) => r.headers.get('X-API-Key') === 'wms_test_a1b2c3')).toBe(true);
    expect(structured(result)).toEqual({ data: [{ supplier_code: 'SUP-1', supplier_name: 'Hanil' }] });
    expect(textOf(result)).toBe('1 item\n- supplier_code: SUP-1, supplier_name: Hanil');
  });

  it('goes out with the key of its area, and with the JWT where the area takes only that', async () => {
    const seen: Request[] = [];
    const client = await connected(
      {
        fetch: async (request) => {
          seen.push(request);
          if (request.url.endsWith('/v3/auth/token')) {
            return json(200, {
              success: true,
              data: {
                access_token: 'jwt-1',
                refresh_token: 'r-1',
                token_type: 'Bearer',
                expires_in: 3600,
                environment: 'test',
              },
            });
          }
          return json(200, { success: true, data: [] });
        },
        pacing: false,
      },
      { ...options, clientId: 'cli_test_abcdefgh', clientSecret: 'secret' },
    );
    await client.callTool({ name: 'listManagerOrders', arguments: {} });
    const deposits = await client.callTool({
      name: 'listDeposits',
      arguments: { date_from: '2026-11-01', date_to: '2026-11-20' },
    });
    expect(deposits.isError, textOf(deposits)).toBeFalsy();
    const manager = seen.find((r) => r.url.includes('/v3/manager/'))!;
    expect(manager.headers.get('X-API-Key')).toBe('manager_test_d4e5f6');
    const pay = seen.find((r) => r.url.includes('/v3/pay/'))!;
    expect(pay.headers.get('Authorization')).toBe('Bearer jwt-1');
    expect(pay.headers.get('X-API-Key')).toBeNull();
  });

  it("lists the /v3/mcp/ tools with any key, and calls one with the key of the tool's own area", async () => {
    const seen: Request[] = [];
    const client = await connected(
      {
        fetch: async (request) => {
          seen.push(request);
          return json(200, { success: true, data: request.method === 'GET' ? [] : { order_no: 'ORD-1' } });
        },
        pacing: false,
      },
      { ...options, apiKeys: ['wms_test_a1b2c3', 'manager_test_d4e5f6'], readOnly: false, areas: ['mcp'] },
    );
    await client.callTool({ name: 'listMcpTools', arguments: {} });
    const call = await client.callTool({
      name: 'callMcpTool',
      arguments: { tool_name: 'manager_get_order', body: { arguments: { order_no: 'ORD-1' } } },
    });
    expect(call.isError, textOf(call)).toBeFalsy();
    expect(seen.map((r) => [new URL(r.url).pathname, r.headers.get('X-API-Key')])).toEqual([
      ['/v3/mcp/tools', 'wms_test_a1b2c3'],
      ['/v3/mcp/tools/manager_get_order/call', 'manager_test_d4e5f6'],
    ]);
    const cam = await client.callTool({
      name: 'callMcpTool',
      arguments: { tool_name: 'cam_list_invoice_videos', body: { arguments: { invoice_no: '1' } } },
    });
    expect(textOf(cam)).toContain('an API key of the cam area');
    expect(seen).toHaveLength(2);
  });

  it('of a bulk job stopped at a refused chunk is a tool error naming its rows, with what was accepted', async () => {
    let chunk = 0;
    const client = await connected(
      {
        fetch: async (request) => {
          const { orders } = (await request.json()) as { orders: Array<{ mall_order_no: string }> };
          chunk += 1;
          if (chunk === 2) {
            return json(400, {
              success: false,
              error: { code: 'INVALID_PARAMETER', message: 'row 3: quantity must be at least 1' },
            });
          }
          const drafts = orders.map((o, i) => ({ success: true, mall_order_no: o.mall_order_no, draft_id: `D${i}` }));
          return json(200, { success: true, data: { created_count: orders.length, failed_count: 0, drafts } });
        },
        pacing: false,
      },
      { ...options, readOnly: false },
    );
    const orders = Array.from({ length: 1200 }, (_, i) => ({ ...draftRow, mall_order_no: `M-${i}` }));
    const result = await client.callTool({ name: 'registerDraftOrders', arguments: { body: { orders } } });
    expect(result.isError).toBe(true);
    const { error } = structured<{
      error: {
        code: string;
        rowStart: number;
        rowEnd: number;
        chunkWritten: unknown;
        completed: { created_count: number };
      };
    }>(result);
    expect(error).toMatchObject({ code: 'INVALID_PARAMETER', rowStart: 1000, chunkWritten: false });
    expect(error.completed.created_count).toBe(1000);
    expect(textOf(result)).toContain(
      'Rows 1000 to 1199 (counted from 0; request 2 of 2) failed and nothing of it was registered; rows 0 to 999 were accepted.',
    );
    expect(textOf(result)).not.toContain('not sent');
    expect(textOf(result)).toContain('INVALID_PARAMETER: row 3: quantity must be at least 1');
  });

  it('of a write that got no response says it may have been stored, and it is not repeated', async () => {
    let sent = 0;
    const client = await connected(
      {
        fetch: async () => {
          sent += 1;
          throw new TypeError('fetch failed');
        },
        pacing: false,
      },
      { ...options, readOnly: false },
    );
    const result = await client.callTool({
      name: 'cancelReturn',
      arguments: { return_no: 'RET-1' },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('may or may not have been stored; it was not repeated');
    expect(structured<{ error: { mayHaveWritten: boolean } }>(result).error.mayHaveWritten).toBe(true);
    expect(sent).toBe(1);
  });

  it('without the credential its area takes, is a tool error naming the variable, and nothing is sent', async () => {
    const seen: Request[] = [];
    const client = await connected({
      fetch: async (request) => {
        seen.push(request);
        return json(200, { success: true, data: [] });
      },
    });
    const cam = await client.callTool({ name: 'listInvoiceVideos', arguments: { invoice_no: '123' } });
    expect(cam.isError).toBe(true);
    expect(textOf(cam)).toContain('an API key of the cam area in CLS_API_KEYS');
    const pay = await client.callTool({ name: 'listDeposits', arguments: {} });
    expect(textOf(pay)).toContain('CLS_CLIENT_ID and CLS_CLIENT_SECRET');
    expect(seen).toHaveLength(0);
  });

  it('with an argument the tool does not take, or without a required one, is a tool error; nothing is sent', async () => {
    const seen: Request[] = [];
    const client = await connected({
      fetch: async (request) => {
        seen.push(request);
        return json(200, { success: true, data: {} });
      },
    });
    const unknown = await client.callTool({ name: 'listSuppliers', arguments: { seller: 'x' } });
    expect(structured<{ error: { code: string } }>(unknown).error.code).toBe('INVALID_PARAMETER');
    const missing = await client.callTool({ name: 'getWmsOrder', arguments: {} });
    expect(structured<{ error: { code: string } }>(missing).error.code).toBe('REQUIRED_PARAMETER');
    // A call of an MCP-area tool without its `arguments` would be refused by the service, and counted.
    const mcp = await connected(
      {
        fetch: async (request) => {
          seen.push(request);
          return json(200, {});
        },
      },
      { ...options, areas: ['mcp'] },
    );
    const noArguments = await mcp.callTool({
      name: 'callMcpTool',
      arguments: { tool_name: 'wms_get_order', body: {} },
    });
    expect(structured<{ error: { code: string } }>(noArguments).error.code).toBe('REQUIRED_PARAMETER');
    expect(textOf(noArguments)).toContain('body.arguments');
    expect(seen).toHaveLength(0);
  });

  it('outside --areas is refused, saying so', async () => {
    const client = await connected({}, { ...options, areas: ['manager'] });
    const result = await client.callTool({ name: 'listSuppliers', arguments: {} });
    expect(textOf(result)).toContain('its area (wms) is not among --areas manager');
    expect(
      (await client.listTools()).tools.every(
        (t) => t.name.startsWith('listManager') || t.name.startsWith('getManager'),
      ),
    ).toBe(true);
  });

  it('cancelled by the host while its request is out aborts that request', async () => {
    const host = new AbortController();
    let aborted: Promise<void> | undefined;
    const client = await connected({
      fetch: (request) => {
        aborted = new Promise((resolve) => request.signal.addEventListener('abort', () => resolve()));
        host.abort();
        return new Promise(() => undefined);
      },
      pacing: false,
    });
    const called = client.callTool({ name: 'listWmsOrders', arguments: {} }, undefined, { signal: host.signal });
    await expect(called).rejects.toThrow();
    // The cancellation travels as a notification; a request the server never aborts is still out after it.
    await settled();
    expect(aborted).toBeDefined();
    expect(await Promise.race([aborted!.then(() => 'aborted'), settled().then(() => 'still out')])).toBe('aborted');
  });

  it('of a bulk job cancelled by the host sends no further chunk', async () => {
    const host = new AbortController();
    let sent = 0;
    const client = await connected(
      {
        fetch: async (request) => {
          const { orders } = (await request.json()) as { orders: Array<{ mall_order_no: string }> };
          sent += 1;
          host.abort();
          await settled();
          const drafts = orders.map((o, i) => ({ success: true, mall_order_no: o.mall_order_no, draft_id: `D${i}` }));
          return json(200, { success: true, data: { created_count: orders.length, failed_count: 0, drafts } });
        },
        pacing: false,
      },
      { ...options, readOnly: false },
    );
    const orders = Array.from({ length: 1200 }, (_, i) => ({ ...draftRow, mall_order_no: `M-${i}` }));
    const called = client.callTool({ name: 'registerDraftOrders', arguments: { body: { orders } } }, undefined, {
      signal: host.signal,
    });
    await expect(called).rejects.toThrow();
    await settled();
    expect(sent).toBe(1);
  });

  it('of a bulk job of one request that fails says only that the request failed', async () => {
    const client = await connected(
      {
        fetch: async () =>
          json(400, { success: false, error: { code: 'INVALID_PARAMETER', message: 'row 2: unknown product' } }),
        pacing: false,
      },
      { ...options, readOnly: false },
    );
    const orders = Array.from({ length: 3 }, (_, i) => ({ ...draftRow, mall_order_no: `M-${i}` }));
    const result = await client.callTool({ name: 'registerDraftOrders', arguments: { body: { orders } } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'The request failed and nothing of it was registered. INVALID_PARAMETER: row 2: unknown product (HTTP 400 on POST http://service.test/v3/wms/orders/draft)',
    );
  });

  it('with a mistyped argument is refused against the input schema, and no request reaches the service', async () => {
    const { seen, client } = await writable();
    const mistyped = await client.callTool({ name: 'listManagerOrders', arguments: { size: 'ten' } });
    expect(mistyped.isError).toBe(true);
    expect(textOf(mistyped)).toBe(
      'listManagerOrders: size must be integer (got "ten"). Nothing was sent, so no call was counted; correct the arguments and call again.',
    );
    expect(structured<{ error: { code: string } }>(mistyped).error.code).toBe('INVALID_PARAMETER');
    const row = await client.callTool({
      name: 'registerDraftOrders',
      arguments: { body: { orders: [draftRow, { ...draftRow, quantity: '3' }] } },
    });
    expect(textOf(row)).toContain('body.orders[1].quantity must be integer (got "3")');
    const date = await client.callTool({ name: 'listManagerOrders', arguments: { date_from: '2026-02-30' } });
    // The calendar check is said in words (the spec's x-pattern-meaning), not quoted: a model cannot use the pattern.
    expect(textOf(date)).toBe(
      'listManagerOrders: date_from must be a date that exists, written YYYY-MM-DD (such as 2026-11-20) (got "2026-02-30"). Nothing was sent, so no call was counted; correct the arguments and call again.',
    );
    expect(seen).toHaveLength(0);
    // A bound that may still change stays open: the service decides.
    const large = await client.callTool({ name: 'listManagerOrders', arguments: { size: 500 } });
    expect(large.isError, textOf(large)).toBeFalsy();
    expect(seen.map((r) => new URL(r.url).search)).toEqual(['?size=500']);
  });

  it('repeats a name or value an agent made up with its control characters escaped, and no request is sent', async () => {
    const { seen, client } = await writable();
    // A line break, a bell and a C1 control (U+009B starts a terminal's escape sequence): the message stays one line.
    const unknown = await client.callTool({ name: 'listManagerOrders', arguments: { sizee: 5, 'a\nb\u0007': 1 } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe('listManagerOrders takes no argument sizee, a\\u000ab\\u0007');
    const value = await client.callTool({ name: 'listManagerOrders', arguments: { size: 'x\u009b2J' } });
    expect(textOf(value)).toContain('size must be integer (got "x\\u009b2J")');
    expect(seen).toHaveLength(0);
  });

  it('with half a surrogate pair in any argument is refused by its name, and no request reaches the service', async () => {
    const { seen, client } = await writable();
    const half = HALF_SURROGATE_PAIR;
    // In the path: the URL could not carry it (the client's URL encoding threw "URI malformed").
    const inPath = await client.callTool({ name: 'getManagerOrder', arguments: { order_no: 'ORD-\ud800' } });
    expect(inPath.isError).toBe(true);
    expect(textOf(inPath)).toBe(
      `getManagerOrder: order_no holds ${half}, which is not Unicode text. Nothing was sent, so no call was counted; correct the arguments and call again.`,
    );
    expect(structured<{ error: { code: string } }>(inPath).error.code).toBe('INVALID_PARAMETER');
    // In a body: the service would refuse it, and the call would count.
    const inBody = await client.callTool({
      name: 'registerDraftOrders',
      arguments: { body: { orders: [draftRow, { ...draftRow, receiver_name: 'Kim \udc00' }] } },
    });
    expect(textOf(inBody)).toMatch(
      /^registerDraftOrders: body\.orders\[1\]\.receiver_name holds half of a surrogate pair/,
    );
    const whole = await client.callTool({
      name: 'registerDraftOrders',
      arguments: { body: { orders: [{ ...draftRow, receiver_name: 'Kim 😀' }] } },
    });
    expect(whole.isError, textOf(whole)).toBeFalsy();
    expect(seen.map((r) => r.method)).toEqual(['POST']);
  });

  it('whose request is malformed (arguments not an object, a name not a string) is invalid params, not an internal error', async () => {
    const client = await connected({ fetch: async () => json(200, { success: true, data: [] }) });
    const refusal = (params: unknown, method = 'tools/call') =>
      client.request({ method, params } as never, CallToolResultSchema).then(
        () => undefined,
        (err: McpError) => ({ code: err.code, message: err.message }),
      );
    for (const params of [
      { name: 'listSuppliers', arguments: '{}' },
      { name: 'listSuppliers', arguments: [1] },
      { name: 5 },
    ]) {
      const error = await refusal(params);
      expect(error?.code, JSON.stringify(params)).toBe(ErrorCode.InvalidParams);
    }
    const list = await refusal({ cursor: 5 }, 'tools/list');
    expect(list?.code).toBe(ErrorCode.InvalidParams);
    // The code once, as the SDK's client puts it before the server's words: the server's message does not repeat it.
    expect(list?.message).toBe(
      'MCP error -32602: Invalid tools/list request: params.cursor: Invalid input: expected string, received number',
    );
    // A cursor this server did not give out (it lists every tool at once): invalid params, not the first page again.
    const stale = await refusal({ cursor: 'page-2' }, 'tools/list');
    expect(stale?.code).toBe(ErrorCode.InvalidParams);
    expect(stale?.message).toContain(
      'Invalid tools/list request: params.cursor: this server lists every tool at once and gives out no cursor',
    );
  });

  it("over the monthly quota says the quota is the account's, and when it resets", async () => {
    const client = await connected({
      fetch: async () =>
        json(
          429,
          { success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Monthly quota exceeded' } },
          { 'Retry-After': '3600', 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '0' },
        ),
      pacing: false,
    });
    const result = await client.callTool({ name: 'listSuppliers', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("The account's monthly quota of test calls is used up");
    expect(textOf(result)).not.toContain('this test key');
  });

  it('of callMcpTool is a read when the tool it calls reads: listed and sent in read-only mode', async () => {
    const seen: Request[] = [];
    const client = await connected(
      {
        fetch: async (request) => {
          seen.push(request);
          return json(200, { success: true, data: { tool: 'wms_get_order', result: {} } });
        },
        pacing: false,
      },
      { ...options, areas: ['mcp'] },
    );
    const listed = (await client.listTools()).tools.find((t) => t.name === 'callMcpTool');
    expect(listed?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const call = await client.callTool({
      name: 'callMcpTool',
      arguments: { tool_name: 'wms_get_order', body: { arguments: { order_no: 'ORD-1' } } },
    });
    expect(call.isError, textOf(call)).toBeFalsy();
    expect(seen).toHaveLength(1);
  });

  it('of callMcpTool for a tool that writes is refused in read-only mode, naming flags that keep the MCP area', async () => {
    // No tool of the MCP area writes today: one is made to, for this test only.
    const reads = toolTable.find((t) => t.name === 'callMcpTool')!.keyAreaFrom!.reads;
    const seen: Request[] = [];
    reads.wms_get_order = false;
    try {
      const start = parseCli(['--areas', 'mcp'], { CLS_BASE_URL: options.baseUrl }).options;
      const client = await connected(
        {
          fetch: async (request) => {
            seen.push(request);
            return json(200, {});
          },
        },
        { ...start, apiKeys: options.apiKeys },
      );
      const result = await client.callTool({
        name: 'callMcpTool',
        arguments: { tool_name: 'wms_get_order', body: { arguments: { order_no: 'ORD-1' } } },
      });
      expect(structured<{ error: { code: string } }>(result).error.code).toBe('TOOL_NOT_AVAILABLE');
      const named = /start it with (.+?) \(and without --read-only/.exec(textOf(result));
      expect(named?.[1]).toBe('--allow-writes --areas mcp');
      const after = parseCli(named![1]!.split(' '), { CLS_BASE_URL: options.baseUrl }).options;
      expect(after.readOnly).toBe(false);
      expect(exposedTools(after).map((t) => t.name)).toContain('callMcpTool');
      expect(seen).toHaveLength(0);
    } finally {
      reads.wms_get_order = true;
    }
  });

  it('of a token tool is refused unless its area is asked for, and it is not listed', async () => {
    const client = await connected({}, { ...options, readOnly: false });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('createAccessToken');
    const result = await client.callTool({
      name: 'createAccessToken',
      arguments: { body: { client_id: 'cli_test_x', client_secret: 's' } },
    });
    expect(structured<{ error: { code: string } }>(result).error.code).toBe('TOOL_NOT_AVAILABLE');
    expect(textOf(result)).toContain('start the server with --allow-writes --areas wms,manager,pay,cam,auth.');
    const asked = await connected({}, { ...options, readOnly: false, areas: ['auth'] });
    expect((await asked.listTools()).tools.map((t) => t.name)).toEqual(['createAccessToken', 'refreshAccessToken']);
  });

  it('of a tool not exposed names flags that expose it and every tool listed now, whatever the options', async () => {
    const env = { CLS_BASE_URL: options.baseUrl };
    const starts = [
      [],
      ['--allow-writes'],
      ['--areas', 'manager'],
      ['--areas', 'auth', '--allow-writes'],
      ['--areas', 'mcp'],
    ];
    let followed = 0;
    for (const argv of starts) {
      const start = parseCli(argv, env).options;
      const client = await connected({}, start);
      const listed = (await client.listTools()).tools.map((t) => t.name);
      for (const hidden of toolTable.filter((t) => !listed.includes(t.name))) {
        const result = await client.callTool({ name: hidden.name, arguments: {} });
        expect(structured<{ error: { code: string } }>(result).error.code).toBe('TOOL_NOT_AVAILABLE');
        const named = /start the server with (.+?)(?: \(and without --read-only, which wins\))?\.$/.exec(
          textOf(result),
        );
        expect(named, `${argv.join(' ')}: ${textOf(result)}`).not.toBeNull();
        const after = exposedTools(parseCli(named![1]!.split(' '), env).options).map((t) => t.name);
        expect(after, `${argv.join(' ')} → ${named![1]}`).toContain(hidden.name);
        expect(after).toEqual(expect.arrayContaining(listed));
        followed++;
      }
    }
    expect(followed).toBeGreaterThan(20);
  });
});

describe('the instructions', () => {
  it('say the mode, the areas and what a call costs, from the contract', async () => {
    const readOnly = (await connected({})).getInstructions() ?? '';
    expect(readOnly).toContain('Read-only: only tools that read are listed');
    expect(readOnly).toContain("the account's 1,000 calls a month, shared by all its test keys");
    expect(readOnly).toContain('one per 1,000 rows');
    expect(readOnly).toMatch(/Areas: Warehouse \(wms\), Seller order manager \(manager\), .* and [^,]+ \(cam\)\./);
    expect(readOnly).not.toContain('(auth)');
    expect(readOnly).not.toContain('(mcp)');
    expect(readOnly).toContain('`page`: Page number, 1-based. `size`: Page size, 1 to 100');
    expect(readOnly).toContain('writes need the server started with --allow-writes.');
    const mcp = (await connected({}, { ...options, areas: ['mcp', 'wms'] })).getInstructions() ?? '';
    expect(mcp).toContain('writes need the server started with --allow-writes --areas mcp,wms.');
    const writes = (await connected({}, { ...options, readOnly: false })).getInstructions() ?? '';
    expect(writes).toContain('Writes are allowed');
    for (const text of [readOnly, writes]) expect(text).not.toMatch(/the source|designed|x-limits|provisional/i);
  });
});
