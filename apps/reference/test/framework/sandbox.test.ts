// The sandbox's helpers (spec/sandbox/openapi.yaml, DECISIONS G31) on one server over SQLite: the reset, the test
// clock and forced outcomes, for test credentials only. Every /v3/ answer is checked against the contract by the
// test server's oracle; every /sandbox/ answer and every refusal the sandbox declares, against the sandbox document.
import { deref, documentValidator, findOperation, loadSandboxSpec, monthKey, type ResponseObject } from '@cls-api/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../src/contract-facts.js';
import { TestClock } from '../support/clock.js';
import {
  LIMITS_OFF,
  type RequestOptions,
  startTestServer,
  type TestResponse,
  type TestServer,
} from '../support/server.js';

const sandboxDoc = loadSandboxSpec();
const sandboxValidator = documentValidator(sandboxDoc);

/** Problems of a /sandbox/ answer against the sandbox document; empty when it conforms. */
function sandboxProblems(method: string, path: string, r: TestResponse): string[] {
  const op = findOperation(sandboxDoc, method, path);
  if (!op) return [`${method} ${path} is not in the sandbox document`];
  const response = op.responses[String(r.status)];
  if (!response?.schema) return [`${op.operationId} does not document ${r.status}`];
  const problems = sandboxValidator.errors(response.schema, r.body).map((e) => `${e.instancePath} ${e.message}`);
  if (r.status >= 400 && !response.errorCodes.includes(r.body?.error?.code)) problems.push(`${r.body?.error?.code}`);
  if (!r.text.startsWith('{"success":')) problems.push('the body does not start with success');
  return problems;
}

/** Problems of a refused forced outcome against the response the sandbox document declares for it. */
function refusalProblems(name: 'SandboxOutcomeRefused' | 'SandboxForbidden', r: TestResponse): string[] {
  const response = deref<ResponseObject>(sandboxDoc, sandboxDoc.components!.responses![name]!);
  const schema = response.content!['application/json']!.schema!;
  const problems = sandboxValidator.errors(schema, r.body).map((e) => `${e.instancePath} ${e.message}`);
  if (!response['x-error-codes']!.includes(r.body?.error?.code)) problems.push(`${r.body?.error?.code} not listed`);
  return problems;
}

// 10:00 in Seoul (UTC+9): the day's return window is open until 18:00.
const clock = new TestClock('2026-11-20T01:00:00Z');
let server: TestServer;
let accountA: string;
let accountB: string;
let keyA: string;
let keyB: string;
let liveKeyA: string;

async function helper(method: string, path: string, o: RequestOptions = {}): Promise<TestResponse> {
  const r = await server.request(method, path, o);
  expect(sandboxProblems(method, path, r), `${method} ${path}`).toEqual([]);
  return r;
}

function total(r: TestResponse): number {
  expect(r.status, r.text).toBe(200);
  return r.body.pagination.total as number;
}

async function registerReturn(apiKey: string, code: string, cancellableUntil = '2026-11-20 18:00:00'): Promise<string> {
  const made = await server.post(
    '/v3/wms/products',
    { product_code: code, product_name: `Product ${code}`, price: 10000, stock_quantity: 5 },
    { apiKey },
  );
  expect(made.status, made.text).toBe(200);
  const orders = await server.post(
    '/v3/wms/orders',
    {
      orders: [
        {
          mall_order_no: `MALL-${code}`,
          mall_product_name: `Product ${code}`,
          product_code: code,
          quantity: 1,
          receiver_name: 'Kim Minji',
          receiver_phone: '010-1234-5678',
          receiver_address: '12 Teheran-ro, Gangnam-gu, Seoul',
        },
      ],
    },
    { apiKey },
  );
  expect(orders.body.data.results[0].success, orders.text).toBe(true);
  const returned = await server.post(
    '/v3/wms/returns',
    { order_no: orders.body.data.results[0].order_no, reason: 'Wrong size' },
    { apiKey },
  );
  expect(returned.status, returned.text).toBe(200);
  expect(returned.body.data.cancellable_until).toBe(cancellableUntil);
  return returned.body.data.return_no as string;
}

beforeAll(async () => {
  server = await startTestServer({ clock: clock.now, env: LIMITS_OFF });
  accountA = await server.account({ paid: true, name: 'Seller A' });
  accountB = await server.account({ name: 'Seller B' });
  keyA = await server.key(accountA, 'wms');
  keyB = await server.key(accountB, 'wms');
  liveKeyA = await server.key(accountA, 'wms', 'live');
});

afterAll(async () => {
  await server?.close();
});

describe('POST /sandbox/reset', () => {
  it("removes the account's test records and no other account's or live ones, and keeps the quota count", async () => {
    const seeded = await helper('POST', '/sandbox/reset', { apiKey: keyA, body: { seed: 'demo' } });
    expect(seeded.status, seeded.text).toBe(200);
    expect(seeded.body.data.seed).toBe('demo');
    const loaded = seeded.body.data.loaded;
    for (const kind of ['orders', 'drafts', 'returns', 'products', 'options', 'stock', 'suppliers'])
      expect(loaded[kind], kind).toBeGreaterThan(0);
    await helper('POST', '/sandbox/reset', { apiKey: keyB, body: { seed: 'demo' } });
    const live = await server.post(
      '/v3/wms/products',
      { product_code: 'LIVE-1', product_name: 'Live product', price: 10000, stock_quantity: 1 },
      { apiKey: liveKeyA },
    );
    expect(live.status, live.text).toBe(200);

    const before = await server.get('/v3/wms/products', { apiKey: keyA });
    const productsB = total(await server.get('/v3/wms/products', { apiKey: keyB }));
    const ordersB = total(await server.get('/v3/wms/orders', { apiKey: keyB }));
    const month = monthKey(clock.now(), server.config.serviceTimeZone);
    const used = await server.app.usageCounters.usage(accountA, month, 'test');

    const reset = await helper('POST', '/sandbox/reset', { apiKey: keyA });
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.data).toEqual({ removed: loaded });
    // The reset is not a call of the service: not counted, and nothing is given back.
    expect(await server.app.usageCounters.usage(accountA, month, 'test')).toBe(used);
    const after = await server.get('/v3/wms/products', { apiKey: keyA });
    expect(total(after)).toBe(0);
    expect(Number(after.headers['x-ratelimit-remaining'])).toBe(Number(before.headers['x-ratelimit-remaining']) - 1);
    expect(total(await server.get('/v3/wms/orders', { apiKey: keyA }))).toBe(0);
    expect(total(await server.get('/v3/wms/suppliers', { apiKey: keyA }))).toBe(0);
    expect(total(await server.get('/v3/wms/products', { apiKey: keyB }))).toBe(productsB);
    expect(total(await server.get('/v3/wms/orders', { apiKey: keyB }))).toBe(ordersB);
    expect(total(await server.get('/v3/wms/products', { apiKey: liveKeyA }))).toBe(1);
  });

  it('is refused for a live key or a live JWT with 403 AUTH_FORBIDDEN, and nothing changes', async () => {
    await helper('POST', '/sandbox/reset', { apiKey: keyB, body: { seed: 'demo' } });
    const counts = await server.app.storage.domain.countRecords({ accountId: accountA, environment: 'live' });
    const countsB = await server.app.storage.domain.countRecords({ accountId: accountB, environment: 'test' });
    const liveJwt = await server.token(accountA, 'live');
    for (const credential of [{ apiKey: liveKeyA }, { bearer: liveJwt }]) {
      const r = await helper('POST', '/sandbox/reset', credential);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('AUTH_FORBIDDEN');
    }
    expect(await server.app.storage.domain.countRecords({ accountId: accountA, environment: 'live' })).toEqual(counts);
    expect(await server.app.storage.domain.countRecords({ accountId: accountB, environment: 'test' })).toEqual(countsB);
    // A test JWT of the account is a test credential, like a test key of any area.
    const testJwt = await server.token(accountB);
    expect((await helper('GET', '/sandbox/clock', { bearer: testJwt })).status).toBe(200);
    const camKey = await server.key(accountB, 'cam');
    expect((await helper('GET', '/sandbox/clock', { apiKey: camKey })).status).toBe(200);
    expect((await helper('GET', '/sandbox/clock', {})).status).toBe(401);
    const unknown = await helper('POST', '/sandbox/reset', { apiKey: keyB, body: { seed: 'everything' } });
    expect(unknown.status).toBe(400);
  });
});

describe('the test clock', () => {
  it("moved past 18:00 makes the account's withdrawal RETURN_CANCEL_EXPIRED while another account's succeeds", async () => {
    const returnA = await registerReturn(keyA, 'CLOCK-A');
    const returnB = await registerReturn(keyB, 'CLOCK-B');
    const set = await helper('PUT', '/sandbox/clock', {
      apiKey: keyA,
      body: { at: '2026-11-20 18:00:01', frozen: true },
    });
    expect(set.body.data).toEqual({
      now: '2026-11-20 18:00:01',
      real_now: '2026-11-20 10:00:00',
      offset_seconds: 8 * 3600 + 1,
      frozen: true,
    });
    const expired = await server.post(`/v3/wms/returns/${returnA}/cancel`, undefined, { apiKey: keyA });
    expect(expired.status, expired.text).toBe(400);
    expect(expired.body.error.code).toBe('RETURN_CANCEL_EXPIRED');
    const withdrawn = await server.post(`/v3/wms/returns/${returnB}/cancel`, undefined, { apiKey: keyB });
    expect(withdrawn.status, withdrawn.text).toBe(200);
    expect(withdrawn.body.data.withdrawn_at).toBe('2026-11-20 10:00:00');

    // Times written into the account's test records are the clock's; a frozen clock stands still.
    clock.advance(60_000);
    const made = await server.post(
      '/v3/wms/products',
      { product_code: 'CLOCKED', product_name: 'Clocked', price: 100, stock_quantity: 1 },
      { apiKey: keyA },
    );
    expect(made.body.data.updated_at).toBe('2026-11-20 18:00:01');

    // The quota's month and a JWT's expiry stay on real time: a month ahead, the quota's reset has not moved and
    // a JWT issued now still works.
    const reset = (await server.get('/v3/wms/products', { apiKey: keyA })).headers['x-ratelimit-reset'];
    await helper('PUT', '/sandbox/clock', { apiKey: keyA, body: { advance_seconds: 31 * 86400 } });
    const read = await helper('GET', '/sandbox/clock', { apiKey: keyA });
    expect(read.body.data.now).toBe('2026-12-21 18:00:01');
    expect((await server.get('/v3/wms/products', { apiKey: keyA })).headers['x-ratelimit-reset']).toBe(reset);
    const jwt = await server.token(accountA);
    expect((await server.get('/v3/manager/orders', { bearer: jwt })).status).toBe(200);
    const back = await helper('DELETE', '/sandbox/clock', { apiKey: keyA });
    expect(back.body.data).toEqual({
      now: '2026-11-20 10:01:00',
      real_now: '2026-11-20 10:01:00',
      offset_seconds: 0,
      frozen: false,
    });
  });

  it('a running clock runs on from where it was set; a change that says neither at nor advance_seconds is 400', async () => {
    const set = await helper('PUT', '/sandbox/clock', { apiKey: keyB, body: { advance_seconds: 3600 } });
    expect(set.body.data.offset_seconds).toBe(3600);
    expect(set.body.data.frozen).toBe(false);
    clock.advance(5_000);
    expect((await helper('GET', '/sandbox/clock', { apiKey: keyB })).body.data.offset_seconds).toBe(3600);
    for (const body of [
      { frozen: true },
      { at: '2026-11-20 18:00:00', advance_seconds: 1 },
      { at: '2026-02-30 00:00:00' },
    ]) {
      const refused = await helper('PUT', '/sandbox/clock', { apiKey: keyB, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    const last = await helper('PUT', '/sandbox/clock', { apiKey: keyB, body: { at: '9999-12-30 23:59:59' } });
    expect(last.status, last.text).toBe(200);
    const beyond = await helper('PUT', '/sandbox/clock', { apiKey: keyB, body: { advance_seconds: 1 } });
    expect([beyond.status, beyond.body.error.code, beyond.body.error.message]).toEqual([
      400,
      'INVALID_PARAMETER',
      'advance_seconds moves the clock past the last time the test clock can show, 9999-12-30 23:59:59.',
    ]);
    const after = await helper('PUT', '/sandbox/clock', { apiKey: keyB, body: { at: '9999-12-31 00:00:00' } });
    expect([after.status, after.body.error.message]).toEqual([
      400,
      'at is past the last time the test clock can show, 9999-12-30 23:59:59.',
    ]);
    expect((await helper('GET', '/sandbox/clock', { apiKey: keyB })).body.data.now).toBe('9999-12-30 23:59:59');
    await helper('DELETE', '/sandbox/clock', { apiKey: keyB });
  });

  it('a running clock stops at 9999-12-30 23:59:59: what it writes, and what is derived from it, stays inside the contract', async () => {
    // Set two seconds before the end of 9999, it ran on into 10000-01-01 and wrote DRF-100000101-0001 created at
    // 10000-01-01 00:00:03; a return registered on 9999-12-31 after 18:00 would be cancellable until 10000-01-01.
    await helper('PUT', '/sandbox/clock', { apiKey: keyB, body: { at: '9999-12-30 23:59:57' } });
    clock.advance(5_000);
    const read = await helper('GET', '/sandbox/clock', { apiKey: keyB });
    expect(read.body.data).toMatchObject({ now: '9999-12-30 23:59:59', frozen: false });
    const row = {
      mall_order_no: 'MALL-LAST-SECOND',
      mall_product_name: 'Last second',
      product_code: 'CLOCK-B',
      quantity: 1,
      receiver_name: 'Kim Minji',
      receiver_phone: '010-1234-5678',
      receiver_address: '12 Teheran-ro, Seoul',
    };
    const drafted = await server.post('/v3/wms/orders/draft', { orders: [row] }, { apiKey: keyB });
    expect(drafted.status, drafted.text).toBe(200);
    expect(drafted.body.data.drafts[0]).toMatchObject({ success: true, created_at: '9999-12-30 23:59:59' });
    expect(drafted.body.data.drafts[0].draft_id).toMatch(/^DRF-99991230-\d{4}$/);
    const returnNo = await registerReturn(keyB, 'CLOCK-LAST', '9999-12-31 18:00:00');
    const registered = await server.get(`/v3/wms/returns/${returnNo}`, { apiKey: keyB });
    expect(registered.body.data.registered_at).toBe('9999-12-30 23:59:59');
    await helper('DELETE', '/sandbox/clock', { apiKey: keyB });
  });
});

describe('X-Sandbox-Outcome', () => {
  const draft = (n: number) => ({
    mall_order_no: `MALL-FORCED-${n}`,
    mall_product_name: 'Forced',
    product_code: 'CLOCK-B',
    quantity: 1,
    receiver_name: 'Kim Minji',
    receiver_phone: '010-1234-5678',
    receiver_address: '12 Teheran-ro, Gangnam-gu, Seoul',
  });

  async function used(accountId: string): Promise<number> {
    return server.app.usageCounters.usage(accountId, monthKey(clock.now(), server.config.serviceTimeZone), 'test');
  }

  it('answers each outcome as the contract shapes it for the operation, writing nothing and counting nothing', async () => {
    const before = await used(accountB);
    const records = await server.app.storage.domain.countRecords({ accountId: accountB, environment: 'test' });
    const forced = (outcome: string, extra: Record<string, string> = {}) => ({
      apiKey: keyB,
      headers: { 'X-Sandbox-Outcome': outcome, ...extra },
    });

    const failed = await server.get('/v3/wms/inventory', forced('internal_error'));
    expect(failed.status).toBe(500);
    expect(failed.body.error.code).toBe('INTERNAL_ERROR');
    expect(failed.headers['x-request-id']).toBeTruthy();

    const quota = await server.get('/v3/wms/orders', forced('quota_exceeded'));
    expect(quota.status).toBe(429);
    expect(quota.headers['retry-after']).toBeDefined();
    expect(quota.headers['x-ratelimit-remaining']).toBe('0');
    expect(quota.headers['x-ratelimit-limit']).toBeDefined();

    const gateway = await server.post('/v3/wms/products', { product_code: 'NEVER' }, forced('gateway_throttled'));
    // Validation comes first: the request the operation would refuse gets its 400.
    expect(gateway.status).toBe(400);
    const throttled = await server.get('/v3/mcp/tools', forced('gateway_throttled'));
    expect(throttled.status).toBe(429);
    for (const name of ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(throttled.headers[name], name).toBeUndefined();

    const bulk = await server.post(
      '/v3/wms/orders/draft',
      { orders: [draft(1), draft(2), draft(3)] },
      forced('bulk_failed', { 'X-Sandbox-Failed-Rows': '0,2' }),
    );
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.data.created_count).toBe(1);
    expect(bulk.body.data.failed_count).toBe(2);
    expect(bulk.body.data.drafts.map((d: { success: boolean }) => d.success)).toEqual([false, true, false]);
    const options = await server.post(
      '/v3/wms/products/CLOCK-B/options',
      { options: [{ option_code: 'RED', option_name: 'Red', additional_price: 0, stock_quantity: 1 }] },
      forced('bulk_failed'),
    );
    expect(options.status, options.text).toBe(200);
    expect(options.body.data.failed_count).toBe(1);

    // Not even the refused one: a request that asks for a forced outcome is never counted.
    expect(await used(accountB)).toBe(before);
    expect(await server.app.storage.domain.countRecords({ accountId: accountB, environment: 'test' })).toEqual(records);
    expect(server.app.contractViolations).toEqual([]);
  });

  it('is refused when the operation does not declare the outcome (400) and for a live key (403), doing nothing', async () => {
    const before = await used(accountB);
    const cases: Array<[string, string, RequestOptions, number, 'SandboxOutcomeRefused' | 'SandboxForbidden']> = [
      [
        'GET',
        '/v3/mcp/tools',
        { apiKey: keyB, headers: { 'X-Sandbox-Outcome': 'bulk_failed' } },
        400,
        'SandboxOutcomeRefused',
      ],
      [
        'POST',
        '/v3/auth/token',
        { body: {}, headers: { 'X-Sandbox-Outcome': 'internal_error' } },
        400,
        'SandboxOutcomeRefused',
      ],
      [
        'GET',
        '/v3/wms/orders',
        { apiKey: keyB, headers: { 'X-Sandbox-Outcome': 'teapot' } },
        400,
        'SandboxOutcomeRefused',
      ],
      [
        'GET',
        '/v3/wms/orders',
        { apiKey: keyB, headers: { 'X-Sandbox-Outcome': 'internal_error', 'X-Sandbox-Failed-Rows': '1' } },
        400,
        'SandboxOutcomeRefused',
      ],
      [
        'GET',
        '/v3/wms/orders',
        { apiKey: liveKeyA, headers: { 'X-Sandbox-Outcome': 'internal_error' } },
        403,
        'SandboxForbidden',
      ],
    ];
    for (const [method, path, options, status, declared] of cases) {
      const r = await server.request(method, path, { ...options, unchecked: true });
      expect(r.status, `${path} ${JSON.stringify(options.headers)}`).toBe(status);
      expect(refusalProblems(declared, r)).toEqual([]);
    }
    // A JWT has no monthly quota, so it has no quota 429 to force.
    const jwt = await server.token(accountB);
    const noQuota = await server.request('GET', '/v3/manager/orders', {
      bearer: jwt,
      headers: { 'X-Sandbox-Outcome': 'quota_exceeded' },
      unchecked: true,
    });
    expect(noQuota.status).toBe(400);
    // Rows past the request's last row.
    const past = await server.post(
      '/v3/wms/orders/draft',
      { orders: [draft(4)] },
      { apiKey: keyB, headers: { 'X-Sandbox-Outcome': 'bulk_failed', 'X-Sandbox-Failed-Rows': '1' } },
    );
    expect(past.status).toBe(400);
    expect(await used(accountB)).toBe(before);
    expect(server.app.contractViolations).toEqual([]);
  });
});

describe('from a browser page', () => {
  it('a preflight of a helper, or of an operation with the forced-outcome headers, is answered', async () => {
    for (const [url, method] of [
      ['/sandbox/clock', 'PUT'],
      ['/v3/wms/orders/draft', 'POST'],
    ] as const) {
      const r = await server.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': method,
          'access-control-request-headers': 'x-api-key, x-sandbox-outcome, x-sandbox-failed-rows',
        },
      });
      expect(r.statusCode, url).toBe(204);
      expect(r.headers['access-control-allow-methods'], url).toContain(method);
      expect(r.headers['access-control-allow-headers'], url).toContain('X-Sandbox-Outcome, X-Sandbox-Failed-Rows');
    }
  });
});

describe('the gateway limit', () => {
  it('takes /sandbox/ calls as it takes /v3/ calls: the burst, then 429 without Retry-After', async () => {
    const general = contract().limits.gateway.find((g) => g.appliesTo === '/v3/')!;
    // The clock stands still, so the bucket refills nothing while the calls are made, however long they take.
    const still = new TestClock('2026-11-20T01:00:00Z');
    const s = await startTestServer({ clock: still.now });
    try {
      const key = await s.key(await s.account(), 'wms');
      const statuses: number[] = [];
      for (let i = 0; i <= general.burst; i++) {
        const r = await s.app.inject({ method: 'GET', url: '/sandbox/clock', headers: { 'x-api-key': key } });
        statuses.push(r.statusCode);
        if (r.statusCode === 429) expect(r.headers['retry-after']).toBeUndefined();
      }
      expect(statuses.filter((status) => status === 200)).toHaveLength(general.burst);
      expect(statuses.at(-1)).toBe(429);
    } finally {
      await s.close();
    }
  });
});
