// The monthly counters in a real Redis (Debian's redis-server, started for this file).
import { type RunningRedis, startRedis } from '@cls-api/test-servers';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisUsageCounters } from '../../src/limits/redis-usage.js';

let server: RunningRedis;
const clients: Redis[] = [];
beforeAll(async () => {
  server = await startRedis();
}, 600_000);
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server?.stop();
});

/** A connection of its own, as each instance of a deployment has. */
function instance(): RedisUsageCounters {
  const redis = new Redis(server.url);
  clients.push(redis);
  return new RedisUsageCounters(redis);
}

describe('RedisUsageCounters', () => {
  it('1,200 concurrent test-key calls through three connections: exactly 1,000 allowed, in order 1..1000', async () => {
    const instances = [instance(), instance(), instance()];
    const outcomes = await Promise.all(
      Array.from({ length: 1200 }, (_, i) => instances[i % 3]!.countTestCall('acc_quota', '2026-11', 1000)),
    );
    const allowed = outcomes.filter((o) => o.allowed);
    expect(allowed).toHaveLength(1000);
    expect(allowed.map((o) => o.calls).sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(outcomes.filter((o) => !o.allowed).every((o) => o.calls === 1000)).toBe(true);
    expect(await instances[0]!.usage('acc_quota', '2026-11', 'test')).toBe(1000);
  });

  it('months, environments and accounts are counted apart; a reset clears one counter', async () => {
    const c = instance();
    await c.countTestCall('acc_a', '2026-11', 5);
    await c.addUsage('acc_a', '2026-11', 'live', 7);
    await c.addUsage('acc_a', '2026-11', 'live', 3);
    await c.countTestCall('acc_a', '2026-12', 5);
    await c.countTestCall('acc_b', '2026-11', 5);
    expect(await c.usage('acc_a', '2026-11', 'test')).toBe(1);
    expect(await c.usage('acc_a', '2026-11', 'live')).toBe(10);
    expect(await c.usage('acc_a', '2026-12', 'test')).toBe(1);
    await c.resetUsage('acc_a', '2026-11', 'test');
    expect(await c.usage('acc_a', '2026-11', 'test')).toBe(0);
    expect(await c.usage('acc_b', '2026-11', 'test')).toBe(1);
  });

  it('a counter expires after the retention period (a year of history by default)', async () => {
    const redis = new Redis(server.url);
    clients.push(redis);
    await new RedisUsageCounters(redis).countTestCall('acc_ttl', '2026-11', 5);
    const ttl = await redis.ttl('cls:usage:acc_ttl:2026-11:test');
    expect(ttl).toBeGreaterThan(399 * 86_400);
    expect(ttl).toBeLessThanOrEqual(400 * 86_400);
  });

  it('a charge is made and given back at most once, and a charge given back before it ran is never made', async () => {
    const c = instance();
    expect(await c.countTestCall('acc_ids', '2026-11', 5, 'charge-1')).toEqual({ allowed: true, calls: 1 });
    // Sent again (resent after a reconnection): answered, not counted twice.
    expect(await c.countTestCall('acc_ids', '2026-11', 5, 'charge-1')).toEqual({ allowed: true, calls: 1 });
    await c.returnTestCall('acc_ids', '2026-11', 'charge-1');
    await c.returnTestCall('acc_ids', '2026-11', 'charge-1');
    expect(await c.usage('acc_ids', '2026-11', 'test')).toBe(0);
    // A charge whose command runs only after its give-back (it timed out, Redis ran it later): never made.
    await c.countTestCall('acc_ids', '2026-11', 5, 'charge-2');
    await c.returnTestCall('acc_ids', '2026-11', 'charge-3');
    expect((await c.countTestCall('acc_ids', '2026-11', 5, 'charge-3')).allowed).toBe(false);
    expect(await c.usage('acc_ids', '2026-11', 'test')).toBe(1);
    // A charge given back after an operator's reset leaves the counter at zero.
    await c.resetUsage('acc_ids', '2026-11', 'test');
    await c.returnTestCall('acc_ids', '2026-11', 'charge-2');
    expect(await c.usage('acc_ids', '2026-11', 'test')).toBe(0);
  });

  it('the calls of one write id are added once, however often the write is sent', async () => {
    const c = instance();
    await c.addUsage('acc_writes', '2026-11', 'live', 7, 'write-1');
    await c.addUsage('acc_writes', '2026-11', 'live', 7, 'write-1');
    await c.addUsage('acc_writes', '2026-11', 'live', 3, 'write-2');
    expect(await c.usage('acc_writes', '2026-11', 'live')).toBe(10);
  });
});
