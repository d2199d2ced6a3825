import type { FastifyInstance, FastifyRequest } from 'fastify';
import { noOperationMessage, routes } from '@cls-api/server';
import type { JwtIssuer } from '../auth/jwt.js';
import { ApiKeyCache } from '../auth/key-cache.js';
import { contract } from '../contract-facts.js';
import { ApiError } from '../errors.js';
import { pathOf } from '../request.js';
import fp from 'fastify-plugin';
import { API_KEY_SHAPE, type AccountStore } from '../store/interface.js';

export interface AuthOptions extends Record<string, unknown> {
  accounts: AccountStore;
  jwt: JwtIssuer;
  /** How long a looked-up key is remembered (API_KEY_CACHE_MS; 0: every request reads the store). */
  apiKeyCacheMs: number;
}

/**
 * What a credential is checked for: an operation's area and security schemes. The sandbox's helpers (DECISIONS G31)
 * are not in an area: their schemes take a key of every area, and a JWT of any audience (`anyArea`).
 */
export interface AuthTarget {
  area: string;
  security: readonly string[];
  anyArea?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Establishes `request.credential` for a target that is not a contract operation (the sandbox's helpers). */
    authenticate(request: FastifyRequest, target: AuthTarget): Promise<void>;
  }
}

/** A header's value; an empty header counts as not sent. */
function header(request: FastifyRequest, name: string): string | undefined {
  const raw = request.headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Establishes `request.credential` from the schemes the contract gives the operation (`security`): none for the
 * public token operations, the API key schemes of the operation's area (`WmsApiKey`: a key whose area is `wms`;
 * every area's on `/v3/mcp/`, DECISIONS G8), `BearerAuth` (JWT), or either (the manager area). Where either is
 * accepted and both are sent, the API key is used (DECISIONS G22). The credential names the account and the
 * environment its data lives in (G20, G21).
 */
export const auth = fp<AuthOptions>(
  async (app: FastifyInstance, { accounts, jwt, apiKeyCacheMs }) => {
    app.decorateRequest('credential', undefined);
    const keys = new ApiKeyCache(apiKeyCacheMs);
    const findApiKey = (key: string) => accounts.findApiKey(key);

    // A scheme this server does not implement would leave an operation open or shut: refuse to start instead.
    const accepted = contract().accepted;
    for (const route of routes) {
      const { unknown } = accepted(route.security);
      if (unknown.length)
        throw new Error(
          `operation ${route.operationId} uses security schemes ${unknown.join(', ')}, which this server does not implement`,
        );
    }

    async function bearer(request: FastifyRequest, route: AuthTarget, alsoKey: boolean): Promise<void> {
      const authorization = header(request, 'authorization');
      if (authorization === undefined) {
        if (!alsoKey && header(request, 'x-api-key') !== undefined) {
          throw new ApiError('AUTH_FORBIDDEN', 'The payment-deposit area accepts a JWT only.');
        }
        throw new ApiError(
          'AUTH_MISSING_TOKEN',
          alsoKey
            ? 'Send your API key in the X-API-Key header, or a JWT in the Authorization header: Bearer <access_token>.'
            : 'Send a JWT in the Authorization header: Bearer <access_token>.',
        );
      }
      const match = /^Bearer +([^ ]+)$/i.exec(authorization.trim());
      if (!match) throw new ApiError('AUTH_INVALID_TOKEN', 'The Authorization header must be Bearer <access_token>.');
      const outcome = await jwt.verify(match[1]!, request.now, route.anyArea ? jwt.audience : route.area);
      if (outcome.kind === 'expired')
        throw new ApiError('AUTH_EXPIRED_TOKEN', 'The JWT has expired. Refresh it and retry.');
      const account = outcome.kind === 'ok' ? await accounts.getAccount(outcome.accountId) : undefined;
      if (outcome.kind === 'invalid' || !account) throw new ApiError('AUTH_INVALID_TOKEN', 'The JWT is invalid.');
      // Live data needs the paid subscription on every call, whichever credential reaches it (DECISIONS G19).
      if (outcome.environment === 'live' && !account.paid)
        throw new ApiError('AUTH_FORBIDDEN', 'Live access needs a paid subscription.');
      request.credential = { kind: 'jwt', accountId: outcome.accountId, environment: outcome.environment };
    }

    async function apiKey(
      request: FastifyRequest,
      keyAreas: readonly string[],
      key: string | undefined,
    ): Promise<void> {
      if (key === undefined) throw new ApiError('AUTH_MISSING_TOKEN', 'Send your API key in the X-API-Key header.');
      const identity = API_KEY_SHAPE.test(key) ? await keys.lookup(key, request.now.getTime(), findApiKey) : undefined;
      if (!identity) throw new ApiError('AUTH_INVALID_TOKEN', 'The API key is invalid.');
      if (!keyAreas.includes(identity.area)) {
        throw new ApiError('AUTH_FORBIDDEN', 'This API key is not valid for this area.');
      }
      if (identity.env === 'live' && !identity.paid) {
        throw new ApiError('AUTH_FORBIDDEN', 'Live keys need a paid subscription.');
      }
      request.credential = {
        kind: 'api_key',
        accountId: identity.account_id,
        keyArea: identity.area,
        environment: identity.env,
      };
    }

    async function authenticateFor(request: FastifyRequest, route: AuthTarget): Promise<void> {
      const { keyAreas, jwt: acceptsJwt } = accepted(route.security);
      const acceptsKey = keyAreas.length > 0;
      const key = header(request, 'x-api-key');
      if (!acceptsKey && !acceptsJwt) {
        request.credential = { kind: 'public' };
      } else if (acceptsKey && (!acceptsJwt || key !== undefined)) {
        await apiKey(request, keyAreas, key);
      } else {
        await bearer(request, route, acceptsKey);
      }
    }
    app.decorate('authenticate', authenticateFor);

    app.addHook('onRequest', async function authenticate(request) {
      const route = request.operation;
      if (!route) {
        // An empty path parameter matched a route, but addresses no operation.
        if (request.routeOptions.config.operation)
          throw new ApiError('NOT_FOUND', noOperationMessage(request.method, pathOf(request.url)));
        return; // no route at all (the not-found handler answers), or the sandbox's, which authenticates its own
      }
      await authenticateFor(request, route);
    });
  },
  { name: 'auth', fastify: '5.x', dependencies: ['gateway-rate-limit', 'json-body'] },
);
