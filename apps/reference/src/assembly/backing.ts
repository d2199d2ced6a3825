// What the server keeps its state in besides the routes: how it opens storage, and with REDIS_URL the Redis that holds the
// gateway buckets, the monthly usage counters and the refresh tokens shared by every instance (src/limits/).
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { type Config, databaseOptions } from '../config.js';
import { openRedis } from '../limits/redis.js';
import { RedisUsageCounters } from '../limits/redis-usage.js';
import { SERVER_BUSY_TIMEOUT_MS } from '../store/busy.js';
import type { Storage, UsageCounters } from '../store/interface.js';
import { type StorageOptions, withoutPassword } from '../store/storage.js';

/** How the server opens `DATABASE`: as every command does, and a log line when PostgreSQL drops an idle connection. */
export function storageOptions(config: Config, logger: Pick<FastifyBaseLogger, 'warn'>): StorageOptions {
  return {
    ...databaseOptions(config),
    // The pool replaces the connection; a request that needed it meanwhile failed with 500 and was logged.
    onIdleError: (err) => logger.warn({ err }, 'database: an idle connection failed'),
  };
}

/**
 * better-sqlite3 waits for a lock inside the call, holding the event loop: the server's connection waits only
 * briefly, and a write that finds the lock held elsewhere waits on timers instead (src/store/busy.ts).
 */
export function waitForLocksOnTimers(storage: Storage): void {
  const sqlite = (storage as { sqlite?: { pragma(source: string): unknown } }).sqlite;
  sqlite?.pragma(`busy_timeout = ${SERVER_BUSY_TIMEOUT_MS}`);
}

export interface SharedState {
  /** With REDIS_URL: the connection the limits share. */
  redis: Redis | undefined;
  /** The monthly usage counters the quota uses: the database's, or Redis's with REDIS_URL. */
  usageCounters: UsageCounters;
}

/** Opens Redis with REDIS_URL, and records in the database where the usage counters are kept. */
export async function openSharedState(
  config: Config,
  storage: Storage,
  logger: FastifyBaseLogger,
  now: Date,
): Promise<SharedState> {
  const redis = config.redisUrl ? await openRedis(config.redisUrl, config.redisCommandTimeoutMs) : undefined;
  // With REDIS_URL the counters are shared by every instance through Redis (src/limits/redis-usage.ts).
  const usageCounters: UsageCounters = redis ? new RedisUsageCounters(redis) : storage.accounts;
  // Said in the database, so that the operator's `admin quota reset` acts where the servers count (src/cli.ts).
  await storage.accounts
    .recordUsageCounters(
      config.redisUrl ? { kind: 'redis', url: withoutPassword(config.redisUrl) } : { kind: 'database' },
      now,
    )
    .catch((err: unknown) => logger.warn({ err }, 'database: where the usage counters are kept was not recorded'));
  return { redis, usageCounters };
}
