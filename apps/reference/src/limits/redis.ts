import { Redis } from 'ioredis';
import { ConfigError } from '../config.js';
import { withoutPassword } from '../store/storage.js';

/**
 * Connects to REDIS_URL and checks it answers, before the server listens: a Redis it cannot use is an error at
 * start naming REDIS_URL, never a server that fails its first requests. Once running, a command is not queued
 * while Redis is away: it fails at once (the request is 500 INTERNAL_ERROR, logged) and the client reconnects.
 */
export async function openRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    // Only the start-up check is told about a failed connection; later, the client keeps trying in the background.
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  });
  // The client reports why a connection failed as an event; the rejected promise only says it closed.
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (err) {
    redis.disconnect();
    const reason = lastError?.message ?? (err instanceof Error ? err.message : String(err));
    throw new ConfigError([`REDIS_URL: cannot use ${withoutPassword(url)}: ${reason}`]);
  }
}
