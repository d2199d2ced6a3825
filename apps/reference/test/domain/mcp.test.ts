import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { routes } from '@cls-api/server';
import { type OpenApiDocument, loadDereferencedSpec, operations } from '@cls-api/spec';
import { mcpToolsOf } from '../../src/domain/index.js';
import {
  NOW,
  SELLER_A,
  SELLER_B,
  call,
  ctx,
  expectApiError,
  freshDomain,
  type Harness,
  orderRow,
  product,
  registerOne,
  schemaErrors,
  spec,
  closeDomains,
  ENGINES,
} from './support.js';

// The same suite on each storage engine (test/support/engines.ts).
describe.each(ENGINES)('on %s', (engine) => {
  afterEach(closeDomains);
  let h: Harness;
  beforeEach(async () => {
    h = await freshDomain(engine);
    await product(h, SELLER_A, 'SCARF', 50);
  });

  const callTool = (tool_name: string, args: Record<string, unknown>, context = ctx(SELLER_A, NOW, 'wms')) =>
    h.handlers.callMcpTool({ params: { tool_name }, query: {}, body: { arguments: args } }, context);

  describe('listMcpTools', () => {
    it('lists exactly the operations marked x-mcp-tool, with the wrapped operation area, id and summary', async () => {
      const { data } = await call(h, 'listMcpTools', {}, ctx(SELLER_A, NOW, 'cam'));
      const marked = operations(spec).filter((op) => op.mcpTool !== undefined);
      expect(data.map((t) => t.name)).toEqual(marked.map((op) => op.mcpTool));
      expect(data.map((t) => t.name).sort()).toEqual(
        routes
          .filter((r) => r.mcpTool !== null)
          .map((r) => r.mcpTool)
          .sort(),
      );
      for (const tool of data) {
        const op = marked.find((o) => o.mcpTool === tool.name)!;
        expect(tool.operation_id).toBe(op.operationId);
        expect(tool.area).toBe(op.area);
        expect(tool.description).toBe(spec.paths![op.path]![op.method]!.summary);
      }
    });

    it("derives each input_schema from the operation's path and query parameters", async () => {
      const { data } = await call(h, 'listMcpTools', {}, ctx(SELLER_A, NOW, 'wms'));
      const getOrder = data.find((t) => t.name === 'wms_get_order')!;
      expect(getOrder.input_schema).toMatchObject({
        type: 'object',
        additionalProperties: false,
        required: ['order_no'],
        // OrderNo is an Identifier (DECISIONS G25): the tool's schema carries the contract's own pattern, resolved.
        properties: {
          order_no: {
            type: 'string',
            description: 'The order number.',
            pattern: (spec.components!.schemas!.Identifier as { pattern: string }).pattern,
          },
        },
      });
      const listOrders = data.find((t) => t.name === 'wms_list_orders')!;
      const op = operations(spec).find((o) => o.operationId === 'listWmsOrders')!;
      expect(Object.keys(listOrders.input_schema.properties as object)).toEqual(op.parameters.map((p) => p.name));
      expect(listOrders.input_schema.required).toBeUndefined();
      expect((listOrders.input_schema.properties as Record<string, { default?: number }>).size!.default).toBe(10);
      // No contract annotations and no references leak into the published schemas.
      expect(JSON.stringify(data)).not.toMatch(/"x-|\$ref/);
    });

    it('a new x-mcp-tool in the contract adds a tool; one on a write operation is refused (DECISIONS G12)', async () => {
      const edited: OpenApiDocument = loadDereferencedSpec();
      edited.paths!['/v3/wms/products/{product_code}']!.get!['x-mcp-tool'] = 'wms_get_product';
      const tools = mcpToolsOf(edited);
      expect(tools.map((t) => t.name)).toContain('wms_get_product');
      expect(tools.find((t) => t.name === 'wms_get_product')).toMatchObject({
        area: 'wms',
        operation_id: 'getWmsProduct',
        description: 'Read a product',
        input_schema: { required: ['product_code'] },
      });
      const domain = await freshDomain(engine, { spec: edited });
      return (async () => {
        const listed = await call(domain, 'listMcpTools', {}, ctx(SELLER_A, NOW));
        expect(listed.data).toHaveLength(tools.length);
        await product(domain, SELLER_A, 'NEW-ONE', 1);
        const result = await domain.handlers.callMcpTool(
          { params: { tool_name: 'wms_get_product' }, query: {}, body: { arguments: { product_code: 'NEW-ONE' } } },
          ctx(SELLER_A, NOW),
        );
        expect(result.data.result).toMatchObject({ product_code: 'NEW-ONE' });

        const writing: OpenApiDocument = loadDereferencedSpec();
        writing.paths!['/v3/wms/orders']!.post!['x-mcp-tool'] = 'wms_register_orders';
        expect(() => mcpToolsOf(writing)).toThrow(/reads only/);
      })();
    });
  });

  describe('callMcpTool', () => {
    it("returns the wrapped operation's data, and its pagination for a paged list", async () => {
      const orderNo = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'MCP-1', product_code: 'SCARF' }));
      const one = await call(
        h,
        'callMcpTool',
        { params: { tool_name: 'wms_get_order' }, body: { arguments: { order_no: orderNo } } },
        ctx(SELLER_A, NOW),
      );
      const direct = await call(h, 'getWmsOrder', { params: { order_no: orderNo } }, ctx(SELLER_A, NOW));
      expect(one.data).toEqual({ tool: 'wms_get_order', result: direct.data });
      expect(one.data.pagination).toBeUndefined();

      const list = await call(
        h,
        'callMcpTool',
        { params: { tool_name: 'wms_list_orders' }, body: { arguments: {} } },
        ctx(SELLER_A, NOW),
      );
      expect(list.data.pagination).toEqual({ page: 1, size: 10, total: 1, total_pages: 1, has_next: false });
      expect(list.data.result).toEqual([direct.data]);
      const stock = await call(
        h,
        'callMcpTool',
        { params: { tool_name: 'wms_list_inventory' }, body: { arguments: { product_code: 'SCARF', size: 5 } } },
        ctx(SELLER_A, NOW),
      );
      expect(stock.data.result).toEqual([
        expect.objectContaining({ product_code: 'SCARF', option_code: null, quantity: 49 }),
      ]);
      expect(stock.data.pagination).toMatchObject({ size: 5 });

      const manager = await call(
        h,
        'callMcpTool',
        { params: { tool_name: 'manager_list_orders' }, body: { arguments: { page: 1 } } },
        ctx(SELLER_A, NOW, 'manager'),
      );
      expect(manager.data.result).toEqual([expect.objectContaining({ order_no: orderNo })]);
      // Tool results are still one seller's data.
      const foreign = await call(
        h,
        'callMcpTool',
        { params: { tool_name: 'manager_list_orders' }, body: { arguments: {} } },
        ctx(SELLER_B, NOW, 'manager'),
      );
      expect(foreign.data.result).toEqual([]);
    });

    it('the camera tool works with a cam key', async () => {
      const orderNo = await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'MCP-CAM', product_code: 'SCARF' }));
      const { invoice_no } = await h.domain.shipOrder(SELLER_A, orderNo, new Date(NOW));
      const videos = await call(
        h,
        'callMcpTool',
        { params: { tool_name: 'cam_list_invoice_videos' }, body: { arguments: { invoice_no } } },
        ctx(SELLER_A, NOW, 'cam'),
      );
      expect(videos.data.result).toHaveLength(1);
    });

    it('unknown tool is 404 NOT_FOUND', async () => {
      await expectApiError('callMcpTool', callTool('wms_delete_everything', {}), 'NOT_FOUND');
    });

    it("a key of another area than the tool's is 403 AUTH_FORBIDDEN (DECISIONS G8)", async () => {
      await expectApiError(
        'callMcpTool',
        callTool('wms_get_order', { order_no: 'X' }, ctx(SELLER_A, NOW, 'manager')),
        'AUTH_FORBIDDEN',
      );
      await expectApiError(
        'callMcpTool',
        callTool('manager_list_orders', {}, ctx(SELLER_A, NOW, 'cam')),
        'AUTH_FORBIDDEN',
      );
      await expectApiError(
        'callMcpTool',
        callTool('cam_list_invoice_videos', { invoice_no: '612345678901' }, ctx(SELLER_A, NOW, null)),
        'AUTH_FORBIDDEN',
      );
    });

    it('arguments are checked against input_schema: missing is REQUIRED_PARAMETER, anything else INVALID_PARAMETER', async () => {
      const missing = await expectApiError('callMcpTool', callTool('wms_get_order', {}), 'REQUIRED_PARAMETER');
      expect(missing.message).toMatch(/order_no/);
      const extra = await expectApiError(
        'callMcpTool',
        callTool('wms_list_orders', { seller: 'acc_other' }),
        'INVALID_PARAMETER',
      );
      expect(extra.message).toMatch(/seller/);
      const big = await expectApiError('callMcpTool', callTool('wms_list_orders', { size: 101 }), 'INVALID_PARAMETER');
      expect(big.message).toMatch(/size/);
      await expectApiError('callMcpTool', callTool('wms_list_orders', { page: '2' }), 'INVALID_PARAMETER');
      await expectApiError('callMcpTool', callTool('wms_list_orders', { order_status_code: 2.5 }), 'INVALID_PARAMETER');
      await expectApiError(
        'callMcpTool',
        callTool('wms_list_orders', { date_from: '2026-13-01' }),
        'INVALID_PARAMETER',
      );
      await expectApiError(
        'callMcpTool',
        callTool('cam_list_invoice_videos', { invoice_no: '' }, ctx(SELLER_A, NOW, 'cam')),
        'INVALID_PARAMETER',
      );
      // The set of status codes is open (DECISIONS G24): an unknown code is a filter that matches nothing.
      await registerOne(h, SELLER_A, orderRow({ mall_order_no: 'MCP-STATUS', product_code: 'SCARF' }));
      const byStatus = async (order_status_code: number) =>
        (
          await call(
            h,
            'callMcpTool',
            { params: { tool_name: 'wms_list_orders' }, body: { arguments: { order_status_code } } },
            ctx(SELLER_A, NOW, 'wms'),
          )
        ).data.result;
      expect(await byStatus(10)).toHaveLength(1);
      expect(await byStatus(55)).toEqual([]);
    });

    it("the wrapped operation's errors come back unchanged", async () => {
      await expectApiError(
        'callMcpTool',
        callTool('wms_get_order', { order_no: 'ORD-19990101-0001' }),
        'ORDER_NOT_FOUND',
      );
      await expectApiError(
        'callMcpTool',
        callTool('wms_list_inventory', { product_code: 'GHOST' }),
        'PRODUCT_NOT_FOUND',
      );
      await expectApiError(
        'callMcpTool',
        callTool('cam_list_invoice_videos', { invoice_no: '612345678901' }, ctx(SELLER_A, NOW, 'cam')),
        'CAM_INVOICE_NOT_FOUND',
      );
      await expectApiError(
        'callMcpTool',
        callTool('manager_get_order', { order_no: 'ORD-19990101-0001' }, ctx(SELLER_A, NOW, 'manager')),
        'ORDER_NOT_FOUND',
      );
    });

    it('each published input_schema accepts the arguments a well-formed call uses', async () => {
      const { data } = await call(h, 'listMcpTools', {}, ctx(SELLER_A, NOW));
      const wmsGetOrder = data.find((t) => t.name === 'wms_get_order')!;
      expect(schemaErrors(wmsGetOrder.input_schema, { order_no: 'ORD-20261120-0001' })).toEqual([]);
      expect(schemaErrors(wmsGetOrder.input_schema, { order_no: 'ORD-20261120-0001', other: 1 })).not.toEqual([]);
    });
  });
});
