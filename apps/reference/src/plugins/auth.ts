import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Route } from '@cls-api/server';
import type { JwtIssuer } from '../auth/jwt.js';
import { ApiError } from '../errors.js';
import { globalPlugin } from '../fastify.js';
import { API_KEY_SHAPE, type AccountStore } from '../store/accounts.js';

export interface AuthOptions extends Record<string, unknown> {
  accounts: AccountStore;
  jwt: JwtIssuer;
}

/** The area whose operations accept a key of any area (DECISIONS G8: the MCP area wraps the others). */
const ANY_KEY_AREA = 'mcp';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Establishes `request.credential` from the scheme the contract gives the operation (`security`): none for the
 * public token operations, `BearerAuth` (JWT) on /v3/pay/, `ApiKeyAuth` elsewhere.
 */
export const auth = globalPlugin<AuthOptions>('auth', async (app: FastifyInstance, { accounts, jwt }) => {
  app.decorateRequest('credential', undefined);

  async function bearer(request: FastifyRequest): Promise<void> {
    const authorization = header(request, 'authorization');
    if (authorization === undefined) {
      if (header(request, 'x-api-key') !== undefined) {
        throw new ApiError('AUTH_FORBIDDEN', 'The payment-deposit area accepts a JWT only.');
      }
      throw new ApiError('AUTH_MISSING_TOKEN', 'Send a JWT in the Authorization header: Bearer <access_token>.');
    }
    const match = /^Bearer +([^ ]+)$/i.exec(authorization.trim());
    if (!match) throw new ApiError('AUTH_INVALID_TOKEN', 'The Authorization header must be Bearer <access_token>.');
    const outcome = await jwt.verify(match[1]!, request.now);
    if (outcome.kind === 'expired') throw new ApiError('AUTH_EXPIRED_TOKEN', 'The JWT has expired. Refresh it and retry.');
    if (outcome.kind === 'invalid' || !accounts.getAccount(outcome.accountId)) {
      throw new ApiError('AUTH_INVALID_TOKEN', 'The JWT is invalid.');
    }
    request.credential = { kind: 'jwt', accountId: outcome.accountId };
  }

  function apiKey(request: FastifyRequest, route: Route): void {
    const key = header(request, 'x-api-key');
    if (key === undefined || key === '') throw new ApiError('AUTH_MISSING_TOKEN', 'Send your API key in the X-API-Key header.');
    const identity = API_KEY_SHAPE.test(key) ? accounts.findApiKey(key) : undefined;
    if (!identity) throw new ApiError('AUTH_INVALID_TOKEN', 'The API key is invalid.');
    if (identity.area !== route.area && route.area !== ANY_KEY_AREA) {
      throw new ApiError('AUTH_FORBIDDEN', 'This API key is not valid for this area.');
    }
    if (identity.env === 'live' && !identity.paid) {
      throw new ApiError('AUTH_FORBIDDEN', 'Live keys need a paid subscription.');
    }
    request.credential = { kind: 'api_key', accountId: identity.account_id, keyArea: identity.area, env: identity.env };
  }

  app.addHook('onRequest', async (request) => {
    const route = request.operation;
    if (!route) {
      // An empty path parameter matched a route, but addresses no operation.
      if (request.routeOptions.config.operation) throw new ApiError('NOT_FOUND', `No operation ${request.method} ${request.url.split('?')[0]}.`);
      return; // no route at all: the not-found handler answers
    }
    const schemes: readonly string[] = route.security;
    if (schemes.length === 0) {
      request.credential = { kind: 'public' };
    } else if (schemes.includes('BearerAuth')) {
      await bearer(request);
    } else if (schemes.includes('ApiKeyAuth')) {
      apiKey(request, route);
    } else {
      throw new Error(`operation ${route.operationId} uses security schemes ${schemes.join(', ')}, which this server does not implement`);
    }
  });
});
