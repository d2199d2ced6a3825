import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AccountStore, RefreshOutcome, RefreshTokens } from '../store/interface.js';
import { newRefreshToken, sha256 } from '../store/sql-accounts.js';

const epoch = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * Spends a refresh token and issues the next of its family in one atomic step, as the database's transaction does
 * (`src/store/sql-accounts.ts`): a token presented to two instances at once works once; a spent token presented
 * again was copied, so its whole family ends; an expired one is refused. KEYS[1] is the token presented, KEYS[2]
 * the next one's; ARGV: now (epoch seconds), the next one's lifetime (seconds), the key prefix of families.
 */
const SPEND_AND_RENEW = `
local token = redis.call('HMGET', KEYS[1], 'account_id', 'client_id', 'family_id', 'expires_at', 'used')
if not token[1] then return {'invalid'} end
local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local ended = ARGV[3] .. token[3] .. ':ended'
if redis.call('EXISTS', ended) == 1 then return {'invalid'} end
if token[5] == '1' then
  redis.call('SET', ended, '1', 'EX', ttl)
  return {'invalid'}
end
if now >= tonumber(token[4]) then return {'expired'} end
redis.call('HSET', KEYS[1], 'used', '1')
redis.call('HSET', KEYS[2], 'account_id', token[1], 'client_id', token[2], 'family_id', token[3],
  'expires_at', tostring(now + ttl), 'used', '0')
redis.call('EXPIRE', KEYS[2], 2 * ttl)
return {'ok', token[1], token[2], token[3]}
`;

/**
 * Refresh tokens in Redis (REDIS_URL), for every instance: kept only as SHA-256 hashes, each record kept for twice
 * its lifetime so that a spent token presented again is still recognised. Whether a token has expired is decided on
 * the server's time (its clock, or a test's), as in the database; Redis's own expiry, on Redis's clock, only clears
 * records long past use. The client credentials stay in the
 * database: a refresh of a client whose credentials were revoked is refused, and the environment a refreshed token
 * grants is its client's (DECISIONS G21). One Redis (or its primary): the script touches its family's key, which a
 * Redis Cluster could not route with the token's.
 */
export class RedisRefreshTokens implements RefreshTokens {
  constructor(
    private readonly redis: Redis,
    private readonly accounts: Pick<AccountStore, 'activeClient'>,
    private readonly keyPrefix = 'cls:refresh',
  ) {
    redis.defineCommand('clsRefreshSpendAndRenew', { numberOfKeys: 2, lua: SPEND_AND_RENEW });
  }

  private key(token: string): string {
    return `${this.keyPrefix}:token:${sha256(token)}`;
  }

  async issueRefreshToken(
    input: { accountId: string; clientId: string; familyId?: string; ttlSeconds: number },
    now: Date,
  ): Promise<{ refresh_token: string; family_id: string }> {
    const token = newRefreshToken();
    const familyId = input.familyId ?? randomUUID();
    const key = this.key(token);
    const expiresAt = epoch(now) + input.ttlSeconds;
    await this.redis
      .multi()
      .hset(key, {
        account_id: input.accountId,
        client_id: input.clientId,
        family_id: familyId,
        expires_at: String(expiresAt),
        used: '0',
      })
      .expire(key, 2 * input.ttlSeconds)
      .exec();
    return { refresh_token: token, family_id: familyId };
  }

  async renewRefreshToken(
    refreshToken: string,
    ttlSeconds: number,
    now: Date,
  ): Promise<RefreshOutcome | (Extract<RefreshOutcome, { kind: 'ok' }> & { refresh_token: string })> {
    const next = newRefreshToken();
    const run = (this.redis as unknown as Record<string, (...a: unknown[]) => Promise<string[]>>)
      .clsRefreshSpendAndRenew!;
    const [kind, accountId, clientId, familyId] = await run.call(
      this.redis,
      this.key(refreshToken),
      this.key(next),
      epoch(now),
      ttlSeconds,
      `${this.keyPrefix}:family:`,
    );
    if (kind === 'expired') return { kind: 'expired' };
    if (kind !== 'ok') return { kind: 'invalid' };
    const client = await this.accounts.activeClient(clientId!);
    if (!client) {
      await this.redis.del(this.key(next));
      return { kind: 'invalid' };
    }
    return {
      kind: 'ok',
      account_id: accountId!,
      client_id: clientId!,
      family_id: familyId!,
      environment: client.environment,
      refresh_token: next,
    };
  }
}
