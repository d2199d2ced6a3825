import type { GatewayLimit } from '@cls-api/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { contract, readContract } from '../../src/contract-facts.js';
import { TestClock } from '../support/clock.js';
import { startTestServer, TEST_JWT_SECRET, type TestServer } from '../support/server.js';

const limits = contract().limits;
const [general, mcp] = ['gateway', 'gateway_mcp'].map((name) => limits.gateway.find((g) => g.name === name)!) as [
  GatewayLimit,
  GatewayLimit,
];
const clock = new TestClock('2026-11-20T03:00:00Z');
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

function expectGateway429(r: { status: number; headers: Record<string, unknown>; body: { error?: { code: string } } }) {
  expect(r.status).toBe(429);
  expect(r.body.error?.code).toBe('RATE_LIMIT_EXCEEDED');
  expect(r.headers['retry-after']).toBeUndefined();
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
    expect(r.headers[h]).toBeUndefined();
}

describe('gateway speed limit (per source IP)', () => {
  it('the contract states 30/s burst 50 on /v3/ and 10/s burst 10 on /v3/mcp/', () => {
    expect(limits.gateway).toEqual([
      { name: 'gateway', appliesTo: '/v3/', ratePerSecond: 30, burst: 50 },
      { name: 'gateway_mcp', appliesTo: '/v3/mcp/', ratePerSecond: 10, burst: 10 },
    ]);
  });

  it('enforces every gateway limit the contract lists: a third one added to a copy of the contract, with its own settings', async () => {
    const doc = structuredClone(contract().doc);
    (doc.info['x-limits'] as Record<string, unknown>).gateway_wms = {
      description: 'A tighter limit on the WMS area.',
      scope: 'source_ip',
      applies_to: '/v3/wms/',
      rate_per_second: 2,
      burst: 3,
    };
    const env = { DATABASE: ':memory:', LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET, STRICT_CONTRACT: '1' };
    const edited = readContract(doc);
    expect(() => loadConfig({ ...env, WMS_BURST: '2' }, edited)).toThrow(/WMS_BURST must be a number of at least 3/);
    const config = loadConfig({ ...env, TRUSTED_PROXIES: '127.0.0.1', WMS_BURST: '4' }, edited);
    expect(config.gatewayLimits.map((g) => [g.name, g.ratePerSecond, g.burst])).toEqual([
      ['gateway', 30, 50],
      ['gateway_mcp', 10, 10],
      ['gateway_wms', 2, 4],
    ]);
    clock.set('2026-11-20T03:00:00Z');
    s = await startTestServer({ clock: clock.now, config });
    const seller = await s.account();
    const [wms, manager] = [await s.key(seller, 'wms'), await s.key(seller, 'manager')];
    const ip = '203.0.113.80';
    for (let i = 0; i < 4; i++) expect((await s.get('/v3/wms/suppliers', { apiKey: wms, ip })).status).toBe(200);
    expectGateway429(await s.get('/v3/wms/suppliers', { apiKey: wms, ip }));
    // Outside its prefix the general limit alone applies; the WMS bucket refills at 2 a second.
    expect((await s.get('/v3/manager/orders', { apiKey: manager, ip })).status).toBe(200);
    clock.advance(500);
    expect((await s.get('/v3/wms/suppliers', { apiKey: wms, ip })).status).toBe(200);
    expectGateway429(await s.get('/v3/wms/suppliers', { apiKey: wms, ip }));
  });

  it('a burst of 50 passes, the 51st is the gateway 429; another IP is unaffected; it refills with time', async () => {
    clock.set('2026-11-20T03:00:00Z');
    s = await startTestServer({ clock: clock.now, env: { TRUSTED_PROXIES: '127.0.0.1' } });
    const seller = await s.account({ paid: true });
    const keys = [await s.key(seller, 'wms'), await s.key(seller, 'manager', 'live'), await s.key(seller, 'cam')];
    const paths = ['/v3/wms/suppliers', '/v3/manager/orders', '/v3/cam/invoices/600000000001/videos'];
    // Summed across keys, areas and outcomes (an unauthenticated request spends a token too).
    for (let i = 0; i < general.burst; i++) {
      const r =
        i % 10 === 9
          ? await s.get('/v3/wms/suppliers', { ip: '203.0.113.7' })
          : await s.get(paths[i % 3]!, { apiKey: keys[i % 3]!, ip: '203.0.113.7' });
      expect(r.status).not.toBe(429);
    }
    expectGateway429(await s.get('/v3/wms/suppliers', { apiKey: keys[0]!, ip: '203.0.113.7' }));
    expectGateway429(
      await s.post(
        '/v3/auth/token',
        { client_id: 'cli_00000000', client_secret: '0000000000000000' },
        { ip: '203.0.113.7' },
      ),
    );
    expectGateway429(await s.get('/v3/unknown', { ip: '203.0.113.7' }));

    expect((await s.get('/v3/wms/suppliers', { apiKey: keys[0]!, ip: '198.51.100.9' })).status).toBe(200);
    // Outside /v3/ nothing is limited.
    expect((await s.get('/health', { ip: '203.0.113.7' })).status).toBe(200);

    // 30 per second: after 100 ms three tokens are back, not four.
    clock.advance(100);
    for (let i = 0; i < 3; i++)
      expect((await s.get('/v3/wms/suppliers', { apiKey: keys[0]!, ip: '203.0.113.7' })).status).toBe(200);
    expectGateway429(await s.get('/v3/wms/suppliers', { apiKey: keys[0]!, ip: '203.0.113.7' }));
  });

  it('X-Forwarded-For is ignored unless the peer is a trusted proxy', async () => {
    s = await startTestServer({ clock: clock.now });
    for (let i = 0; i < general.burst; i++)
      expect((await s.get('/v3/wms/suppliers', { ip: `192.0.2.${i}` })).status).toBe(401);
    expectGateway429(await s.get('/v3/wms/suppliers', { ip: '192.0.2.200' }));
  });

  it('/v3/mcp/ has its own tighter bucket, and its calls count against the general one too', async () => {
    s = await startTestServer({ clock: clock.now, env: { TRUSTED_PROXIES: '127.0.0.1' } });
    const seller = await s.account();
    const wms = await s.key(seller, 'wms');
    const ip = '203.0.113.50';
    for (let i = 0; i < mcp.burst; i++) expect((await s.get('/v3/mcp/tools', { apiKey: wms, ip })).status).toBe(200);
    expectGateway429(await s.get('/v3/mcp/tools', { apiKey: wms, ip }));
    expectGateway429(await s.post('/v3/mcp/tools/wms_list_orders/call', { arguments: {} }, { apiKey: wms, ip }));
    // The general bucket has 50 - 10 left: the refused MCP calls took nothing from it.
    for (let i = 0; i < general.burst - mcp.burst; i++)
      expect((await s.get('/v3/wms/suppliers', { apiKey: wms, ip })).status).toBe(200);
    expectGateway429(await s.get('/v3/wms/suppliers', { apiKey: wms, ip }));
    // Another address has both allowances whole.
    expect((await s.get('/v3/mcp/tools', { apiKey: wms, ip: '203.0.113.51' })).status).toBe(200);
  });

  it('configuration can raise the limits but never lower them below the contract', async () => {
    s = await startTestServer({ clock: clock.now, env: { TRUSTED_PROXIES: '127.0.0.1', MCP_BURST: '12' } });
    const wms = await s.key(await s.account(), 'wms');
    for (let i = 0; i < 12; i++)
      expect((await s.get('/v3/mcp/tools', { apiKey: wms, ip: '203.0.113.60' })).status).toBe(200);
    expectGateway429(await s.get('/v3/mcp/tools', { apiKey: wms, ip: '203.0.113.60' }));
  });
});
