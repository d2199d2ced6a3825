import type { FastifyInstance } from 'fastify';
import type { OperationInfo } from '@cls-api/spec';
import { ApiError } from '../errors.js';
import { globalPlugin } from '../fastify.js';
import { monthKey, startOfNextMonth } from '../service-time.js';
import type { AccountStore } from '../store/accounts.js';

export interface QuotaOptions extends Record<string, unknown> {
  accounts: AccountStore;
  timeZone: string;
  testKeyMonthlyQuota: number;
  operations: ReadonlyMap<string, OperationInfo>;
}

const LIMIT = 'X-RateLimit-Limit';
const REMAINING = 'X-RateLimit-Remaining';
const RESET = 'X-RateLimit-Reset';
const RETRY_AFTER = 'Retry-After';

const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * The monthly quota. Test keys: one call counted per request that passed authentication, 1,000 a month per
 * account over all its test keys, then 429 with Retry-After. Live keys: counted, never refused. JWT: none.
 * The X-RateLimit-* headers go on a test-key response exactly when the contract declares them on the
 * operation's response of that status (DECISIONS G10), and Retry-After only on the quota's own 429.
 */
export const quota = globalPlugin<QuotaOptions>('quota', async (app: FastifyInstance, options) => {
  const { accounts, timeZone, testKeyMonthlyQuota: limit, operations } = options;
  app.decorateRequest('quota', undefined);

  app.addHook('onRequest', async (request) => {
    const credential = request.credential;
    if (credential?.kind !== 'api_key') return;
    const month = monthKey(request.now, timeZone);
    if (credential.environment === 'live') {
      accounts.countLiveCall(credential.accountId, month);
      return;
    }
    const counted = accounts.countTestCall(credential.accountId, month, limit);
    const reset = startOfNextMonth(request.now, timeZone);
    request.quota = { limit, remaining: Math.max(0, limit - counted.calls), reset, exhausted: !counted.allowed };
    if (!counted.allowed) throw new ApiError('RATE_LIMIT_EXCEEDED', 'The monthly quota of test API calls is used up.');
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const state = request.quota;
    const route = request.operation;
    if (!state || !route) return payload;
    const declared = operations.get(route.operationId)?.responses[String(reply.statusCode)]?.headers ?? {};
    if (LIMIT in declared) reply.header(LIMIT, state.limit);
    if (REMAINING in declared) reply.header(REMAINING, state.remaining);
    if (RESET in declared) reply.header(RESET, epochSeconds(state.reset));
    if (state.exhausted && reply.statusCode === 429 && RETRY_AFTER in declared) {
      reply.header(RETRY_AFTER, Math.max(0, Math.ceil((state.reset.getTime() - request.now.getTime()) / 1000)));
    }
    return payload;
  });
});
