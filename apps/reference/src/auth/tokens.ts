import type { Handlers } from '@cls-api/server';
import type { Environment } from '../environment.js';
import { ApiError } from '../errors.js';
import type { AccountStore, RefreshTokens } from '../store/interface.js';
import { whenUnlocked } from '../store/busy.js';
import type { JwtIssuer } from './jwt.js';

export type TokenHandlers = Pick<Handlers, 'createAccessToken' | 'refreshAccessToken'>;

/** The two public token operations (DECISIONS: createAccessToken, refreshAccessToken). */
export function createTokenHandlers(deps: {
  accounts: AccountStore;
  /** The database's refresh tokens (`accounts`), or Redis's with REDIS_URL. */
  refreshTokens: RefreshTokens;
  jwt: JwtIssuer;
  refreshTokenTtlSeconds: number;
  /** How long a token write waits for the write lock held by another connection (src/store/busy.ts). */
  lockTimeoutMs: number;
}): TokenHandlers {
  const { accounts, refreshTokens, jwt, refreshTokenTtlSeconds, lockTimeoutMs } = deps;

  async function respond(grant: { accountId: string; environment: Environment }, refreshToken: string, now: Date) {
    const access = await jwt.sign(grant.accountId, grant.environment, now);
    return {
      data: {
        access_token: access.token,
        token_type: 'Bearer' as const,
        expires_in: access.expiresIn,
        refresh_token: refreshToken,
        refresh_token_expires_in: refreshTokenTtlSeconds,
        environment: grant.environment,
      },
    };
  }

  return {
    async createAccessToken({ body }, ctx) {
      const client = await accounts.verifyClient(body.client_id, body.client_secret);
      if (!client) throw new ApiError('AUTH_INVALID_TOKEN', 'The client credentials are invalid.');
      const refresh = await whenUnlocked(
        () =>
          refreshTokens.issueRefreshToken(
            { accountId: client.account_id, clientId: body.client_id, ttlSeconds: refreshTokenTtlSeconds },
            ctx.now,
          ),
        lockTimeoutMs,
      );
      return respond({ accountId: client.account_id, environment: client.environment }, refresh.refresh_token, ctx.now);
    },

    async refreshAccessToken({ body }, ctx) {
      const outcome = await whenUnlocked(
        () => refreshTokens.renewRefreshToken(body.refresh_token, refreshTokenTtlSeconds, ctx.now),
        lockTimeoutMs,
      );
      // AUTH_EXPIRED_TOKEN means "refresh now", so it cannot answer a refresh: an expired refresh token is invalid
      // like any other that cannot be used (spec/components/responses/UnauthorizedRefresh.yaml).
      if (outcome.kind === 'expired') {
        throw new ApiError(
          'AUTH_INVALID_TOKEN',
          'The refresh token has expired. Obtain a new token with the client credentials.',
        );
      }
      if (outcome.kind === 'invalid' || !('refresh_token' in outcome))
        throw new ApiError('AUTH_INVALID_TOKEN', 'The refresh token is invalid.');
      return respond(
        { accountId: outcome.account_id, environment: outcome.environment },
        outcome.refresh_token,
        ctx.now,
      );
    },
  };
}
