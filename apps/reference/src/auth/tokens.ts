import type { Handlers } from '@cls-api/server';
import { ApiError } from '../errors.js';
import type { AccountStore } from '../store/accounts.js';
import type { JwtIssuer } from './jwt.js';

export type TokenHandlers = Pick<Handlers, 'createAccessToken' | 'refreshAccessToken'>;

/** The two public token operations (DECISIONS: createAccessToken, refreshAccessToken). */
export function createTokenHandlers(deps: { accounts: AccountStore; jwt: JwtIssuer; refreshTokenTtlSeconds: number }): TokenHandlers {
  const { accounts, jwt, refreshTokenTtlSeconds } = deps;

  async function issue(accountId: string, clientId: string, familyId: string | undefined, now: Date) {
    const access = await jwt.sign(accountId, now);
    const refresh = accounts.issueRefreshToken({ accountId, clientId, ttlSeconds: refreshTokenTtlSeconds, ...(familyId ? { familyId } : {}) }, now);
    return {
      data: {
        access_token: access.token,
        token_type: 'Bearer' as const,
        expires_in: access.expiresIn,
        refresh_token: refresh.refresh_token,
        refresh_token_expires_in: refreshTokenTtlSeconds,
      },
    };
  }

  return {
    async createAccessToken({ body }, ctx) {
      const accountId = accounts.verifyClient(body.client_id, body.client_secret);
      if (!accountId) throw new ApiError('AUTH_INVALID_TOKEN', 'The client credentials are invalid.');
      return issue(accountId, body.client_id, undefined, ctx.now);
    },

    async refreshAccessToken({ body }, ctx) {
      const outcome = accounts.useRefreshToken(body.refresh_token, ctx.now);
      if (outcome.kind === 'expired') throw new ApiError('AUTH_EXPIRED_TOKEN', 'The refresh token has expired.');
      if (outcome.kind === 'invalid') throw new ApiError('AUTH_INVALID_TOKEN', 'The refresh token is invalid.');
      return issue(outcome.account_id, outcome.client_id, outcome.family_id, ctx.now);
    },
  };
}
