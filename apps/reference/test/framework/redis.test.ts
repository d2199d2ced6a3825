// The limits across instances with REDIS_URL (a real Redis from Debian's package, started for these tests): every
// instance takes from the same gateway buckets, so an address's burst is 50 in total however its requests are
// spread (without it, each instance has its own), and counts test-key calls in the same monthly counter.
import type { GatewayLimit } from '@cls-api/spec';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningRedis, sparePort, startRedis } from '@cls-api/test-servers';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { loadConfig } from '../../src/config.js';
import { contract } from '../../src/contract-facts.js';
import { createDomain } from '../../src/domain/index.js';
import { assembleApp } from '../../src/server.js';
import { openDatabase } from '../../src/store/db.js';
import { TestClock } from '../support/clock.js';
import { LIMITS_OFF, startTestServer, storedRows, type TestResponse, type TestServer } from '../support/server.js';
import type { SqlStorage } from '../../src/store/storage.js';

const limits = contract().limits;
const [general, mcp] = ['gateway', 'gateway_mcp'].map((name) => limits.gateway.find((g) => g.name === name)!) as [
  GatewayLimit,
  GatewayLimit,
];
const clock = new TestClock('2026-11-20T03:00:00Z');
let redis: RunningRedis;
let dir: string;
let servers: TestServer[] = [];

beforeAll(async () => {
  redis = await startRedis();
}, 600_000);
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
  const flush = new Redis(redis.url);
  await flush.flushall();
  flush.disconnect();
});

/** `n` instances on one SQLite file, behind a proxy at 127.0.0.1 that forwards the client's address. */
async function instances(n: number, env: Record<string, string>): Promise<TestServer[]> {
  clock.set('2026-11-20T03:00:00Z');
  dir = mkdtempSync(join(tmpdir(), 'cls-gateway-redis-'));
  const file = join(dir, 'reference.db');
  for (let i = 0; i < n; i++) {
    servers.push(
      await startTestServer({
        clock: clock.now,
        db: openDatabase(file),
        closeDb: true,
        // These tests are about exact counts across instances, not a slow Redis: on a loaded machine one command
        // can wait past the 1 s default behind a thousand others and fail its request (redis-faults.test.ts covers
        // the timeout itself).
        env: { TRUSTED_PROXIES: '127.0.0.1', REDIS_COMMAND_TIMEOUT_MS: '60000', ...env },
      }),
    );
  }
  return servers;
}

const isGateway429 = (r: TestResponse) =>
  r.status === 429 && r.body.error?.code === 'RATE_LIMIT_EXCEEDED' && r.headers['retry-after'] === undefined;

describe('gateway limit with REDIS_URL: one set of buckets for every instance', () => {
  it('a burst of 100 from one address spread over three instances: exactly 50 pass in total', async () => {
    const [a, b, c] = await instances(3, { REDIS_URL: redis.url });
    const seller = await a!.account({ paid: true });
    const key = await a!.key(seller, 'wms');
    const outcomes: TestResponse[] = [];
    for (let i = 0; i < 100; i++) {
      const target = [a, b, c][i % 3]!;
      outcomes.push(await target.get('/v3/wms/suppliers', { apiKey: key, ip: '203.0.113.7' }));
    }
    expect(outcomes.filter((r) => r.status === 200)).toHaveLength(general.burst);
    expect(outcomes.slice(general.burst).every(isGateway429)).toBe(true);
    // Another address has buckets of its own, on every instance.
    expect((await b!.get('/v3/wms/suppliers', { apiKey: key, ip: '198.51.100.9' })).status).toBe(200);
    // It refills at 30 per second for everyone: after 100 ms three tokens are back, not three per instance.
    clock.advance(100);
    const after = [];
    for (const target of [a, b, c, a])
      after.push(await target!.get('/v3/wms/suppliers', { apiKey: key, ip: '203.0.113.7' }));
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 429]);
  });

  it("an address's buckets stay in Redis for an idle hour, however slowly a burst is served", async () => {
    // They used to expire once full again by the contract's rate (under 3 s of Redis's own clock): a burst served
    // slowly under a test's stopped clock then found its bucket gone and full.
    const [a] = await instances(1, { REDIS_URL: redis.url });
    const key = await a!.key(await a!.account(), 'wms');
    expect((await a!.get('/v3/mcp/tools', { apiKey: key, ip: '203.0.113.99' })).status).toBe(200);
    const inspect = new Redis(redis.url);
    try {
      const keys = await inspect.keys('cls:gateway:{203.0.113.99}:*');
      expect(keys.sort()).toEqual(['cls:gateway:{203.0.113.99}:/v3/', 'cls:gateway:{203.0.113.99}:/v3/mcp/']);
      for (const k of keys) expect(await inspect.ttl(k)).toBeGreaterThan(3500);
    } finally {
      inspect.disconnect();
    }
  });

  it('concurrent requests on two instances never share out more than the burst', async () => {
    const [a, b] = await instances(2, { REDIS_URL: redis.url });
    const key = await a!.key(await a!.account(), 'manager');
    const all = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        (i % 2 ? a : b)!.get('/v3/manager/orders', { apiKey: key, ip: '192.0.2.44' }),
      ),
    );
    expect(all.filter((r) => r.status === 200)).toHaveLength(general.burst);
    expect(all.filter((r) => r.status !== 200).every(isGateway429)).toBe(true);
  });

  it('the /v3/mcp/ tier is shared too: 10 at once, and each also spends a /v3/ token', async () => {
    const [a, b] = await instances(2, { REDIS_URL: redis.url });
    const key = await a!.key(await a!.account(), 'wms');
    const calls = [];
    for (let i = 0; i < 12; i++)
      calls.push(await (i % 2 ? a : b)!.get('/v3/mcp/tools', { apiKey: key, ip: '192.0.2.50' }));
    expect(calls.map((r) => r.status)).toEqual([...Array(mcp.burst).fill(200), 429, 429]);
    // 10 /v3/ tokens went with them: 40 are left for the other areas.
    const rest = [];
    for (let i = 0; i < 41; i++)
      rest.push(await (i % 2 ? a : b)!.get('/v3/wms/suppliers', { apiKey: key, ip: '192.0.2.50' }));
    expect(rest.filter((r) => r.status === 200)).toHaveLength(general.burst - mcp.burst);
  });
});

describe('monthly quota with REDIS_URL: one counter per account for every instance', () => {
  const QUOTA = contract().limits.testKeyMonthlyQuota;

  it('1,200 concurrent test-key calls of one account spread over three instances: exactly 1,000 succeed', {
    timeout: 600_000,
  }, async () => {
    const [a, b, c] = await instances(3, { REDIS_URL: redis.url, ...LIMITS_OFF });
    const seller = await a!.account();
    const keys = [await a!.key(seller, 'wms'), await a!.key(seller, 'manager'), await a!.key(seller, 'cam')];
    const paths = ['/v3/wms/suppliers', '/v3/manager/orders', '/v3/mcp/tools'];
    const all = await Promise.all(
      Array.from({ length: 1200 }, (_, i) =>
        [a, b, c][i % 3]!.get(paths[i % 3]!, { apiKey: keys[i % 3]!, ip: `198.51.100.${i % 200}` }),
      ),
    );
    expect(all.filter((r) => r.status === 200)).toHaveLength(QUOTA);
    const refused = all.filter((r) => r.status !== 200);
    expect(refused.every((r) => r.status === 429 && r.headers['retry-after'] !== undefined)).toBe(true);
    expect(await a!.app.usageCounters.usage(seller, '2026-11', 'test')).toBe(QUOTA);
    // The database's own counter is not used: Redis holds the count.
    expect(await a!.app.accounts.usage(seller, '2026-11', 'test')).toBe(0);
    // The remaining count a caller sees is the account's, whichever instance answers.
    const remaining = all
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers['x-ratelimit-remaining']))
      .sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: QUOTA }, (_, i) => i));
  });

  it('admin quota reset with REDIS_URL gives the allowance back on every instance', async () => {
    const [a, b] = await instances(2, { REDIS_URL: redis.url, TEST_KEY_MONTHLY_QUOTA: '2', ...LIMITS_OFF });
    const seller = await a!.account();
    const key = await a!.key(seller, 'wms');
    expect((await a!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
    expect((await b!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
    expect((await a!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(429);
    const out: string[] = [];
    const code = await runCli(['admin', 'quota', 'reset', '--account', seller, '--json'], {
      env: {
        DATABASE: join(dir, 'reference.db'),
        REDIS_URL: redis.url,
        TEST_KEY_MONTHLY_QUOTA: '2',
        LOG_LEVEL: 'silent',
      },
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      clock: clock.now,
    });
    expect(code).toBe(0);
    expect(JSON.parse(out.join(''))).toMatchObject({ account_id: seller, remaining: 2 });
    expect((await b!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
  });
});

describe('admin quota reset where the servers count elsewhere', () => {
  const reset = async (seller: string, env: Record<string, string>) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['admin', 'quota', 'reset', '--account', seller], {
      env: { DATABASE: join(dir, 'reference.db'), TEST_KEY_MONTHLY_QUOTA: '2', LOG_LEVEL: 'silent', ...env },
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      clock: clock.now,
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('without REDIS_URL on a deployment that counts in Redis: refused, exit 2, naming the Redis; nothing claims success', async () => {
    const [a] = await instances(1, { REDIS_URL: redis.url, TEST_KEY_MONTHLY_QUOTA: '2', ...LIMITS_OFF });
    const seller = await a!.account();
    const key = await a!.key(seller, 'wms');
    await a!.get('/v3/wms/suppliers', { apiKey: key });
    await a!.get('/v3/wms/suppliers', { apiKey: key });
    expect((await a!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(429);
    const refused = await reset(seller, {});
    expect(refused.code).toBe(2);
    expect(refused.out).toBe('');
    expect(refused.err).toContain(`keep the monthly counters in Redis (${redis.url}`);
    expect(refused.err).toContain('run admin quota reset with their REDIS_URL. Nothing was reset.');
    // Still used up; with REDIS_URL the reset works.
    expect((await a!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(429);
    expect((await reset(seller, { REDIS_URL: redis.url })).code).toBe(0);
    expect((await a!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
  });

  it('with another Redis, or another database index of the same Redis: refused, exit 2, naming both; nothing reset', async () => {
    const [a] = await instances(1, { REDIS_URL: redis.url, TEST_KEY_MONTHLY_QUOTA: '2', ...LIMITS_OFF });
    const seller = await a!.account();
    const key = await a!.key(seller, 'wms');
    await a!.get('/v3/wms/suppliers', { apiKey: key });
    await a!.get('/v3/wms/suppliers', { apiKey: key });
    expect((await a!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(429);
    const other = await startRedis({ log: () => undefined });
    try {
      for (const elsewhere of [other.url, `${redis.url}/1`]) {
        const refused = await reset(seller, { REDIS_URL: elsewhere });
        expect(refused.code, elsewhere).toBe(2);
        expect(refused.out).toBe('');
        expect(refused.err).toContain(`keep the monthly counters in Redis at ${redis.url}`);
        expect(refused.err).toContain(`REDIS_URL names ${elsewhere}`);
        expect(refused.err).toContain('Nothing was reset.');
      }
    } finally {
      await other.stop();
    }
    expect((await a!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(429);
    // The same Redis written another way (its default database index spelled out) is the one the servers use.
    expect((await reset(seller, { REDIS_URL: `${redis.url}/0` })).code).toBe(0);
    expect((await a!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
  });

  it('with REDIS_URL on a database no server has started on: refused', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cls-gateway-redis-'));
    const refused = await reset('acc_0000000000000000', { REDIS_URL: redis.url });
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      `no server has started on this DATABASE, so none keeps its monthly counters in Redis at ${redis.url}`,
    );
  });

  it('with REDIS_URL on a deployment that counts in the database: refused too', async () => {
    const [a] = await instances(1, { TEST_KEY_MONTHLY_QUOTA: '2', ...LIMITS_OFF });
    const seller = await a!.account();
    const refused = await reset(seller, { REDIS_URL: redis.url });
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('keep the monthly counters in the database, not in Redis');
    expect((await reset(seller, {})).code).toBe(0);
  });
});

describe('refresh tokens with REDIS_URL: single use across instances', () => {
  const TTL = { JWT_TTL_SECONDS: '600', REFRESH_TOKEN_TTL_SECONDS: '3600' };

  async function grant(
    s: TestServer,
  ): Promise<{ client: { client_id: string; client_secret: string }; refresh: string }> {
    const seller = await s.account();
    const client = await s.app.accounts.createClient(seller, 'test', clock.now());
    const r = await s.post('/v3/auth/token', client);
    expect(r.status).toBe(200);
    return { client, refresh: r.body.data.refresh_token as string };
  }
  const refresh = (s: TestServer, token: string) => s.post('/v3/auth/token/refresh', { refresh_token: token });

  it('a token presented to two instances at once works once; they are kept in Redis, not in the database', async () => {
    const [a, b] = await instances(2, { REDIS_URL: redis.url, ...TTL });
    const { refresh: token } = await grant(a!);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => refresh(i % 2 ? a! : b!, token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401 && r.body.error.code === 'AUTH_INVALID_TOKEN')).toHaveLength(7);
    expect(await storedRows(a!.app, 'refresh_tokens')).toEqual([]);
    // The renewed pair works on the other instance: the JWT and the next refresh token.
    const renewed = results.find((r) => r.status === 200)!.body.data;
    expect(renewed.environment).toBe('test');
    expect(
      (await b!.get('/v3/pay/deposits?date_from=2026-11-01&date_to=2026-11-20', { bearer: renewed.access_token }))
        .status,
    ).toBe(200);
  });

  it('a spent token presented again ends its whole family; another family is untouched', async () => {
    const [a, b] = await instances(2, { REDIS_URL: redis.url, ...TTL });
    const first = await grant(a!);
    const other = await grant(a!);
    const second = (await refresh(a!, first.refresh)).body.data.refresh_token as string;
    expect((await refresh(b!, first.refresh)).status).toBe(401);
    expect((await refresh(b!, second)).status).toBe(401);
    expect((await refresh(b!, other.refresh)).status).toBe(200);
  });

  it('an expired token is 401 AUTH_INVALID_TOKEN saying so; an unknown one is 401 too', async () => {
    const [a] = await instances(1, { REDIS_URL: redis.url, ...TTL });
    const { refresh: token } = await grant(a!);
    clock.advance(3600_000);
    const expired = await refresh(a!, token);
    expect([expired.status, expired.body.error.code]).toEqual([401, 'AUTH_INVALID_TOKEN']);
    expect(expired.body.error.message).toMatch(/expired/);
    expect((await refresh(a!, 'rft_unknownunknownunknown')).status).toBe(401);
  });

  it('a refresh for client credentials revoked in the database is refused', async () => {
    const [a] = await instances(1, { REDIS_URL: redis.url, ...TTL });
    const { client, refresh: token } = await grant(a!);
    await (a!.app.storage as SqlStorage).sql.run('UPDATE client_credentials SET revoked_at = 1 WHERE client_id = ?', [
      client.client_id,
    ]);
    expect((await refresh(a!, token)).status).toBe(401);
  });
});

describe('gateway limit without REDIS_URL', () => {
  it('each instance keeps its own buckets: an address gets a burst of 50 from each (README, "Deployment")', async () => {
    const [a, b] = await instances(2, {});
    const key = await a!.key(await a!.account(), 'wms');
    const outcomes = [];
    for (let i = 0; i < 110; i++)
      outcomes.push(await (i % 2 ? a : b)!.get('/v3/wms/suppliers', { apiKey: key, ip: '203.0.113.8' }));
    expect(outcomes.filter((r) => r.status === 200)).toHaveLength(2 * general.burst);
  });
});

describe('a REDIS_URL the server cannot use', () => {
  it('is refused at start with the reason, naming REDIS_URL and never its password', async () => {
    const port = await sparePort(); // nothing listens there
    const config = loadConfig({
      DATABASE: ':memory:',
      LOG_LEVEL: 'silent',
      JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
      REDIS_URL: `redis://user:hunter2secret@127.0.0.1:${port}`,
    });
    const err = (await assembleApp({ config, createDomain }).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/REDIS_URL: cannot use redis:\/\/user:\*\*\*@127\.0\.0\.1:\d+/);
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(err.message).not.toContain('hunter2secret');
  });

  it('a value that is not a redis:// URL is a configuration problem, not echoed', () => {
    expect(() => loadConfig({ REDIS_URL: 'postgres://user:pw@db/x' })).toThrow(
      /REDIS_URL must be redis:\/\/\[user:password@\]host\[:port\]\[\/db\]/,
    );
    expect(() => loadConfig({ REDIS_URL: 'postgres://user:pw@db/x' })).not.toThrow(/pw@db/);
  });

  it('Redis going away while serving: the request is 500 INTERNAL_ERROR in the envelope, and the server keeps answering', async () => {
    const own = await startRedis();
    try {
      const [a] = await instances(1, { REDIS_URL: own.url });
      const key = await a!.key(await a!.account(), 'wms');
      expect((await a!.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
      await own.kill();
      const r = await a!.get('/v3/wms/suppliers', { apiKey: key });
      expect([r.status, r.body.success, r.body.error?.code]).toEqual([500, false, 'INTERNAL_ERROR']);
      expect((await a!.get('/health')).status).toBe(200);
    } finally {
      await own.stop();
    }
  });
});
