import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { contract } from '../../src/contract-facts.js';
import { UsageMeter } from '../../src/plugins/quota.js';
import type { UsageCounters } from '../../src/store/interface.js';
import { TestClock } from '../support/clock.js';
import { ENGINES, type EngineName } from '../support/engines.js';
import { LIMITS_OFF, startTestServer, type TestResponse, type TestServer } from '../support/server.js';

const QUOTA = contract().limits.testKeyMonthlyQuota;
// 12:00 on 20 November 2026 in Seoul; the quota resets at 00:00 on 1 December Seoul time = 15:00 UTC on 30 November.
const NOW = '2026-11-20T03:00:00Z';
const RESET = Date.parse('2026-11-30T15:00:00Z') / 1000;

const clock = new TestClock(NOW);
let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

let engine: EngineName = 'sqlite';

async function start(env: Record<string, string> = {}): Promise<TestServer> {
  clock.set(NOW);
  s = await startTestServer({ clock: clock.now, env: { ...LIMITS_OFF, ...env }, engine });
  return s;
}

function expectQuota429(r: TestResponse, retryAfter: number, limit = QUOTA) {
  expect(r.status).toBe(429);
  expect(r.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  expect(r.headers['retry-after']).toBe(String(retryAfter));
  expect(r.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(r.headers['x-ratelimit-remaining']).toBe('0');
  expect(r.headers['x-ratelimit-reset']).toBe(String(RESET));
}

// The quota is counted in the database: the same suite on each engine (test/support/engines.ts).
describe.each(ENGINES)('monthly quota of test keys on %s', (name) => {
  beforeEach(() => {
    engine = name;
  });

  it('the contract states 1,000 calls a month per account', () => {
    expect(QUOTA).toBe(1000);
  });

  // These two send the whole allowance, 1,000 calls and more: a few seconds on an idle machine, more than the
  // package's 60 s (vitest.config.ts) on a two-core machine running two copies of the test suite.
  it('counts every test key of the account together; the 1,001st call is the quota 429 with all four headers', {
    timeout: 600_000,
  }, async () => {
    const t = await start();
    const seller = await t.account();
    const keys = [
      await t.key(seller, 'wms'),
      await t.key(seller, 'wms'),
      await t.key(seller, 'manager'),
      await t.key(seller, 'cam'),
    ];
    const paths = ['/v3/wms/suppliers', '/v3/wms/inventory', '/v3/manager/orders', '/v3/mcp/tools'];
    for (let i = 1; i <= QUOTA; i++) {
      const r = await t.get(paths[i % 4]!, { apiKey: keys[i % 4]! });
      expect(r.status).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBe(String(QUOTA));
      expect(r.headers['x-ratelimit-remaining']).toBe(String(QUOTA - i));
      expect(r.headers['x-ratelimit-reset']).toBe(String(RESET));
      expect(r.headers['retry-after']).toBeUndefined();
    }
    const retryAfter = RESET - Date.parse(NOW) / 1000;
    expectQuota429(await t.get('/v3/wms/suppliers', { apiKey: keys[0]! }), retryAfter);
    expectQuota429(await t.get('/v3/manager/orders', { apiKey: keys[2]! }), retryAfter);
    // Another account's test keys have their own allowance.
    expect((await t.get('/v3/wms/suppliers', { apiKey: await t.key(await t.account(), 'wms') })).status).toBe(200);
  });

  it('1,200 concurrent calls from three test keys of one account: exactly 1,000 succeed', {
    timeout: 600_000,
  }, async () => {
    const t = await start();
    const seller = await t.account();
    const keys = [await t.key(seller, 'wms'), await t.key(seller, 'manager'), await t.key(seller, 'cam')];
    const paths = ['/v3/wms/suppliers', '/v3/manager/orders', '/v3/mcp/tools'];
    const results = await Promise.all(
      Array.from({ length: 1200 }, (_, i) => t.get(paths[i % 3]!, { apiKey: keys[i % 3]! })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(QUOTA);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(200);
    for (const r of refused) expect(r.headers['retry-after']).toBeDefined();
    const remaining = results.filter((r) => r.status === 200).map((r) => Number(r.headers['x-ratelimit-remaining']));
    expect(new Set(remaining).size).toBe(QUOTA);
    expect(await t.app.accounts.usage(seller, '2026-11', 'test')).toBe(QUOTA);
  });

  it('quota headers go on 2xx, 400 and 404 of a test key; never on 401 or 403, which are not counted', async () => {
    const t = await start({ TEST_KEY_MONTHLY_QUOTA: '10' });
    const seller = await t.account();
    const wms = await t.key(seller, 'wms');
    const ok = await t.get('/v3/wms/suppliers', { apiKey: wms });
    expect(ok.headers['x-ratelimit-remaining']).toBe('9');
    const bad = await t.get('/v3/wms/suppliers?size=1000', { apiKey: wms });
    expect([bad.status, bad.headers['x-ratelimit-remaining']]).toEqual([400, '8']);
    const missing = await t.get('/v3/wms/orders/NO-SUCH-ORDER', { apiKey: wms });
    expect([missing.status, missing.headers['x-ratelimit-remaining']]).toEqual([404, '7']);
    const forbidden = await t.get('/v3/manager/orders', { apiKey: wms });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers['x-ratelimit-limit']).toBeUndefined();
    expect(
      (await t.get('/v3/wms/suppliers', { apiKey: 'wms_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).headers[
        'x-ratelimit-limit'
      ],
    ).toBeUndefined();
    expect(await t.app.accounts.usage(seller, '2026-11', 'test')).toBe(3);
  });

  // Metering decides on the answer, not on where the refusal came from: the MCP area takes a key of every area, so a
  // tool of another area is refused by the tool's handler, after the call was counted (DECISIONS.md G8, G10, G29).
  it('an MCP tool call refused 403 (a tool of another area) is not counted, with a test key or a live key', async () => {
    const t = await start({ TEST_KEY_MONTHLY_QUOTA: '10', LIVE_USAGE_FLUSH_MS: '0' });
    const seller = await t.account({ paid: true });
    const wms = await t.key(seller, 'wms');
    const call = (apiKey: string) => t.post('/v3/mcp/tools/manager_list_orders/call', { arguments: {} }, { apiKey });
    expect((await t.get('/v3/wms/suppliers', { apiKey: wms })).headers['x-ratelimit-remaining']).toBe('9');
    const refused = await call(wms);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'AUTH_FORBIDDEN']);
    expect(refused.headers['x-ratelimit-remaining']).toBeUndefined();
    expect((await t.get('/v3/wms/suppliers', { apiKey: wms })).headers['x-ratelimit-remaining']).toBe('8');
    expect(await t.app.accounts.usage(seller, '2026-11', 'test')).toBe(2);
    // A call the tool's own area serves is counted as usual.
    expect((await call(await t.key(seller, 'manager'))).headers['x-ratelimit-remaining']).toBe('7');

    const live = await t.key(seller, 'wms', 'live');
    expect((await call(live)).status).toBe(403);
    expect((await t.get('/v3/wms/suppliers', { apiKey: live })).status).toBe(200);
    expect(await t.app.accounts.usage(seller, '2026-11', 'live')).toBe(1);
  });

  it('live keys are counted and never refused, with no headers', async () => {
    const t = await start({ TEST_KEY_MONTHLY_QUOTA: '3' });
    const seller = await t.account({ paid: true });
    const test = await t.key(seller, 'wms');
    const live = await t.key(seller, 'wms', 'live');
    for (let i = 0; i < 3; i++) expect((await t.get('/v3/wms/suppliers', { apiKey: test })).status).toBe(200);
    expect((await t.get('/v3/wms/suppliers', { apiKey: test })).status).toBe(429);
    for (let i = 0; i < 10; i++) {
      const r = await t.get('/v3/wms/suppliers', { apiKey: live });
      expect(r.status).toBe(200);
      for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'])
        expect(r.headers[h]).toBeUndefined();
    }
    // Live calls are written together (LIVE_USAGE_FLUSH_MS): the service clock has not moved, so all wait.
    expect(await t.app.accounts.usage(seller, '2026-11', 'live')).toBe(0);
    expect(t.app.usageMeter.pendingCalls).toBe(10);
    t.app.usageMeter.flushLive();
    await t.app.usageMeter.settled();
    expect(await t.app.accounts.usage(seller, '2026-11', 'live')).toBe(10);
  });

  it('live calls are written in one statement once LIVE_USAGE_FLUSH_MS of service time has passed', async () => {
    const t = await start();
    expect(t.config.liveUsageFlushMs).toBe(1000);
    const seller = await t.account({ paid: true });
    const live = await t.key(seller, 'manager', 'live');
    const calls: Array<[string, string, string, number]> = [];
    const addUsage = t.app.accounts.addUsage.bind(t.app.accounts);
    t.app.accounts.addUsage = (accountId, month, env, n) => {
      calls.push([accountId, month, env, n]);
      return addUsage(accountId, month, env, n);
    };
    for (let i = 0; i < 5; i++) {
      expect((await t.get('/v3/manager/orders', { apiKey: live })).status).toBe(200);
      clock.advance(199);
    }
    expect(await t.app.accounts.usage(seller, '2026-11', 'live')).toBe(0);
    clock.advance(5); // 1,000 ms after the first call
    expect((await t.get('/v3/manager/orders', { apiKey: live })).status).toBe(200);
    await t.app.usageMeter.settled();
    expect(calls).toEqual([[seller, '2026-11', 'live', 6]]);
    expect(await t.app.accounts.usage(seller, '2026-11', 'live')).toBe(6);
    expect(t.app.usageMeter.pendingCalls).toBe(0);
  });

  it('live calls still gathered when the server closes are written on close', async () => {
    const t = await start();
    const seller = await t.account({ paid: true });
    const live = await t.key(seller, 'manager', 'live');
    for (let i = 0; i < 3; i++) expect((await t.get('/v3/manager/orders', { apiKey: live })).status).toBe(200);
    const written: number[] = [];
    const addUsage = t.app.accounts.addUsage.bind(t.app.accounts);
    t.app.accounts.addUsage = (accountId, month, env, n) => {
      written.push(n);
      return addUsage(accountId, month, env, n);
    };
    await t.close();
    s = undefined;
    expect(written).toEqual([3]);
  });

  it('with LIVE_USAGE_FLUSH_MS=0 every live call is written at once', async () => {
    const t = await start({ LIVE_USAGE_FLUSH_MS: '0' });
    const seller = await t.account({ paid: true });
    const live = await t.key(seller, 'wms', 'live');
    for (let i = 1; i <= 3; i++) {
      expect((await t.get('/v3/wms/suppliers', { apiKey: live })).status).toBe(200);
      expect(await t.app.accounts.usage(seller, '2026-11', 'live')).toBe(i);
    }
  });

  it('JWT calls have no quota and no headers', async () => {
    const t = await start({ TEST_KEY_MONTHLY_QUOTA: '1' });
    const seller = await t.account();
    const client = await t.app.accounts.createClient(seller, 'test', clock.now());
    const token = (await t.post('/v3/auth/token', client)).body.data.access_token;
    for (let i = 0; i < 5; i++) {
      const r = await t.get('/v3/pay/deposits?date_from=2026-11-01&date_to=2026-11-20', { bearer: token });
      expect(r.status).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it("the month is the service time zone's: the quota renews at 00:00 on the 1st, Seoul time", async () => {
    const t = await start({ TEST_KEY_MONTHLY_QUOTA: '2' });
    const wms = await t.key(await t.account(), 'wms');
    clock.set('2026-11-30T14:59:59Z'); // 23:59:59 on 30 November in Seoul
    await t.get('/v3/wms/suppliers', { apiKey: wms });
    await t.get('/v3/wms/suppliers', { apiKey: wms });
    expectQuota429(await t.get('/v3/wms/suppliers', { apiKey: wms }), 1, 2);
    clock.set('2026-11-30T15:00:00Z'); // 00:00 on 1 December in Seoul, still 30 November in UTC
    const r = await t.get('/v3/wms/suppliers', { apiKey: wms });
    expect(r.status).toBe(200);
    expect(r.headers['x-ratelimit-remaining']).toBe('1');
    expect(r.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-12-31T15:00:00Z') / 1000));
  });

  it('SERVICE_TIME_ZONE moves the reset', async () => {
    const t = await start({ SERVICE_TIME_ZONE: 'UTC' });
    const r = await t.get('/v3/wms/suppliers', { apiKey: await t.key(await t.account(), 'wms') });
    expect(r.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-12-01T00:00:00Z') / 1000));
  });

  it('admin quota reset gives the account its allowance back', async () => {
    const t = await start({ TEST_KEY_MONTHLY_QUOTA: '1' });
    const seller = await t.account();
    const wms = await t.key(seller, 'wms');
    await t.get('/v3/wms/suppliers', { apiKey: wms });
    expect((await t.get('/v3/wms/suppliers', { apiKey: wms })).status).toBe(429);
    await t.app.accounts.resetUsage(seller, '2026-11', 'test');
    expect((await t.get('/v3/wms/suppliers', { apiKey: wms })).status).toBe(200);
  });
});

describe('the usage meter closing while the counters do not answer', () => {
  it('tries once, then reports every write and give-back left without trying each (each try could take the command timeout)', async () => {
    const tried: string[] = [];
    const timedOut = (what: string) => async (): Promise<never> => {
      tried.push(what);
      throw new Error('Command timed out');
    };
    const counters: UsageCounters = {
      countTestCall: timedOut('charge'),
      returnTestCall: timedOut('give-back'),
      addUsage: timedOut('write'),
      usage: async () => 0,
      resetUsage: async () => undefined,
    };
    const errors: string[] = [];
    const log = { warn: () => undefined, error: (_: unknown, msg: string) => errors.push(msg) };
    // Live-key calls gathered for a batch (LIVE_USAGE_FLUSH_MS), of two accounts: two writes at the close.
    const meter = new UsageMeter(counters, 1_000, log as unknown as FastifyInstance['log'], 1_000);
    for (const charge of ['c1', 'c2', 'c3'])
      await expect(meter.countTest('acc', '2026-11', 10, charge)).rejects.toThrow('Command timed out');
    await meter.countLive('acc', '2026-11', 0);
    await meter.countLive('acc2', '2026-11', 0);
    expect([meter.pendingGiveBacks, meter.pendingCalls]).toEqual([3, 2]);
    tried.length = 0;
    await meter.close();
    expect(tried).toEqual(['write']);
    expect(errors.filter((m) => m.includes('not given back'))).toHaveLength(3);
    expect(errors.filter((m) => m.includes('not written before the close'))).toHaveLength(2);
  });
});
