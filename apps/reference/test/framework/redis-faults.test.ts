// A Redis that stops answering without going away (SIGSTOP: a frozen process, a swap storm), and a persistent Redis
// restarted: requests that need it fail fast as 500 envelopes and come back by themselves, and no count is lost.
import { type RunningRedis, startRedis } from '@cls-api/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

let redis: RunningRedis;
let server: TestServer;
let key: string;

beforeAll(async () => {
  redis = await startRedis({ persistent: true, log: () => undefined });
  // The default command timeout (1 s), as served.
  server = await startTestServer({ env: { REDIS_URL: redis.url, LOG_LEVEL: 'silent' } });
  key = await server.key(await server.account(), 'wms');
}, 600_000);
afterAll(async () => {
  await server?.close();
  await redis?.stop();
});

/** Resolves with what `work` gives, or rejects once `ms` have passed: a bound far above the behaviour tested. */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

describe('Redis frozen (SIGSTOP)', () => {
  it('requests that need it are 500 INTERNAL_ERROR envelopes within a bounded time; after SIGCONT they succeed again by themselves', async () => {
    expect((await server.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
    redis.process.kill('SIGSTOP');
    try {
      // Twenty requests while Redis is frozen: each one's command times out after REDIS_COMMAND_TIMEOUT_MS (1 s);
      // the bound of 15 s only tells an answer from none (without a timeout they would wait for ever).
      const frozen = await within(
        15_000,
        Promise.all(Array.from({ length: 20 }, () => server.get('/v3/wms/suppliers', { apiKey: key }))),
      );
      for (const r of frozen)
        expect([r.status, r.body.success, r.body.error?.code]).toEqual([500, false, 'INTERNAL_ERROR']);
      // What needs no Redis is served meanwhile.
      expect((await within(15_000, server.get('/health'))).status).toBe(200);
    } finally {
      redis.process.kill('SIGCONT');
    }
    // Recovered without a restart: the next request that finds Redis answering is served.
    let r = await server.get('/v3/wms/suppliers', { apiKey: key });
    for (let attempt = 0; attempt < 50 && r.status !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      r = await server.get('/v3/wms/suppliers', { apiKey: key });
    }
    expect(r.status).toBe(200);
  });
});

describe('Redis stopped and started again (persistent, as the cluster starts it)', () => {
  it('keeps every count: an account that used calls before the restart has that many fewer after it', async () => {
    const account = await server.account();
    const own = await server.key(account, 'wms');
    let remaining = Number.NaN;
    for (let i = 0; i < 5; i++) {
      const r = await server.get('/v3/wms/suppliers', { apiKey: own });
      expect(r.status).toBe(200);
      remaining = Number(r.headers['x-ratelimit-remaining']);
    }
    await redis.restart();
    let r = await server.get('/v3/wms/suppliers', { apiKey: own });
    // The client reconnects by itself; until it has, a request is 500 (never a count of zero).
    for (let attempt = 0; attempt < 50 && r.status !== 200; attempt++) {
      expect(r.status).toBe(500);
      await new Promise((resolve) => setTimeout(resolve, 100));
      r = await server.get('/v3/wms/suppliers', { apiKey: own });
    }
    expect(r.status).toBe(200);
    expect(Number(r.headers['x-ratelimit-remaining'])).toBe(remaining - 1);
  });
});
