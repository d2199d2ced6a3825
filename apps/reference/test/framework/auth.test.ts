import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { routes } from '@cls-api/server';
import { TestClock } from '../support/clock.js';
import { ENGINES } from '../support/engines.js';
import { startTestServer, TEST_JWT_SECRET, type TestServer, storedRows } from '../support/server.js';

const clock = new TestClock('2026-11-20T03:00:00Z');
let s: TestServer;
let seller: string;

// Accounts, keys and tokens are kept by the store: the same suite on each engine (test/support/engines.ts).
describe.each(ENGINES)('authentication on %s', (engine) => {
  beforeEach(async () => {
    clock.set('2026-11-20T03:00:00Z');
    s = await startTestServer({ engine, clock: clock.now });
    seller = await s.account({ paid: true });
  });
  afterEach(() => s.close());

  const codeOf = (r: { status: number; body: { error?: { code: string } } }) => [r.status, r.body.error?.code];

  async function jwtFor(accountId: string): Promise<string> {
    const client = await s.app.accounts.createClient(accountId, 'test', clock.now());
    const r = await s.post('/v3/auth/token', client);
    expect(r.status).toBe(200);
    return r.body.data.access_token as string;
  }

  describe('API-key areas', () => {
    it('no X-API-Key is 401 AUTH_MISSING_TOKEN', async () => {
      expect(codeOf(await s.get('/v3/wms/suppliers'))).toEqual([401, 'AUTH_MISSING_TOKEN']);
      expect(codeOf(await s.get('/v3/cam/invoices/600000000001/videos'))).toEqual([401, 'AUTH_MISSING_TOKEN']);
      expect(codeOf(await s.get('/v3/mcp/tools'))).toEqual([401, 'AUTH_MISSING_TOKEN']);
    });

    it('a JWT alone on an API-key-only area is 401 AUTH_MISSING_TOKEN: the X-API-Key header is what is missing', async () => {
      // 3.1: the manager area takes either credential, so this is shown on the warehouse and camera areas.
      const token = await jwtFor(seller);
      expect(codeOf(await s.get('/v3/wms/suppliers', { bearer: token }))).toEqual([401, 'AUTH_MISSING_TOKEN']);
      expect(codeOf(await s.get('/v3/cam/invoices/600000000001/videos', { bearer: token }))).toEqual([
        401,
        'AUTH_MISSING_TOKEN',
      ]);
    });

    it('an unknown, malformed or revoked key is 401 AUTH_INVALID_TOKEN', async () => {
      expect(codeOf(await s.get('/v3/wms/suppliers', { apiKey: 'wms_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }))).toEqual(
        [401, 'AUTH_INVALID_TOKEN'],
      );
      expect(codeOf(await s.get('/v3/wms/suppliers', { apiKey: 'not-a-key' }))).toEqual([401, 'AUTH_INVALID_TOKEN']);
      const key = await s.key(seller, 'wms');
      expect((await s.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
      expect(codeOf(await s.get('/v3/wms/suppliers', { apiKey: key.toUpperCase() }))).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
      await s.app.accounts.revokeApiKey(key, clock.now());
      // A revocation reaches the server within API_KEY_CACHE_MS, as one made by the operator's CLI does.
      clock.advance(s.config.apiKeyCacheMs);
      expect(codeOf(await s.get('/v3/wms/suppliers', { apiKey: key }))).toEqual([401, 'AUTH_INVALID_TOKEN']);
    });

    it('a key revoked by another process stops working within API_KEY_CACHE_MS, one second by default', async () => {
      expect(s.config.apiKeyCacheMs).toBe(1000);
      const key = await s.key(seller, 'wms');
      expect((await s.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
      await s.app.accounts.revokeApiKey(key, clock.now());
      // Within the second the server answers from what it looked up: no database read on the hot path.
      clock.advance(999);
      expect((await s.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
      clock.advance(1);
      expect(codeOf(await s.get('/v3/wms/suppliers', { apiKey: key }))).toEqual([401, 'AUTH_INVALID_TOKEN']);
    });

    it('with API_KEY_CACHE_MS=0 a revocation is honoured on the next request', async () => {
      await s.close();
      s = await startTestServer({ engine, clock: clock.now, env: { API_KEY_CACHE_MS: '0' } });
      const owner = await s.account();
      const key = await s.key(owner, 'wms');
      expect((await s.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
      await s.app.accounts.revokeApiKey(key, clock.now());
      expect(codeOf(await s.get('/v3/wms/suppliers', { apiKey: key }))).toEqual([401, 'AUTH_INVALID_TOKEN']);
    });

    it('a valid key of another area is 403 AUTH_FORBIDDEN (DECISIONS G8)', async () => {
      const manager = await s.key(seller, 'manager');
      const cam = await s.key(seller, 'cam');
      expect(codeOf(await s.get('/v3/wms/suppliers', { apiKey: manager }))).toEqual([403, 'AUTH_FORBIDDEN']);
      expect(codeOf(await s.get('/v3/manager/orders', { apiKey: cam }))).toEqual([403, 'AUTH_FORBIDDEN']);
      expect(
        codeOf(await s.get('/v3/cam/invoices/600000000001/videos', { apiKey: await s.key(seller, 'wms') })),
      ).toEqual([403, 'AUTH_FORBIDDEN']);
      expect((await s.get('/v3/manager/orders', { apiKey: manager })).status).toBe(200);
    });

    it('/v3/mcp/ accepts a key of any area and hands its area to the domain', async () => {
      for (const area of ['wms', 'manager', 'cam'] as const) {
        const r = await s.get('/v3/mcp/tools', { apiKey: await s.key(seller, area) });
        expect(r.status).toBe(200);
      }
      // The tool-area check is the domain's, from ctx.keyArea: a cam key may not call a wms tool.
      const r = await s.post(
        '/v3/mcp/tools/wms_list_orders/call',
        { arguments: {} },
        { apiKey: await s.key(seller, 'cam') },
      );
      expect(codeOf(r)).toEqual([403, 'AUTH_FORBIDDEN']);
      const ok = await s.post(
        '/v3/mcp/tools/wms_list_orders/call',
        { arguments: {} },
        { apiKey: await s.key(seller, 'wms') },
      );
      expect(ok.status).toBe(200);
    });

    it('live keys need a paid account, at issue and on every call', async () => {
      const unpaid = await s.account({ paid: false });
      await expect(s.key(unpaid, 'wms', 'live')).rejects.toThrow(/paid/);
      const live = await s.key(seller, 'wms', 'live');
      expect((await s.get('/v3/wms/suppliers', { apiKey: live })).status).toBe(200);
      await s.app.accounts.setPaid(seller, false);
      clock.advance(s.config.apiKeyCacheMs);
      expect(codeOf(await s.get('/v3/wms/suppliers', { apiKey: live }))).toEqual([403, 'AUTH_FORBIDDEN']);
      // Test keys do not need the subscription.
      expect((await s.get('/v3/wms/suppliers', { apiKey: await s.key(seller, 'wms') })).status).toBe(200);
    });

    it('a key is issued only for a linked service account', async () => {
      const accountId = (
        await s.app.accounts.createAccount({ name: 'Only WMS', paid: false, link: ['wms'] }, clock.now())
      ).account_id;
      await expect(s.key(accountId, 'cam')).rejects.toThrow(/has not linked a cam service account/);
      expect(await s.key(accountId, 'wms')).toMatch(/^wms_test_[A-Za-z0-9]{32}$/);
    });

    it('keys are stored only as hashes', async () => {
      const key = await s.key(seller, 'wms');
      const rows = (await storedRows(s.app, 'api_keys')) as Array<Record<string, unknown>>;
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(key);
      expect(stored).not.toContain(key.slice(-20));
    });
  });

  describe('/v3/pay/ (JWT only)', () => {
    const deposits = '/v3/pay/deposits?date_from=2026-11-01&date_to=2026-11-20';

    it('no credential is 401 AUTH_MISSING_TOKEN', async () => {
      expect(codeOf(await s.get(deposits))).toEqual([401, 'AUTH_MISSING_TOKEN']);
    });

    it('only X-API-Key is 403 AUTH_FORBIDDEN, whether or not the key is valid', async () => {
      expect(codeOf(await s.get(deposits, { apiKey: await s.key(seller, 'wms') }))).toEqual([403, 'AUTH_FORBIDDEN']);
      expect(codeOf(await s.get(deposits, { apiKey: 'junk' }))).toEqual([403, 'AUTH_FORBIDDEN']);
    });

    it('a bad JWT is 401 AUTH_INVALID_TOKEN', async () => {
      const token = await jwtFor(seller);
      const now = Math.floor(clock.now().getTime() / 1000);
      const key = new TextEncoder().encode(TEST_JWT_SECRET);
      const forged = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(seller)
        .setAudience('pay')
        .setIssuer('cls-reference')
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
      const wrongAudience = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(seller)
        .setAudience('wms')
        .setIssuer('cls-reference')
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .sign(key);
      const unknownAccount = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject('acc_nobody')
        .setAudience('pay')
        .setIssuer('cls-reference')
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .sign(key);
      const [header, payload] = token.split('.');
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
      for (const bad of [forged, wrongAudience, unknownAccount, unsigned, `${header}.${payload}.AAAA`, 'garbage']) {
        expect(codeOf(await s.get(deposits, { bearer: bad })), bad).toEqual([401, 'AUTH_INVALID_TOKEN']);
      }
      expect(
        codeOf(await s.get(deposits, { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } })),
      ).toEqual([401, 'AUTH_INVALID_TOKEN']);
    });

    it('a valid JWT is accepted; after expiry it is 401 AUTH_EXPIRED_TOKEN', async () => {
      const token = await jwtFor(seller);
      expect((await s.get(deposits, { bearer: token })).status).toBe(200);
      clock.advance(s.config.jwtTtlSeconds * 1000 - 1000);
      expect((await s.get(deposits, { bearer: token })).status).toBe(200);
      clock.advance(1000);
      expect(codeOf(await s.get(deposits, { bearer: token }))).toEqual([401, 'AUTH_EXPIRED_TOKEN']);
    });

    it('sub is the account and env the environment: the JWT carries the seller context', async () => {
      const token = await jwtFor(seller);
      const [, payload] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
      // The audience is every area whose operations accept a JWT (3.1: pay and manager).
      expect(claims).toMatchObject({ sub: seller, aud: ['manager', 'pay'], env: 'test' });
      expect(claims.exp - claims.iat).toBe(s.config.jwtTtlSeconds);
    });
  });

  describe('/v3/manager/ (an API key or a JWT, DECISIONS G22)', () => {
    // Which operations take a JWT is read from the contract's `security`, as the server does.
    const either = routes.filter(
      (r) =>
        (r.security as readonly string[]).includes('ManagerApiKey') &&
        (r.security as readonly string[]).includes('BearerAuth'),
    );
    const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
    const sign = (claims: Record<string, unknown>, aud: string | string[], secret = TEST_JWT_SECRET) => {
      const now = Math.floor(clock.now().getTime() / 1000);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(seller)
        .setAudience(aud)
        .setIssuer('cls-reference')
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .sign(new TextEncoder().encode(secret));
    };

    /** Every manager operation, its path filled with the seller's product, option and order. */
    async function managerPaths(): Promise<string[]> {
      const wms = await s.key(seller, 'wms');
      await s.post(
        '/v3/wms/products',
        { product_code: 'MGR-P', product_name: 'Manager product', price: 1000, stock_quantity: 5 },
        { apiKey: wms },
      );
      await s.post(
        '/v3/wms/products/MGR-P/options',
        { options: [{ option_code: 'MGR-O', option_name: 'Option' }] },
        { apiKey: wms },
      );
      const row = {
        mall_order_no: 'MGR-1',
        mall_product_name: 'Manager product',
        product_code: 'MGR-P',
        quantity: 1,
        receiver_name: 'Kim',
        receiver_phone: '010-1111-2222',
        receiver_address: 'Seoul',
      };
      const orderNo = (await s.post('/v3/wms/orders', { orders: [row] }, { apiKey: wms })).body.data.results[0]
        .order_no as string;
      const values: Record<string, string> = { product_code: 'MGR-P', option_code: 'MGR-O', order_no: orderNo };
      return either.map((r) => r.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name]!)));
    }

    it('the contract gives every manager operation, and only those, both schemes', () => {
      expect(either.length).toBeGreaterThan(0);
      expect(new Set(either.map((r) => r.area))).toEqual(new Set(['manager']));
      expect(routes.filter((r) => r.area === 'manager').length).toBe(either.length);
    });

    it('every manager operation takes a JWT: the seller comes from the token, and the call is not metered', async () => {
      const paths = await managerPaths();
      const token = await jwtFor(seller);
      const month = '2026-11';
      const before = await s.app.accounts.usage(seller, month, 'test');
      for (const path of paths) {
        const r = await s.get(path, { bearer: token });
        expect(r.status, path).toBe(200);
        for (const h of RATE_HEADERS) expect(r.headers[h], `${path} ${h}`).toBeUndefined();
      }
      expect(await s.app.accounts.usage(seller, month, 'test')).toBe(before);
      // The same calls with the test key are metered and carry the headers.
      const key = await s.key(seller, 'manager');
      for (const path of paths) {
        const r = await s.get(path, { apiKey: key });
        expect(r.status, path).toBe(200);
        expect(r.headers['x-ratelimit-remaining'], path).toBeDefined();
      }
      expect(await s.app.accounts.usage(seller, month, 'test')).toBe(before + paths.length);
      // Another seller's token sees none of it.
      const other = await jwtFor(await s.account());
      expect((await s.get('/v3/manager/orders', { bearer: other })).body.data).toEqual([]);
      expect(
        codeOf(await s.get(paths.find((p) => p.startsWith('/v3/manager/products/MGR-P'))!, { bearer: other })),
      ).toEqual([404, 'PRODUCT_NOT_FOUND']);
    });

    it('neither header is 401 AUTH_MISSING_TOKEN; a forged or invalid JWT AUTH_INVALID_TOKEN; an expired one AUTH_EXPIRED_TOKEN', async () => {
      for (const r of either) {
        const path = r.path.replace(/\{[^}]+\}/g, 'X');
        expect(codeOf(await s.get(path)), path).toEqual([401, 'AUTH_MISSING_TOKEN']);
      }
      const forged = await sign({ env: 'test' }, ['manager', 'pay'], 'another-secret-another-secret-another-secret');
      const noEnv = await sign({}, ['manager', 'pay']);
      for (const bad of [forged, noEnv, 'garbage'])
        expect(codeOf(await s.get('/v3/manager/orders', { bearer: bad }))).toEqual([401, 'AUTH_INVALID_TOKEN']);
      const token = await jwtFor(seller);
      clock.advance(s.config.jwtTtlSeconds * 1000);
      expect(codeOf(await s.get('/v3/manager/orders', { bearer: token }))).toEqual([401, 'AUTH_EXPIRED_TOKEN']);
    });

    it('a token is good on an area only when its audience names it', async () => {
      const payOnly = await sign({ env: 'test' }, 'pay');
      expect(
        (await s.get('/v3/pay/deposits?date_from=2026-11-01&date_to=2026-11-20', { bearer: payOnly })).status,
      ).toBe(200);
      expect(codeOf(await s.get('/v3/manager/orders', { bearer: payOnly }))).toEqual([401, 'AUTH_INVALID_TOKEN']);
      const managerOnly = await sign({ env: 'test' }, 'manager');
      expect((await s.get('/v3/manager/orders', { bearer: managerOnly })).status).toBe(200);
    });

    it('when both headers are sent, the API key is used (and metered)', async () => {
      const token = await jwtFor(seller);
      const key = await s.key(seller, 'manager');
      const both = await s.get('/v3/manager/orders', { apiKey: key, bearer: token });
      expect(both.status).toBe(200);
      expect(both.headers['x-ratelimit-remaining']).toBeDefined();
      // A bad key is not rescued by a good token, nor a good key spoiled by a bad token.
      expect(
        codeOf(
          await s.get('/v3/manager/orders', { apiKey: 'manager_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', bearer: token }),
        ),
      ).toEqual([401, 'AUTH_INVALID_TOKEN']);
      expect((await s.get('/v3/manager/orders', { apiKey: key, bearer: 'garbage' })).status).toBe(200);
      // The seller is the key's: another seller's key with this seller's token reads the other seller's orders.
      const other = await s.account();
      const wms = await s.key(seller, 'wms');
      await s.post(
        '/v3/wms/products',
        { product_code: 'BOTH-P', product_name: 'P', price: 1, stock_quantity: 1 },
        { apiKey: wms },
      );
      const row = {
        mall_order_no: 'BOTH-1',
        mall_product_name: 'P',
        product_code: 'BOTH-P',
        quantity: 1,
        receiver_name: 'Kim',
        receiver_phone: '010-1111-2222',
        receiver_address: 'Seoul',
      };
      await s.post('/v3/wms/orders', { orders: [row] }, { apiKey: wms });
      expect((await s.get('/v3/manager/orders', { bearer: token })).body.data).toHaveLength(1);
      expect(
        (await s.get('/v3/manager/orders', { apiKey: await s.key(other, 'manager'), bearer: token })).body.data,
      ).toEqual([]);
    });

    it('a live JWT needs the paid subscription on every call, as a live key does', async () => {
      const live = await s.token(seller, 'live');
      expect((await s.get('/v3/manager/orders', { bearer: live })).status).toBe(200);
      await s.app.accounts.setPaid(seller, false);
      expect(codeOf(await s.get('/v3/manager/orders', { bearer: live }))).toEqual([403, 'AUTH_FORBIDDEN']);
      expect(codeOf(await s.get('/v3/pay/deposits?date_from=2026-11-01&date_to=2026-11-20', { bearer: live }))).toEqual(
        [403, 'AUTH_FORBIDDEN'],
      );
    });
  });

  describe('public operations', () => {
    it('the token operations need no credential and ignore a key', async () => {
      const client = await s.app.accounts.createClient(seller, 'test', clock.now());
      expect((await s.post('/v3/auth/token', client)).status).toBe(200);
      expect((await s.post('/v3/auth/token', client, { apiKey: 'junk' })).status).toBe(200);
    });
  });
});

describe('the keys an operation takes are read from its security schemes (x-key-area)', () => {
  it('each area of keys has its scheme; /v3/mcp/ names all three; a renamed area is read as written', async () => {
    const { contract, readContract } = await import('../../src/contract-facts.js');
    const { loadSpec } = await import('@cls-api/spec');
    const c = contract();
    const route = (operationId: string) => routes.find((r) => r.operationId === operationId)!.security;
    expect(c.accepted(route('listWmsOrders'))).toEqual({ keyAreas: ['wms'], jwt: false, unknown: [] });
    expect(c.accepted(route('listManagerOrders'))).toEqual({ keyAreas: ['manager'], jwt: true, unknown: [] });
    expect(c.accepted(route('listDeposits'))).toEqual({ keyAreas: [], jwt: true, unknown: [] });
    expect(c.accepted(route('listMcpTools')).keyAreas).toEqual(['wms', 'manager', 'cam']);
    expect(c.accepted(['NoSuchScheme']).unknown).toEqual(['NoSuchScheme']);
    const doc = loadSpec();
    (doc.components!.securitySchemes!.CamApiKey as Record<string, unknown>)['x-key-area'] = 'camera';
    expect(readContract(doc).accepted(['CamApiKey']).keyAreas).toEqual(['camera']);
  });
});
