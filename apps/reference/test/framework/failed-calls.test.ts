// A call the service failed to serve is not charged to the partner's monthly allowance (spec/DECISIONS.md G29):
// a PostgreSQL outage with the counters in Redis, the database failing under a SQLite server, and a live key.
import { monthKey } from '@cls-api/spec';
import { type RunningPostgres, type RunningRedis, startPostgres, startRedis } from '@cls-api/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../src/contract-facts.js';
import { createDomain, type Domain } from '../../src/domain/index.js';
import { TestClock } from '../support/clock.js';
import { startTestServer, type TestServer } from '../support/server.js';

const QUOTA = contract().limits.testKeyMonthlyQuota;
const NOW = '2026-11-20T03:00:00Z';
const month = monthKey(new Date(NOW), contract().timeZone);

describe('PostgreSQL stopped, counters in Redis', () => {
  let postgres: RunningPostgres;
  let redis: RunningRedis;
  let server: TestServer;

  beforeAll(async () => {
    postgres = await startPostgres(() => undefined);
    redis = await startRedis(() => undefined);
    // A clock that stands still: the looked-up key stays remembered (API_KEY_CACHE_MS of service time), so calls
    // pass authentication and the quota while the database is gone, and fail in the handler.
    const clock = new TestClock(NOW);
    server = await startTestServer({
      databaseUrl: await postgres.createDatabase('cls_outage'),
      clock: clock.now,
      env: { REDIS_URL: redis.url, LOG_LEVEL: 'silent' },
    });
  }, 600_000);
  afterAll(async () => {
    await server?.close().catch(() => undefined);
    await redis?.stop();
    await postgres?.stop();
  });

  it('calls answered 500 during the outage are given back: the account keeps every call it was not served', async () => {
    const account = await server.account();
    const key = await server.key(account, 'wms');
    for (let i = 0; i < 3; i++) {
      const r = await server.get('/v3/wms/suppliers', { apiKey: key });
      expect(r.status).toBe(200);
      expect(Number(r.headers['x-ratelimit-remaining'])).toBe(QUOTA - 1 - i);
    }
    await postgres.stop();
    const failed = await Promise.all(
      Array.from({ length: 17 }, () => server.get('/v3/wms/suppliers', { apiKey: key })),
    );
    for (const r of failed) expect([r.status, r.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
    // Only the three calls served are counted.
    expect(await server.app.usageCounters.usage(account, month, 'test')).toBe(3);
  });
});

describe('a handler that fails, counters in the database (SQLite)', () => {
  let failing = false;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      clock: new TestClock(NOW).now,
      env: { LOG_LEVEL: 'silent', LIVE_USAGE_FLUSH_MS: '0' },
      createDomain: (store, options) => {
        const domain: Domain = createDomain(store, options);
        const listSuppliers = domain.handlers.listSuppliers;
        domain.handlers.listSuppliers = async (input, ctx) => {
          if (failing) throw new Error('the database connection was lost');
          return listSuppliers(input, ctx);
        };
        return domain;
      },
    });
  });
  afterAll(() => server.close());

  it('test key: a 500 is not charged, a 200 and a 4xx are; the remaining count a later call shows is exact', async () => {
    const account = await server.account();
    const key = await server.key(account, 'wms');
    expect((await server.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
    expect((await server.get('/v3/wms/suppliers?page=0', { apiKey: key })).status).toBe(400);
    failing = true;
    for (let i = 0; i < 5; i++) expect((await server.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(500);
    failing = false;
    const r = await server.get('/v3/wms/suppliers', { apiKey: key });
    expect(Number(r.headers['x-ratelimit-remaining'])).toBe(QUOTA - 3);
    expect(await server.app.usageCounters.usage(account, month, 'test')).toBe(3);
  });

  it('live key: a call answered 500 is not counted either', async () => {
    const account = await server.account({ paid: true });
    const key = await server.key(account, 'wms', 'live');
    expect((await server.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
    failing = true;
    for (let i = 0; i < 4; i++) expect((await server.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(500);
    failing = false;
    expect(await server.app.usageCounters.usage(account, month, 'live')).toBe(1);
  });
});
