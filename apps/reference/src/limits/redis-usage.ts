import type { Redis } from 'ioredis';
import type { KeyEnv, UsageCounters } from '../store/interface.js';

/**
 * The monthly usage counters in Redis (REDIS_URL), shared by every instance: a test-key call is counted by one
 * script that increments only below the limit, so concurrent calls on any number of instances are allowed exactly
 * up to the quota, never one more. Live-key calls are added in batches. A month's counters expire after
 * `retentionDays` (the default keeps a year of history); keep Redis persistent (AOF) where counts must survive a
 * restart of Redis itself (README, "Deployment").
 */
const COUNT_TEST_CALL = `
local calls = tonumber(redis.call('GET', KEYS[1]) or '0')
if calls >= tonumber(ARGV[1]) then return {0, calls} end
calls = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return {1, calls}
`;

/** One call given back, never below zero (a counter reset meanwhile stays reset). */
const RETURN_TEST_CALL = `
local calls = tonumber(redis.call('GET', KEYS[1]) or '0')
if calls > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

export class RedisUsageCounters implements UsageCounters {
  private readonly retentionSeconds: number;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix = 'cls:usage',
    retentionDays = 400,
  ) {
    this.retentionSeconds = retentionDays * 86_400;
    redis.defineCommand('clsCountTestCall', { numberOfKeys: 1, lua: COUNT_TEST_CALL });
    redis.defineCommand('clsReturnTestCall', { numberOfKeys: 1, lua: RETURN_TEST_CALL });
  }

  private key(accountId: string, month: string, env: KeyEnv): string {
    return `${this.keyPrefix}:${accountId}:${month}:${env}`;
  }

  /** Counts one test-key call if the account is below `limit` this month: atomic across every instance. */
  async countTestCall(accountId: string, month: string, limit: number): Promise<{ allowed: boolean; calls: number }> {
    const count = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<[number, number]>>)
      .clsCountTestCall!;
    const [allowed, calls] = await count.call(
      this.redis,
      this.key(accountId, month, 'test'),
      limit,
      this.retentionSeconds,
    );
    return { allowed: allowed === 1, calls };
  }

  async returnTestCall(accountId: string, month: string): Promise<void> {
    const give = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<number>>).clsReturnTestCall!;
    await give.call(this.redis, this.key(accountId, month, 'test'));
  }

  async countLiveCall(accountId: string, month: string): Promise<number> {
    const key = this.key(accountId, month, 'live');
    const [[, calls]] = (await this.redis.multi().incr(key).expire(key, this.retentionSeconds).exec()) as [
      [Error | null, number],
    ];
    return calls;
  }

  async addUsage(accountId: string, month: string, env: KeyEnv, calls: number): Promise<void> {
    const key = this.key(accountId, month, env);
    await this.redis.multi().incrby(key, calls).expire(key, this.retentionSeconds).exec();
  }

  async usage(accountId: string, month: string, env: KeyEnv): Promise<number> {
    return Number((await this.redis.get(this.key(accountId, month, env))) ?? 0);
  }

  async resetUsage(accountId: string, month: string, env: KeyEnv): Promise<void> {
    await this.redis.del(this.key(accountId, month, env));
  }
}
