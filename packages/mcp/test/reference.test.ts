// The server against the reference server, over both transports, with the SDK's own Client: what a host sees.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { contractModel } from '@cls-api/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connect,
  keyOf,
  startReference,
  structured,
  textOf,
  type Connected,
  type ReferenceServer,
  type ServerEnv,
  type TransportKind,
} from './support.js';

const model = contractModel();
let reference: ReferenceServer;
/** A reference server whose test keys have a monthly quota of one call. */
let quotaReference: ReferenceServer;

const envOf = (server: ReferenceServer): ServerEnv => {
  const account = server.accounts[0]!;
  return {
    CLS_BASE_URL: server.baseUrl,
    CLS_API_KEYS: ['wms', 'manager', 'cam'].map((a) => keyOf(account, a as 'wms')).join(','),
    CLS_CLIENT_ID: account.client_id,
    CLS_CLIENT_SECRET: account.client_secret,
  };
};

beforeAll(async () => {
  [reference, quotaReference] = await Promise.all([
    startReference({ from: import.meta.url }),
    startReference({ from: import.meta.url, env: { TEST_KEY_MONTHLY_QUOTA: '1' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([reference?.close(), quotaReference?.close()]);
});

describe.each(['stdio', 'http'] as TransportKind[])('over %s', (kind) => {
  let readOnly: Connected;
  let writing: Connected;
  beforeAll(async () => {
    readOnly = await connect(kind, [], envOf(reference));
    writing = await connect(kind, ['--allow-writes'], envOf(reference));
  });
  afterAll(async () => {
    await Promise.all([readOnly?.close(), writing?.close()]);
  });

  it('lists one tool per operation with --allow-writes, each input schema valid JSON Schema', async () => {
    const { tools } = await writing.client.listTools();
    // Every operation but the token exchange and the service's own MCP area, listed only when asked for.
    const expected = model.operations.filter((o) => !['auth', 'mcp'].includes(o.area)).map((o) => o.operationId);
    expect(tools.map((t) => t.name).sort()).toEqual(expected.sort());
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    for (const tool of tools) {
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      const op = model.operation(tool.name);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(op.method === 'get');
    }
  });

  it('lists only the reads by default', async () => {
    const { tools } = await readOnly.client.listTools();
    // The reads of every area but the service's own MCP area, whose tools are direct tools here.
    const reads = model.operations.filter((o) => o.method === 'get' && o.area !== 'mcp').map((o) => o.operationId);
    expect(tools.map((t) => t.name).sort()).toEqual(reads.sort());
  });

  it('calls a list: the envelope data as structured content and one line per item', async () => {
    const result = await readOnly.client.callTool({ name: 'listWmsOrders', arguments: { size: 5 } });
    expect(result.isError).toBeFalsy();
    const { data, pagination } = structured<{ data: Array<{ order_no: string }>; pagination: { size: number } }>(
      result,
    );
    expect(data.length).toBeGreaterThan(0);
    expect(data.length).toBeLessThanOrEqual(5);
    expect(pagination.size).toBe(5);
    const text = textOf(result);
    for (const order of data) expect(text).toContain(`order_no: ${order.order_no}`);
    expect(text).toMatch(/^page 1 of \d+/m);
  });

  it('calls a bulk draft of 1,500 rows: the client sends them in two requests, one merged result', async () => {
    const run = `${kind}-${Date.now()}`;
    const orders = Array.from({ length: 1500 }, (_, i) => ({
      mall_order_no: `MCP-${run}-${i}`,
      mall_product_name: 'Linen shirt',
      product_code: 'SHIRT-LINEN-01',
      quantity: 1,
      receiver_name: 'Kim Minji',
      receiver_phone: '010-1234-5678',
      receiver_address: '12 Teheran-ro, Seoul',
    }));
    const result = await writing.client.callTool({ name: 'registerDraftOrders', arguments: { body: { orders } } });
    expect(result.isError, textOf(result)).toBeFalsy();
    const { data } = structured<{
      data: { created_count: number; failed_count: number; drafts: Array<{ mall_order_no: string }> };
    }>(result);
    expect(data.created_count + data.failed_count).toBe(1500);
    expect(data.created_count).toBe(1500);
    expect(data.drafts.map((d) => d.mall_order_no)).toEqual(orders.map((o) => o.mall_order_no));
    expect(textOf(result)).toMatch(/^drafts: 1500 items$/m);
  });

  it('returns a 404 as a tool error carrying the contract code ORDER_NOT_FOUND and the message', async () => {
    const result = await readOnly.client.callTool({
      name: 'getWmsOrder',
      arguments: { order_no: 'ORD-19990101-0001' },
    });
    expect(result.isError).toBe(true);
    const { error } = structured<{ error: { status: number; code: string; message: string } }>(result);
    expect(error).toMatchObject({ status: 404, code: 'ORDER_NOT_FOUND' });
    expect(error.message.length).toBeGreaterThan(0);
    expect(textOf(result)).toContain(`ORDER_NOT_FOUND: ${error.message}`);
  });

  it('refuses a write in read-only mode, saying how to allow it, without calling the service', async () => {
    const result = await readOnly.client.callTool({
      name: 'registerOrders',
      arguments: { body: { orders: [] } },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('--allow-writes');
    expect(structured<{ error: { code: string } }>(result).error.code).toBe('TOOL_NOT_AVAILABLE');
  });

  it('says when the quota resets when a test key has used its monthly quota', async () => {
    const quota = await connect(kind, [], envOf(quotaReference));
    try {
      // A fresh server per transport: the quota of one call is spent by the first call of the first transport.
      let result = await quota.client.callTool({ name: 'listSuppliers', arguments: {} });
      if (!result.isError) result = await quota.client.callTool({ name: 'listSuppliers', arguments: {} });
      expect(result.isError).toBe(true);
      const { error } = structured<{
        error: { status: number; code: string; quota: { resetAt: string; retryAfterSeconds: number } };
      }>(result);
      expect(error).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED' });
      expect(new Date(error.quota.resetAt).getTime()).toBeGreaterThan(Date.now());
      expect(textOf(result)).toContain(`resets at ${error.quota.resetAt}`);
    } finally {
      await quota.close();
    }
  });
});
