import type { GatewayLimit } from '@cls-api/spec';
import type { Redis } from 'ioredis';

/**
 * Where the gateway's token buckets live (one per tier and source address): in this process, or in Redis, shared by
 * every instance behind one address (REDIS_URL), so that the limit stays per address across the whole service.
 */
export interface GatewayBuckets {
  /**
   * Takes one token from the address's bucket in each of `tiers` (indexes into the configured tiers) when every one
   * of them has a token, else takes none and answers false.
   */
  take(ip: string, tiers: readonly number[], nowMs: number): boolean | Promise<boolean>;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/** One token bucket per source address, in this process's memory. */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private sinceSweep = 0;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
  ) {}

  private refill(ip: string, nowMs: number): Bucket {
    let bucket = this.buckets.get(ip);
    if (!bucket) {
      bucket = { tokens: this.burst, updatedMs: nowMs };
      this.buckets.set(ip, bucket);
      return bucket;
    }
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    bucket.tokens = Math.min(this.burst, bucket.tokens + elapsed * this.ratePerSecond);
    bucket.updatedMs = Math.max(bucket.updatedMs, nowMs);
    return bucket;
  }

  hasToken(ip: string, nowMs: number): boolean {
    return this.refill(ip, nowMs).tokens >= 1;
  }

  take(ip: string, nowMs: number): void {
    this.refill(ip, nowMs).tokens -= 1;
    // A full bucket holds no information: forget it now and then so that idle addresses do not pile up.
    if (++this.sinceSweep >= 1000) {
      this.sinceSweep = 0;
      for (const key of this.buckets.keys()) {
        if (key !== ip && this.refill(key, nowMs).tokens >= this.burst) this.buckets.delete(key);
      }
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

/** The buckets of one process: exact for that process, so per address only while one instance serves it. */
export class MemoryGatewayBuckets implements GatewayBuckets {
  private readonly tiers: TokenBuckets[];

  constructor(tiers: readonly GatewayLimit[]) {
    this.tiers = tiers.map((t) => new TokenBuckets(t.ratePerSecond, t.burst));
  }

  take(ip: string, tiers: readonly number[], nowMs: number): boolean {
    const buckets = tiers.map((i) => this.tiers[i]!);
    if (!buckets.every((b) => b.hasToken(ip, nowMs))) return false;
    for (const b of buckets) b.take(ip, nowMs);
    return true;
  }
}

/**
 * The same buckets in Redis: one script reads, refills and takes from every bucket of the request in one atomic
 * step, so concurrent requests on different instances never both take a bucket's last token. A bucket is a hash
 * (tokens, updated). Time is the instance's request time (its clock, or a test's), and a bucket never moves back
 * in time, so an instance whose clock lags gives no extra tokens. An address idle for `IDLE_EXPIRY_SECONDS` has
 * its buckets dropped by Redis: on Redis's own clock, so the bound is far past the moment a bucket is full again
 * (under two seconds at the contract's rates), and a fake clock held still by a test cannot outlast it.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local state = {}
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i])
  local burst = tonumber(ARGV[2 * i + 1])
  local stored = redis.call('HMGET', key, 'tokens', 'updated')
  local tokens = tonumber(stored[1])
  local updated = tonumber(stored[2])
  if tokens == nil then
    tokens = burst
    updated = now
  elseif now > updated then
    tokens = math.min(burst, tokens + (now - updated) / 1000 * rate)
    updated = now
  end
  if tokens < 1 then return 0 end
  state[i] = { tokens, updated }
end
for i, key in ipairs(KEYS) do
  redis.call('HSET', key, 'tokens', tostring(state[i][1] - 1), 'updated', tostring(state[i][2]))
  redis.call('EXPIRE', key, tonumber(ARGV[#ARGV]))
end
return 1
`;

/** How long Redis keeps the buckets of an address that sends nothing. */
const IDLE_EXPIRY_SECONDS = 3600;

export class RedisGatewayBuckets implements GatewayBuckets {
  constructor(
    private readonly redis: Redis,
    private readonly tiers: readonly GatewayLimit[],
    /** Prefix of every key this server writes, so that one Redis can serve several deployments. */
    private readonly keyPrefix = 'cls:gateway',
  ) {
    redis.defineCommand('clsGatewayTake', { lua: TAKE_SCRIPT });
  }

  async take(ip: string, tiers: readonly number[], nowMs: number): Promise<boolean> {
    // `{ip}` is the hash tag: on a Redis Cluster all of one address's buckets are on one node, as one script needs.
    const keys = tiers.map((i) => `${this.keyPrefix}:{${ip}}:${this.tiers[i]!.appliesTo}`);
    const args = [...tiers.flatMap((i) => [this.tiers[i]!.ratePerSecond, this.tiers[i]!.burst]), IDLE_EXPIRY_SECONDS];
    const take = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<number>>).clsGatewayTake!;
    const taken = await take.call(this.redis, keys.length, ...keys, nowMs, ...args);
    return taken === 1;
  }
}
