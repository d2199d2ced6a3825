// Success responses written from their schemas (src/serialization.ts) must be the bytes JSON.stringify wrote: for
// every example the contract gives for a success response so written, and for the handlers' own results on the demo
// data, read from a running server and compared with JSON.stringify of what the handler returned.
import { loadSpec } from '@cls-api/spec';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../src/contract-facts.js';
import { createDomain } from '../../src/domain/index.js';
import type { DomainFactory } from '../../src/server.js';
import { successSchemaOf } from '../../src/serialization.js';
import { TestClock } from '../support/clock.js';
import { startTestServer, type TestServer } from '../support/server.js';

const spec = contract();
const FAST = { GATEWAY_RATE_PER_SECOND: '1000000', GATEWAY_BURST: '1000000' };

/** The operations whose success response is written from its schema, with that status. */
const schemaWritten = [...spec.operations.values()].flatMap((op) =>
  Object.keys(op.responses)
    .filter((status) => /^2\d\d$/.test(status) && successSchemaOf(spec, op.operationId, Number(status)))
    .map((status) => ({ op, status: Number(status) })),
);

describe('schema-written responses', () => {
  it('include the manager order list, the GET the benchmark measures', () => {
    expect(schemaWritten.map((w) => w.op.operationId)).toContain('listManagerOrders');
    // Schemas with a choice or several types keep JSON.stringify.
    expect(schemaWritten.map((w) => w.op.operationId)).not.toContain('getWmsOrder');
  });

  it("write every one of the contract's examples as JSON.stringify does", async () => {
    const doc = loadSpec();
    expect(doc.openapi).toBeDefined();
    let examples = 0;
    for (const { op, status } of schemaWritten) {
      const app = Fastify();
      let value: unknown;
      app.get(
        '/',
        { schema: { response: { [status]: successSchemaOf(spec, op.operationId, status)! } } },
        async (_r, reply) => {
          reply.code(status);
          return value;
        },
      );
      await app.ready();
      try {
        for (const [name, example] of Object.entries(op.responses[String(status)]!.examples)) {
          value = example.value;
          const body = (await app.inject({ method: 'GET', url: '/' })).body;
          expect(body, `${op.operationId} ${status} example ${name}`).toBe(JSON.stringify(example.value));
          examples++;
        }
      } finally {
        await app.close();
      }
    }
    expect(examples).toBeGreaterThanOrEqual(schemaWritten.length);
  });
});

describe("the handlers' results on the demo data", () => {
  const clock = new TestClock('2026-11-20T01:00:00Z');
  const returned = new Map<string, unknown>();
  let s: TestServer;
  let keys: { wms: string; manager: string; cam: string };
  let bearer: string;

  /** The real domain, each handler's last result kept by operation. */
  const recording: DomainFactory = (store, options) => {
    const domain = createDomain(store, options);
    const handlers = Object.fromEntries(
      Object.entries(domain.handlers).map(([id, handler]) => [
        id,
        async (...args: unknown[]) => {
          const result = await (handler as (...a: unknown[]) => Promise<unknown>)(...args);
          returned.set(id, result);
          return result;
        },
      ]),
    );
    return Object.assign(Object.create(domain) as typeof domain, { handlers });
  };

  beforeAll(async () => {
    s = await startTestServer({ clock: clock.now, env: FAST, createDomain: recording });
    const seller = await s.account({ paid: true });
    await s.app.domain.seedDemo({ owners: [{ accountId: seller, environment: 'test' }], now: clock.now() });
    keys = {
      wms: await s.key(seller, 'wms'),
      manager: await s.key(seller, 'manager'),
      cam: await s.key(seller, 'cam'),
    };
    bearer = await s.token(seller, 'test');
  });

  afterAll(() => s?.close());

  /** GETs `path`; the body must be JSON.stringify of the envelope around what `operationId`'s handler returned. */
  async function same(operationId: string, path: string, auth: { apiKey?: string; bearer?: string }) {
    returned.delete(operationId);
    const r = await s.get(path, auth);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    expect(returned.has(operationId), path).toBe(true);
    expect(r.text, path).toBe(JSON.stringify({ success: true, ...(returned.get(operationId) as object) }));
    return r.body as { data: unknown };
  }

  it('are written byte for byte as JSON.stringify wrote them, on every schema-written GET', async () => {
    const covered = new Set<string>();
    const check = async (operationId: string, path: string, auth: { apiKey?: string; bearer?: string }) => {
      covered.add(operationId);
      return same(operationId, path, auth);
    };
    const orders = (await check('listManagerOrders', '/v3/manager/orders?size=100', { apiKey: keys.manager })) as {
      data: Array<{ order_no: string }>;
    };
    expect(orders.data.length).toBeGreaterThan(5);
    await check('listManagerOrders', '/v3/manager/orders?page=2&size=3', { apiKey: keys.manager });
    await check('listManagerOrders', '/v3/manager/orders?order_status_code=30', { apiKey: keys.manager });
    await check('listManagerOrders', '/v3/manager/orders?page=99', { apiKey: keys.manager });
    await check('listSuppliers', '/v3/wms/suppliers?size=100', { apiKey: keys.wms });
    await check('listDeposits', '/v3/pay/deposits?date_from=2026-01-01&date_to=2026-12-31&size=100', { bearer });

    const products = (await s.get('/v3/wms/products?size=100', { apiKey: keys.wms })).body.data as Array<{
      product_code: string;
    }>;
    for (const { product_code } of products) {
      const code = encodeURIComponent(product_code);
      const options = (await check('listProductOptions', `/v3/wms/products/${code}/options?size=100`, {
        apiKey: keys.wms,
      })) as { data: Array<{ option_code: string }> };
      for (const { option_code } of options.data) {
        const option = encodeURIComponent(option_code);
        await check('getProductOption', `/v3/wms/products/${code}/options/${option}`, { apiKey: keys.wms });
        await check('getManagerProductOption', `/v3/manager/products/${code}/options/${option}`, {
          apiKey: keys.manager,
        });
      }
    }
    const wmsOrders = (await s.get('/v3/wms/orders?size=100', { apiKey: keys.wms })).body.data as Array<{
      invoice_no: string | null;
    }>;
    const invoices = wmsOrders.map((o) => o.invoice_no).filter((n): n is string => n !== null);
    expect(invoices.length).toBeGreaterThan(0);
    for (const invoice of invoices) {
      await check('listInvoiceVideos', `/v3/cam/invoices/${encodeURIComponent(invoice)}/videos`, { apiKey: keys.cam });
    }
    // Every GET written from its schema was read.
    const gets = schemaWritten.filter((w) => w.op.method.toUpperCase() === 'GET').map((w) => w.op.operationId);
    expect([...covered].sort()).toEqual([...new Set(gets)].sort());
  });
});
