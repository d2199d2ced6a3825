import type { Handlers } from '@cls-api/server';
import type { Environment } from '../environment.js';
import { ApiError } from '../errors.js';
import type { AccountStore } from '../store/accounts.js';
import type { JwtIssuer } from './jwt.js';

export type TokenHandlers = Pick<Handlers, 'createAccessToken' | 'refreshAccessToken'>;

/** The two public token operations (DECISIONS: createAccessToken, refreshAccessToken). */
export function createTokenHandlers(deps: { accounts: AccountStore; jwt: JwtIssuer; refreshTokenTtlSeconds: number }): TokenHandlers {
  const { accounts, jwt, refreshTokenTtlSeconds } = deps;

  async function issue(grant: { accountId: string; clientId: string; environment: Environment; familyId?: string }, now: Date) {
    const access = await jwt.sign(grant.accountId, grant.environment, now);
    const refresh = accounts.issueRefreshToken(
      { accountId: grant.accountId, clientId: grant.clientId, ttlSeconds: refreshTokenTtlSeconds, ...(grant.familyId ? { familyId: grant.familyId } : {}) },
      now,
    );
    return {
      data: {
        access_token: access.token,
        token_type: 'Bearer' as const,
        expires_in: access.expiresIn,
        refresh_token: refresh.refresh_token,
        refresh_token_expires_in: refreshTokenTtlSeconds,
        environment: grant.environment,
      },
    };
  }

  return {
    async createAccessToken({ body }, ctx) {
      const client = accounts.verifyClient(body.client_id, body.client_secret);
      if (!client) throw new ApiError('AUTH_INVALID_TOKEN', 'The client credentials are invalid.');
      return issue({ accountId: client.account_id, clientId: body.client_id, environment: client.environment }, ctx.now);
    },

    async refreshAccessToken({ body }, ctx) {
      const outcome = accounts.useRefreshToken(body.refresh_token, ctx.now);
      // AUTH_EXPIRED_TOKEN means "refresh now", so it cannot answer a refresh: an expired refresh token is invalid
      // like any other that cannot be used (spec/components/responses/UnauthorizedRefresh.yaml).
      if (outcome.kind === 'expired') {
        throw new ApiError('AUTH_INVALID_TOKEN', 'The refresh token has expired. Obtain a new token with the client credentials.');
      }
      if (outcome.kind === 'invalid') throw new ApiError('AUTH_INVALID_TOKEN', 'The refresh token is invalid.');
      return issue(
        { accountId: outcome.account_id, clientId: outcome.client_id, environment: outcome.environment, familyId: outcome.family_id },
        ctx.now,
      );
    },
  };
}
