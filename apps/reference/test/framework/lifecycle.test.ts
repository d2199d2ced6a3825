import { describe, expect, it } from 'vitest';
import { createDomain } from '../../src/domain/index.js';
import type { DomainFactory } from '../../src/server.js';
import { contractProblems } from '../support/contract.js';
import { startTestServer } from '../support/server.js';

describe('health and graceful shutdown', () => {
  it('GET /health answers outside /v3/ without credentials', async () => {
    const s = await startTestServer();
    const r = await s.get('/health');
    expect([r.status, r.body]).toEqual([200, { success: true, data: { status: 'ok' } }]);
    await s.close();
  });

  it('closing lets an in-flight request finish, then refuses connections', async () => {
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: DomainFactory = (db, options) => {
      const domain = createDomain(db, options);
      const listSuppliers: typeof domain.handlers.listSuppliers = async (input, ctx) => {
        entered();
        await gate;
        return domain.handlers.listSuppliers(input, ctx);
      };
      return { ...domain, handlers: { ...domain.handlers, listSuppliers } };
    };
    const s = await startTestServer({ createDomain: slow });
    const key = await s.key(await s.account(), 'wms');
    const pending = s.get('/v3/wms/suppliers', { apiKey: key });
    await inside;
    const closed = s.close();
    release();
    expect((await pending).status).toBe(200);
    await closed;
    await expect(fetch(`${s.baseUrl}/health`)).rejects.toThrow();
  });
});

describe('the test oracle itself', () => {
  const ok = { method: 'GET', path: '/v3/wms/suppliers', status: 200, headers: {} };
  const page = { page: 1, size: 10, total: 0, total_pages: 0, has_next: false };

  it('accepts a conforming response', () => {
    expect(contractProblems({ ...ok, text: JSON.stringify({ success: true, data: [], pagination: page }) })).toEqual(
      [],
    );
  });

  it('rejects success not first, a body off its schema, undocumented statuses, codes and headers', () => {
    expect(
      contractProblems({ ...ok, text: JSON.stringify({ data: [], success: true, pagination: page }) }),
    ).toHaveLength(1);
    expect(
      contractProblems({ ...ok, text: JSON.stringify({ success: true, data: [{}], pagination: page }) }).length,
    ).toBeGreaterThan(0);
    expect(
      contractProblems({ ...ok, status: 409, text: '{"success":false,"error":{"code":"DUPLICATE","message":"x"}}' }),
    ).toEqual(['GET /v3/wms/suppliers → 409: listSuppliers does not document 409']);
    expect(
      contractProblems({
        ...ok,
        status: 401,
        text: '{"success":false,"error":{"code":"AUTH_EXPIRED_TOKEN","message":"x"}}',
      })[0],
    ).toMatch(/not in x-error-codes/);
    expect(
      contractProblems({
        ...ok,
        status: 401,
        headers: { 'x-ratelimit-limit': '1000' },
        text: '{"success":false,"error":{"code":"AUTH_MISSING_TOKEN","message":"x"}}',
      })[0],
    ).toMatch(/x-ratelimit-limit is not declared/);
    expect(
      contractProblems({
        ...ok,
        headers: { 'x-ratelimit-remaining': '-1' },
        text: JSON.stringify({ success: true, data: [], pagination: page }),
      })[0],
    ).toMatch(/not an integer/);
    expect(
      contractProblems({ method: 'GET', path: '/v3/none', status: 200, headers: {}, text: '{"success":true}' }).length,
    ).toBeGreaterThan(0);
  });
});
