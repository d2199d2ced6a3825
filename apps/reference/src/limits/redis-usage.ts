import type { Redis } from 'ioredis';
import type { KeyEnv, UsageCounters } from '../store/interface.js';

/**
 * How long Redis remembers one charge or one write by its id (an hour). A command that timed out may still run once
 * Redis answers again (a frozen process, a command resent after a reconnection); the record makes that late run,
 * and every retry, change the counter at most once. The usage meter retries until Redis answers, so a record only
 * has to outlive the outage between a command's late run and the retry that finds it (`src/plugins/quota.ts`).
 */
export const COUNT_RECORD_SECONDS = 3_600;

/**
 * One test-key call counted below the limit (KEYS: the counter, the charge's record). A charge given back before it
 * ran (its request had already failed) is not made; a charge made already is answered again, not made twice.
 */
const COUNT_TEST_CALL = `
local record = redis.call('GET', KEYS[2])
local calls = tonumber(redis.call('GET', KEYS[1]) or '0')
if record == 'given' then return {2, calls} end
if record == 'counted' then return {1, calls} end
if calls >= tonumber(ARGV[1]) then return {0, calls} end
calls = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], 'counted', 'EX', ARGV[3])
return {1, calls}
`;

/**
 * One charge given back (KEYS: the counter, the charge's record), never below zero (a counter reset meanwhile stays
 * reset), and at most once; a charge not yet made is marked so that it never will be.
 */
const RETURN_TEST_CALL = `
local record = redis.call('GET', KEYS[2])
if record == 'given' then return 0 end
redis.call('SET', KEYS[2], 'given', 'EX', ARGV[1])
if record ~= 'counted' then return 0 end
local calls = tonumber(redis.call('GET', KEYS[1]) or '0')
if calls > 0 then redis.call('DECR', KEYS[1]) end
return 1
`;

/** One call given back, never below zero: an operator's correction, which names no charge. */
const RETURN_ANY_TEST_CALL = `
local calls = tonumber(redis.call('GET', KEYS[1]) or '0')
if calls > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

/** Calls added once per write id (KEYS: the counter, the write's record), however often the write is sent. */
const ADD_USAGE = `
if not redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[3]) then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
`;

type Script<R> = (...args: unknown[]) => Promise<R>;

/**
 * The monthly usage counters in Redis (REDIS_URL), shared by every instance: a test-key call is counted by one
 * script that increments only below the limit, so concurrent calls on any number of instances are allowed exactly
 * up to the quota, never one more. Each charge and each write carries an id, so a command Redis runs after its
 * sender gave up on it, or runs again when resent, is counted exactly once (spec/DECISIONS.md G32). A month's
 * counters expire after `retentionDays` (the default keeps a year of history); keep Redis persistent (AOF) where
 * counts must survive a restart of Redis itself (README, "Deployment").
 */
export class RedisUsageCounters implements UsageCounters {
  private readonly retentionSeconds: number;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix = 'cls:usage',
    retentionDays = 400,
  ) {
    this.retentionSeconds = retentionDays * 86_400;
    redis.defineCommand('clsCountTestCall', { numberOfKeys: 2, lua: COUNT_TEST_CALL });
    redis.defineCommand('clsReturnTestCall', { numberOfKeys: 2, lua: RETURN_TEST_CALL });
    redis.defineCommand('clsReturnAnyTestCall', { numberOfKeys: 1, lua: RETURN_ANY_TEST_CALL });
    redis.defineCommand('clsAddUsage', { numberOfKeys: 2, lua: ADD_USAGE });
  }

  private key(accountId: string, month: string, env: KeyEnv): string {
    return `${this.keyPrefix}:${accountId}:${month}:${env}`;
  }

  private script<R>(name: string): Script<R> {
    const run = (this.redis as unknown as Record<string, Script<R>>)[name]!;
    return (...args) => run.apply(this.redis, args);
  }

  /**
   * Counts one test-key call if the account is below `limit` this month: atomic across every instance. `charge`
   * names this call's charge (a new one per request), so it can be given back even if this command's answer is lost.
   */
  async countTestCall(
    accountId: string,
    month: string,
    limit: number,
    charge: string = crypto.randomUUID(),
  ): Promise<{ allowed: boolean; calls: number }> {
    const [outcome, calls] = await this.script<[number, number]>('clsCountTestCall')(
      this.key(accountId, month, 'test'),
      this.chargeKey(charge),
      limit,
      this.retentionSeconds,
      COUNT_RECORD_SECONDS,
    );
    // Outcome 2 (given back before it ran) only reaches a caller that sends one charge twice: nothing was counted.
    return { allowed: outcome === 1, calls };
  }

  /**
   * Gives back the charge `charge`, at most once; a charge still on its way to Redis is then never made. Without an
   * id (an operator's correction), one call is given back.
   */
  async returnTestCall(accountId: string, month: string, charge?: string): Promise<void> {
    const key = this.key(accountId, month, 'test');
    if (charge === undefined) {
      await this.script<number>('clsReturnAnyTestCall')(key);
      return;
    }
    await this.script<number>('clsReturnTestCall')(key, this.chargeKey(charge), COUNT_RECORD_SECONDS);
  }

  private chargeKey(charge: string): string {
    return `${this.keyPrefix}:charge:${charge}`;
  }

  /** Adds calls already allowed; with `write`, once for that id however often it is sent. */
  async addUsage(accountId: string, month: string, env: KeyEnv, calls: number, write?: string): Promise<void> {
    const key = this.key(accountId, month, env);
    if (write === undefined) {
      await this.redis.multi().incrby(key, calls).expire(key, this.retentionSeconds).exec();
      return;
    }
    await this.script<number>('clsAddUsage')(
      key,
      `${this.keyPrefix}:write:${write}`,
      calls,
      this.retentionSeconds,
      COUNT_RECORD_SECONDS,
    );
  }

  async usage(accountId: string, month: string, env: KeyEnv): Promise<number> {
    return Number((await this.redis.get(this.key(accountId, month, env))) ?? 0);
  }

  async resetUsage(accountId: string, month: string, env: KeyEnv): Promise<void> {
    await this.redis.del(this.key(accountId, month, env));
  }
}
