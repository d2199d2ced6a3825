// The server's plugins (src/plugins/) in their order. Order matters: CORS answers preflights before anything counts
// them; the connection limit and the gateway limit count every other request; a declared body over the limit is
// refused before auth; auth establishes the caller; the test clock gives test data its time and a forced outcome of the
// sandbox is read, before the quota, which counts authenticated test-key calls (never a forced outcome); the envelope wraps
// successes; error mapping answers failures, on every route added after it (the OPTIONS route too, so its refusals
// are in the envelope); graceful close marks the responses sent while closing; in strict-contract mode every response
// is checked last.
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { JwtIssuer } from '../auth/jwt.js';
import type { Config } from '../config.js';
import type { Contract } from '../contract-facts.js';
import { MemoryGatewayBuckets, RedisGatewayBuckets } from '../limits/gateway-buckets.js';
import { auth } from '../plugins/auth.js';
import { connectionLimit } from '../plugins/connection-limit.js';
import { contractCheck } from '../plugins/contract-check.js';
import { cors, corsOptionsRoute } from '../plugins/cors.js';
import { envelope } from '../plugins/envelope.js';
import { errorMapping } from '../plugins/error-mapping.js';
import { gatewayRateLimit } from '../plugins/gateway-rate-limit.js';
import { gracefulClose } from '../plugins/graceful-close.js';
import { incompleteRequests } from '../plugins/incomplete-requests.js';
import { jsonBody } from '../plugins/json-body.js';
import { queryEscapes } from '../plugins/query-escapes.js';
import { quota } from '../plugins/quota.js';
import { forcedOutcomes, sandboxHelpers, testClock } from '../plugins/sandbox.js';
import type { SandboxClocks } from '../sandbox/clock.js';
import type { SandboxFacts } from '../sandbox/facts.js';
import type { AccountStore, UsageCounters } from '../store/interface.js';

export interface PluginInputs {
  config: Config;
  spec: Contract;
  accounts: AccountStore;
  usageCounters: UsageCounters;
  jwt: JwtIssuer;
  redis: Redis | undefined;
  /** Strict-contract mode's record of what the contract does not allow. */
  violations: string[];
  /** The sandbox document (spec/sandbox/openapi.yaml) and the accounts' test clocks. */
  sandbox: SandboxFacts;
  clocks: SandboxClocks;
}

export async function registerPlugins(app: FastifyInstance, inputs: PluginInputs): Promise<void> {
  const { config, spec, accounts, usageCounters, jwt, redis, violations, sandbox, clocks } = inputs;
  await app.register(cors, {
    origins: config.corsOrigins,
    operations: spec.operations,
    credentialHeaders: spec.credentialHeaders,
    declaredResponseHeaders: spec.declaredResponseHeaders,
    sandbox: {
      operations: sandbox.operations,
      requestHeaders: [sandbox.outcomes.outcomeHeader, sandbox.outcomes.failedRowsHeader],
    },
  });
  await app.register(connectionLimit, {
    maxPerAddress: config.maxConnectionsPerAddress,
    trustedProxies: config.trustedProxies,
  });
  await app.register(incompleteRequests, { max: config.maxIncompleteRequests });
  const tiers = config.gatewayLimits;
  await app.register(gatewayRateLimit, {
    tiers,
    buckets: redis ? new RedisGatewayBuckets(redis, tiers) : new MemoryGatewayBuckets(tiers),
  });
  await app.register(queryEscapes);
  await app.register(jsonBody, { bodyLimit: config.bodyLimitBytes, operationLimits: spec.operationBodyLimits });
  await app.register(auth, { accounts, jwt, apiKeyCacheMs: config.apiKeyCacheMs });
  await app.register(testClock, { clocks });
  await app.register(forcedOutcomes, {
    sandbox,
    spec,
    quotaHeaders: spec.model.quotaHeaders,
    timeZone: config.serviceTimeZone,
  });
  await app.register(quota, {
    counters: usageCounters,
    timeZone: config.serviceTimeZone,
    testKeyMonthlyQuota: config.testKeyMonthlyQuota,
    operations: spec.operations,
    headers: spec.model.quotaHeaders,
    lockTimeoutMs: config.dbLockTimeoutMs,
    liveUsageFlushMs: config.liveUsageFlushMs,
  });
  await app.register(envelope);
  await app.register(errorMapping, {
    catalog: spec.catalog,
    strict: config.strictContract,
    violations,
    messageMaxLength: spec.messageMaxLength,
    bodyLimit: config.bodyLimitBytes,
  });
  await app.register(corsOptionsRoute);
  await app.register(gracefulClose);
  await app.register(sandboxHelpers, {
    sandbox,
    clocks,
    integerSyntax: spec.limits,
    strict: config.strictContract,
    violations,
  });
  if (config.strictContract) {
    await app.register(contractCheck, { operations: spec.operations, validator: spec.model.validator(), violations });
  }
}
