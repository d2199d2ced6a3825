// A Redis that stops answering without going away (SIGSTOP: a frozen process, a swap storm), and a persistent Redis
// restarted: requests that need it fail fast as 500 envelopes and come back by themselves, and no count is lost.
import { monthKey } from '@cls-api/spec';
import { type RunningRedis, startRedis } from '@cls-api/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageCounters } from '../../src/store/interface.js';
import { LIMITS_OFF, startTestServer, type TestServer } from '../support/server.js';

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

/**
 * Calls `call` until it is answered 200, and gives that answer; gives the last other one once a minute has passed.
 * The client reconnects on its own back-off (at most 2 s apart), which a busy machine stretches: a minute only tells
 * "back by itself" from "never back". Every answer before is handed to `meanwhile`.
 */
async function untilServed<R extends { status: number }>(
  call: () => Promise<R>,
  meanwhile: (answer: R) => void = () => undefined,
): Promise<R> {
  const deadline = Date.now() + 60_000;
  let answer = await call();
  while (answer.status !== 200 && Date.now() < deadline) {
    meanwhile(answer);
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await call();
  }
  return answer;
}

/** A call's status, as the answer `untilServed` reads. */
const statusOf = (call: () => Promise<number>) => async () => ({ status: await call() });

describe('Redis frozen (SIGSTOP)', () => {
  it('requests that need it are 500 INTERNAL_ERROR envelopes within a bounded time; after SIGCONT they succeed again by themselves', async () => {
    expect((await server.get('/v3/wms/suppliers', { apiKey: key })).status).toBe(200);
    redis.process.kill('SIGSTOP');
    try {
      // Twenty requests while Redis is frozen: each one's command times out after REDIS_COMMAND_TIMEOUT_MS (1 s);
      // the bound of a minute only tells an answer from none (without a timeout they would wait for ever).
      const frozen = await within(
        60_000,
        Promise.all(Array.from({ length: 20 }, () => server.get('/v3/wms/suppliers', { apiKey: key }))),
      );
      for (const r of frozen)
        expect([r.status, r.body.success, r.body.error?.code]).toEqual([500, false, 'INTERNAL_ERROR']);
      // What needs no Redis is served meanwhile.
      expect((await within(60_000, server.get('/health'))).status).toBe(200);
    } finally {
      redis.process.kill('SIGCONT');
    }
    // Recovered without a restart: the next request that finds Redis answering is served.
    expect((await untilServed(() => server.get('/v3/wms/suppliers', { apiKey: key }))).status).toBe(200);
  }, 240_000);
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
    // The client reconnects by itself; until it has, a request is 500 (never a count of zero).
    const r = await untilServed(
      () => server.get('/v3/wms/suppliers', { apiKey: own }),
      (before) => expect(before.status).toBe(500),
    );
    expect(r.status).toBe(200);
    expect(Number(r.headers['x-ratelimit-remaining'])).toBe(remaining - 1);
  }, 180_000);
});

/**
 * Holds the first `count` calls of a counters method until `open` is called: the requests that made them are then
 * past every step that needs Redis before the count (the gateway's bucket, for a test key; the handler, for a live
 * key), so freezing Redis before opening the gate puts exactly those counts in its frozen socket.
 */
function gate<K extends 'countTestCall' | 'addUsage'>(counters: UsageCounters, method: K, count: number) {
  const real = counters[method].bind(counters) as (...args: unknown[]) => Promise<unknown>;
  let held = 0;
  let open!: () => void;
  let allHeld!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const full = new Promise<void>((resolve) => {
    allHeld = resolve;
  });
  (counters as unknown as Record<K, unknown>)[method] = async (...args: unknown[]) => {
    if (held < count) {
      held += 1;
      if (held === count) allHeld();
      await opened;
    }
    return real(...args);
  };
  return { full, open };
}

describe('Redis frozen under load (SIGSTOP for ten command timeouts, then SIGCONT)', () => {
  it('the counters equal exactly the calls served: a test-key call answered 500 is never charged, a served live-key call always counted', async () => {
    // The default LIVE_USAGE_FLUSH_MS: live-key calls are written in batches, here when the test flushes them.
    const s = await startTestServer({ env: { REDIS_URL: redis.url, LOG_LEVEL: 'silent', ...LIMITS_OFF } });
    try {
      const account = await s.account({ paid: true });
      const keys = { test: await s.key(account, 'wms'), live: await s.key(account, 'wms', 'live') };
      const statuses: Record<'test' | 'live', number[]> = { test: [], live: [] };
      const call = async (env: 'test' | 'live') => {
        const r = await s.get('/v3/wms/suppliers', { apiKey: keys[env] });
        statuses[env].push(r.status);
        return r.status;
      };
      const calls = (env: 'test' | 'live', n: number) => Promise.all(Array.from({ length: n }, () => call(env)));
      const wave = async (n: number) => (await Promise.all([calls('test', n / 2), calls('live', n / 2)])).flat();

      expect(new Set(await wave(20))).toEqual(new Set([200]));
      s.app.usageMeter.flushLive();
      await s.app.usageMeter.settled();
      // Ten test-key charges and a batch of ten live-key calls reach Redis only once it is frozen.
      const charges = gate(s.app.usageCounters, 'countTestCall', 10);
      const batch = gate(s.app.usageCounters, 'addUsage', 1);
      const heldTest = calls('test', 10);
      expect(await calls('live', 10)).toEqual(Array(10).fill(200));
      s.app.usageMeter.flushLive();
      await Promise.all([charges.full, batch.full]);
      redis.process.kill('SIGSTOP');
      try {
        charges.open();
        batch.open();
        // The held test-key calls fail: their charges time out.
        expect(await heldTest).toEqual(Array(10).fill(500));
        // Load while frozen: ten rounds of twenty calls, each answered 500 after the command timeout (the gateway's
        // bucket is in Redis), so Redis stays frozen for ten timeouts, and what the server sends again meanwhile
        // (the batch, the give-backs) times out too.
        for (let round = 0; round < 10; round++) expect(new Set(await wave(20))).toEqual(new Set([500]));
      } finally {
        redis.process.kill('SIGCONT');
      }
      // Served again once Redis answers (the first requests after SIGCONT may still meet its backlog).
      expect((await untilServed(statusOf(() => call('test')))).status).toBe(200);
      expect(new Set(await wave(20))).toEqual(new Set([200]));
      s.app.usageMeter.flushLive();
      await s.app.usageMeter.settled();
      expect(s.app.usageMeter.pendingCalls).toBe(0);

      const month = monthKey(new Date(), s.config.serviceTimeZone);
      const served = (env: 'test' | 'live') => statuses[env].filter((st) => st === 200).length;
      expect([...statuses.test, ...statuses.live].every((st) => st === 200 || st === 500)).toBe(true);
      expect({
        test: await s.app.usageCounters.usage(account, month, 'test'),
        live: await s.app.usageCounters.usage(account, month, 'live'),
      }).toEqual({ test: served('test'), live: served('live') });
    } finally {
      await s.close();
    }
  }, 180_000);

  it('Redis killed and started again (persistent): a batch of served live-key calls sent while it is down is written once it is back, and calls it failed meanwhile are not charged', async () => {
    const s = await startTestServer({ env: { REDIS_URL: redis.url, LOG_LEVEL: 'silent', ...LIMITS_OFF } });
    try {
      const account = await s.account({ paid: true });
      const keys = { test: await s.key(account, 'wms'), live: await s.key(account, 'wms', 'live') };
      const served = { test: 0, live: 0 };
      const call = async (env: 'test' | 'live') => {
        const r = await s.get('/v3/wms/suppliers', { apiKey: keys[env] });
        if (r.status === 200) served[env] += 1;
        else expect(r.status).toBe(500);
        return r.status;
      };
      for (let i = 0; i < 5; i++) expect([await call('test'), await call('live')]).toEqual([200, 200]);
      const batch = gate(s.app.usageCounters, 'addUsage', 1);
      s.app.usageMeter.flushLive();
      await batch.full;
      await redis.kill();
      batch.open();
      // While it is down: the batch fails at once (no connection), and so does every call that needs Redis.
      for (let i = 0; i < 5; i++) expect([await call('test'), await call('live')]).toEqual([500, 500]);
      await redis.restart();
      expect((await untilServed(statusOf(() => call('test')))).status).toBe(200);
      s.app.usageMeter.flushLive();
      await s.app.usageMeter.settled();
      const month = monthKey(new Date(), s.config.serviceTimeZone);
      expect({
        test: await s.app.usageCounters.usage(account, month, 'test'),
        live: await s.app.usageCounters.usage(account, month, 'live'),
      }).toEqual(served);
      expect(served.live).toBe(5);
    } finally {
      await s.close();
    }
  }, 180_000);
});
