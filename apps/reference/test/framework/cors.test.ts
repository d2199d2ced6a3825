// Browser pages calling the API: preflights for every operation of the contract are answered without a credential
// and counted by neither limit; pages may send the credential headers and read the headers that tell the two 429s
// apart; CORS_ORIGINS restricts the origins.
import { loadSpec, operations } from '@cls-api/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { contract } from '../../src/contract-facts.js';
import { monthKey } from '@cls-api/spec';
import { TestClock } from '../support/clock.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ops = operations(loadSpec());
const limits = contract().limits;
const general = limits.gateway.find((g) => g.name === 'gateway')!;
const ORIGIN = 'https://shop.example';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const list = (value: unknown) =>
  String(value ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);

function preflight(path: string, method: string, options: { origin?: string; ip?: string; headers?: string } = {}) {
  return s!.request('OPTIONS', path, {
    unchecked: true,
    headers: {
      origin: options.origin ?? ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': options.headers ?? 'x-api-key, content-type',
    },
    ...(options.ip ? { ip: options.ip } : {}),
  });
}

describe('CORS', () => {
  it("every operation of the contract answers its preflight: 204, its method, the contract's request headers", async () => {
    s = await startTestServer();
    for (const op of ops) {
      const path = op.path.replace(/\{[^}]+\}/g, 'X-1');
      const r = await preflight(path, op.method.toUpperCase());
      expect(r.status, `${op.method} ${op.path}`).toBe(204);
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(list(r.headers['access-control-allow-methods'])).toContain(op.method);
      expect(list(r.headers['access-control-allow-headers'])).toEqual(
        expect.arrayContaining(['x-api-key', 'authorization', 'content-type', 'accept']),
      );
    }
  });

  it('a page can read Retry-After, X-RateLimit-* and X-Request-Id, so it can tell the gateway 429 from the quota 429', async () => {
    s = await startTestServer();
    const wms = await s.key(await s.account(), 'wms');
    const r = await s.get('/v3/wms/suppliers', { apiKey: wms, headers: { origin: ORIGIN } });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(list(r.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining([
        'retry-after',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'x-request-id',
      ]),
    );
    const preflighted = await preflight('/v3/wms/suppliers', 'GET');
    expect(list(preflighted.headers['access-control-expose-headers'])).toContain('retry-after');
    // Without an Origin header (not a browser's cross-origin call) no CORS header is sent.
    expect((await s.get('/v3/wms/suppliers', { apiKey: wms })).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('preflights need no credential and are counted by neither the gateway limit nor the monthly quota', async () => {
    // Held still, the clock refills no bucket, however long the preflights take: one counted would show.
    const clock = new TestClock('2026-11-20T03:00:00Z');
    s = await startTestServer({ clock: clock.now, env: { TRUSTED_PROXIES: '127.0.0.1', TEST_KEY_MONTHLY_QUOTA: '5' } });
    const seller = await s.account();
    const wms = await s.key(seller, 'wms');
    for (let i = 0; i < general.burst * 2; i++) {
      expect((await preflight('/v3/wms/orders', 'POST', { ip: '203.0.113.20' })).status).toBe(204);
    }
    // The address still has its whole burst, and the account its whole quota.
    for (let i = 0; i < 5; i++)
      expect((await s.get('/v3/wms/suppliers', { apiKey: wms, ip: '203.0.113.20' })).status).toBe(200);
    expect(await s.app.accounts.usage(seller, monthKey(clock.now(), s.config.serviceTimeZone), 'test')).toBe(5);
  });

  it('OPTIONS that is not a preflight, or asks for a method or path the contract does not have, is 404 in the envelope', async () => {
    s = await startTestServer();
    for (const r of [
      await s.request('OPTIONS', '/v3/wms/orders', { unchecked: true }),
      await s.request('OPTIONS', '/v3/wms/orders', { unchecked: true, headers: { origin: ORIGIN } }),
      await preflight('/v3/wms/orders', 'DELETE'),
      await preflight('/v3/nothing', 'GET'),
    ]) {
      expect([r.status, r.body?.error?.code]).toEqual([404, 'NOT_FOUND']);
      expect(r.text.startsWith('{"success":false')).toBe(true);
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('OPTIONS that is not a preflight, from an address over the gateway limit, is the gateway 429 in the envelope', async () => {
    // Held still, the clock refills no bucket: the call after the burst is over the limit.
    const clock = new TestClock('2026-11-20T03:00:00Z');
    s = await startTestServer({ clock: clock.now, env: { TRUSTED_PROXIES: '127.0.0.1' } });
    const ip = '203.0.113.21';
    for (let i = 0; i < general.burst; i++)
      expect((await s.request('OPTIONS', '/v3/wms/orders', { unchecked: true, ip })).status).toBe(404);
    const asked: Array<Record<string, string>> = [
      {},
      { origin: ORIGIN },
      { origin: ORIGIN, 'access-control-request-method': 'DELETE' },
    ];
    for (const headers of asked) {
      const r = await s.request('OPTIONS', '/v3/wms/orders', { unchecked: true, ip, headers });
      expect([r.status, r.body?.error?.code], JSON.stringify(headers)).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
      expect(r.text.startsWith('{"success":false')).toBe(true);
      expect(r.headers['retry-after']).toBeUndefined();
    }
    // A preflight is still answered: it is not counted, so it is not refused either.
    expect((await preflight('/v3/wms/orders', 'POST', { ip })).status).toBe(204);
  });

  it('CORS_ORIGINS lists the allowed origins: an allowed one is echoed, another gets no Access-Control-Allow-Origin', async () => {
    s = await startTestServer({ env: { CORS_ORIGINS: `${ORIGIN}, http://localhost:5173` } });
    const allowed = await preflight('/v3/manager/orders', 'GET', {
      origin: 'http://localhost:5173',
      headers: 'authorization',
    });
    expect([allowed.status, allowed.headers['access-control-allow-origin']]).toEqual([204, 'http://localhost:5173']);
    expect(list(allowed.headers.vary)).toContain('origin');
    const other = await preflight('/v3/manager/orders', 'GET', { origin: 'https://evil.example' });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const wms = await s.key(await s.account(), 'wms');
    expect(
      (await s.get('/v3/wms/suppliers', { apiKey: wms, headers: { origin: 'https://evil.example' } })).headers[
        'access-control-allow-origin'
      ],
    ).toBeUndefined();
  });

  it('CORS_ORIGINS is * by default and otherwise a list of origins, checked at start', () => {
    const base = { DATABASE: ':memory:', JWT_SECRET: 'x'.repeat(32) };
    expect(loadConfig(base).corsOrigins).toBe('*');
    expect(loadConfig({ ...base, CORS_ORIGINS: 'https://a.example, http://[::1]:8080' }).corsOrigins).toEqual([
      'https://a.example',
      'http://[::1]:8080',
    ]);
    expect(() => loadConfig({ ...base, CORS_ORIGINS: 'https://a.example/path' })).toThrow(/CORS_ORIGINS/);
  });
});
