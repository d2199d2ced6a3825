import { Redis } from 'ioredis';
import { ConfigError } from '../config.js';
import { withoutPassword } from '../store/storage.js';

/** REDIS_COMMAND_TIMEOUT_MS's default: how long one command may take before the request that sent it fails. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/**
 * The Redis database a URL names: its host, its port (6379 when none is given) and its database index (0 when none
 * is given), without the credentials. Two URLs that differ only in spelling (`redis://h:6379/0`, `redis://h`) name
 * the same one, so `admin quota reset` can tell the Redis the servers recorded from another one.
 */
export function redisDatabaseOf(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\/+/, '') || parsed.searchParams.get('db') || '0';
  return `${parsed.hostname.toLowerCase()}:${parsed.port || '6379'}/${Number(db)}`;
}

/**
 * Connects to REDIS_URL and checks it answers, before the server listens: a Redis it cannot use is an error at
 * start naming REDIS_URL, never a server that fails its first requests. Once running, a command is not queued
 * while Redis is away: it fails at once (the request is 500 INTERNAL_ERROR, logged) and the client reconnects. A
 * Redis that is there but does not answer (stopped, swapping, a long script) fails each command after
 * `commandTimeoutMs`, so requests never pile up behind it; its late answers are dropped, and the next commands are
 * served as soon as it answers again.
 */
export async function openRedis(url: string, commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS): Promise<Redis> {
  const redis = new Redis(url, {
    commandTimeout: commandTimeoutMs,
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
