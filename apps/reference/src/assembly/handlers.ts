// Every operation's handler: the domain's, which see the credential's environment, and the token operations.
import type { Redis } from 'ioredis';
import { assertHandlersComplete } from '@cls-api/server';
import type { JwtIssuer } from '../auth/jwt.js';
import { createTokenHandlers, type TokenHandlers } from '../auth/tokens.js';
import type { Config } from '../config.js';
import type { DomainHandlers } from '../domain/vocabulary.js';
import { RedisRefreshTokens } from '../limits/redis-refresh-tokens.js';
import type { AccountStore } from '../store/interface.js';

export type ServerHandlers = DomainHandlers & TokenHandlers;

export function serverHandlers(input: {
  config: Config;
  domain: DomainHandlers;
  accounts: AccountStore;
  jwt: JwtIssuer;
  redis: Redis | undefined;
}): ServerHandlers {
  const { config, accounts, redis } = input;
  const handlers: ServerHandlers = {
    ...input.domain,
    ...createTokenHandlers({
      accounts,
      // With REDIS_URL the refresh tokens are shared by every instance (src/limits/redis-refresh-tokens.ts).
      refreshTokens: redis ? new RedisRefreshTokens(redis, accounts) : accounts,
      jwt: input.jwt,
      refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
      lockTimeoutMs: config.dbLockTimeoutMs,
    }),
  };
  // The types make a missing handler a compile error; this catches it at start-up in builds that drifted.
  assertHandlersComplete(handlers);
  return handlers;
}
