// The HTTP assembly of the reference server: the Fastify instance, its plugins in their order (src/plugins/), one
// route per operation of the contract, the domain's and the token operations' handlers, and listening and shutting
// down. The CLI (src/cli.ts) is the only other entry point.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { assertHandlersComplete, routes, type Area, type HandlerContext, type Route } from '@cls-api/server';
import { JwtIssuer } from './auth/jwt.js';
import { createTokenHandlers, type TokenHandlers } from './auth/tokens.js';
import type { Config } from './config.js';
import { contract, type Contract } from './contract-facts.js';
import { createDomain } from './domain/index.js';
import type { DomainHandlers } from './domain/vocabulary.js';
import type { Owner, RequestContext } from './environment.js';
import { auth } from './plugins/auth.js';
import { connectionLimit } from './plugins/connection-limit.js';
import { contractCheck } from './plugins/contract-check.js';
import { cors, REQUEST_ID_HEADER } from './plugins/cors.js';
import { envelope } from './plugins/envelope.js';
import { clientErrorHandler, errorMapping, frameworkErrorReply } from './plugins/error-mapping.js';
import { type GatewayTier, MemoryGatewayBuckets, RedisGatewayBuckets } from './limits/gateway-buckets.js';
import { openRedis } from './limits/redis.js';
import { RedisRefreshTokens } from './limits/redis-refresh-tokens.js';
import { RedisUsageCounters } from './limits/redis-usage.js';
import { gatewayRateLimit } from './plugins/gateway-rate-limit.js';
import { gracefulClose } from './plugins/graceful-close.js';
import { incompleteRequests } from './plugins/incomplete-requests.js';
import { bodyLimitOf, jsonBody } from './plugins/json-body.js';
import { quota } from './plugins/quota.js';
import type { AccountStore, DomainStore, Storage, UsageCounters } from './store/interface.js';
import { SERVER_BUSY_TIMEOUT_MS } from './store/busy.js';
import { openStorage, type StorageOptions, withoutPassword } from './store/storage.js';
import { successSchemaOf } from './serialization.js';
import { requestValidator } from './validation.js';

export type Clock = () => Date;

/** The largest request head Node's parser reads (its default); a larger one is 400 in the envelope. */
export const MAX_HEADER_BYTES = 16 * 1024;

type Awaitable<T> = T | Promise<T>;

/** What the domain half of the server provides (src/domain/index.ts); the framework awaits either form. */
export interface Domain {
  handlers: DomainHandlers;
  /** Loads demo data into owners (an account in an environment) that have none. */
  seedDemo(input: { owners: Owner[]; now?: Date }): Awaitable<unknown>;
  shipOrder(accountId: string | null, orderNo: string, now: Date): Awaitable<{ order_no: string; invoice_no: string }>;
}

/** Every operation's handler: the domain's, which see the credential's environment, and the token operations. */
export type ServerHandlers = DomainHandlers & TokenHandlers;
export type DomainFactory = (store: DomainStore, options: { timeZone: string }) => Domain;

export interface AssembleOptions {
  config: Config;
  createDomain: DomainFactory;
  /** Open storage; when absent, the database of `config.database` is opened (and closed with the server). */
  storage?: Storage;
  /** Close storage given in `storage` when the server closes. */
  closeStorage?: boolean;
  clock?: Clock;
  logger?: Logger;
}

declare module 'fastify' {
  interface FastifyInstance {
    storage: Storage;
    accounts: AccountStore;
    /** The monthly usage counters the quota uses: the database's, or Redis's with REDIS_URL. */
    usageCounters: UsageCounters;
    domain: Domain;
    /** Strict-contract mode: every response or error code the contract does not allow, as it happened. */
    contractViolations: string[];
  }
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, redact: ['req.headers["x-api-key"]', 'req.headers.authorization'] });
}

/** How the server opens `DATABASE`: SQLite's lock wait, and a log line when PostgreSQL drops an idle connection. */
export function storageOptions(config: Config, logger: Pick<FastifyBaseLogger, 'warn'>): StorageOptions {
  return {
    lockTimeoutMs: config.dbLockTimeoutMs,
    // The pool replaces the connection; a request that needed it meanwhile failed with 500 and was logged.
    onIdleError: (err) => logger.warn({ err }, 'database: an idle connection failed'),
  };
}

/** Builds the server around a domain: storage, plugins in their order, one route per operation. */
export async function assembleApp(options: AssembleOptions): Promise<FastifyInstance> {
  const { config } = options;
  const clock = options.clock ?? (() => new Date());
  const spec = contract();
  const ownsStorage = options.storage === undefined || options.closeStorage === true;
  const logger = (options.logger ?? createLogger(config)) as FastifyBaseLogger;
  const storage = options.storage ?? (await openStorage(config.database, storageOptions(config, logger)));
  let redis: Redis | undefined;

  try {
    // better-sqlite3 waits for a lock inside the call, holding the event loop: the server's connection waits only
    // briefly, and a write that finds the lock held elsewhere waits on timers instead (src/store/busy.ts).
    const sqlite = (storage as { sqlite?: { pragma(source: string): unknown } }).sqlite;
    sqlite?.pragma(`busy_timeout = ${SERVER_BUSY_TIMEOUT_MS}`);
    const accounts = storage.accounts;
    redis = config.redisUrl ? await openRedis(config.redisUrl, config.redisCommandTimeoutMs) : undefined;
    // With REDIS_URL the counters are shared by every instance through Redis (src/limits/redis-usage.ts).
    const usageCounters: UsageCounters = redis ? new RedisUsageCounters(redis) : accounts;
    // Said in the database, so that the operator's `admin quota reset` acts where the servers count (src/cli.ts).
    await accounts
      .recordUsageCounters(
        config.redisUrl ? { kind: 'redis', url: withoutPassword(config.redisUrl) } : { kind: 'database' },
        clock(),
      )
      .catch((err: unknown) => logger.warn({ err }, 'database: where the usage counters are kept was not recorded'));
    const jwt = new JwtIssuer(config.jwtSecret, config.jwtTtlSeconds, spec.jwtAudience);
    const domain = options.createDomain(storage.domain, { timeZone: config.serviceTimeZone });
    const handlers: ServerHandlers = {
      ...domain.handlers,
      ...createTokenHandlers({
        accounts,
        refreshTokens: redis ? new RedisRefreshTokens(redis, accounts) : accounts,
        jwt,
        refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
        lockTimeoutMs: config.dbLockTimeoutMs,
      }),
    };
    // The types make a missing handler a compile error; this catches it at start-up in builds that drifted.
    assertHandlersComplete(handlers);

    const app = Fastify({
      loggerInstance: logger,
      trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
      bodyLimit: config.bodyLimitBytes,
      // find-my-way measures a parameter decoded. Every path value the contract allows (percent-encoded UTF-8, up
      // to the longest path parameter's maxLength) must reach validation, and so should one somewhat longer, whose
      // 400 then names the parameter; only a far longer one is refused by the router (400 via frameworkErrors).
      routerOptions: { maxParamLength: 2 * spec.maxPathParameterLength },
      exposeHeadRoutes: false,
      requestIdHeader: false,
      genReqId: () => randomUUID(),
      frameworkErrors: frameworkErrorReply(spec.catalog),
      // 503 is not a contract status: requests that arrive while the server closes are served, with Connection: close
      // (src/plugins/graceful-close.ts).
      return503OnClosing: false,
      // Slow clients (README, "Limits and timeouts"): the headers, the whole request, an idle connection and an idle
      // kept-alive connection each have a bound. Node checks the first two every `connectionsCheckingInterval`, so
      // that interval follows them: a bound of 300 ms is enforced within 300 ms, not within Node's default 30 s.
      requestTimeout: config.requestTimeoutMs,
      connectionTimeout: config.connectionTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      http: {
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        connectionsCheckingInterval: Math.max(
          10,
          Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)),
        ),
        maxHeaderSize: MAX_HEADER_BYTES,
      },
      clientErrorHandler: clientErrorHandler(spec.catalog, MAX_HEADER_BYTES, () => logger),
    });
    // Registered first, so it runs after the plugins' own close hooks (the quota's last write needs the database).
    if (ownsStorage) app.addHook('onClose', async () => storage.close());
    const openedRedis = redis;
    // Nothing is left to send at close, and a Redis that has gone away must not make the close fail.
    if (openedRedis) app.addHook('onClose', async () => openedRedis.disconnect());
    const violations: string[] = [];
    app.decorate('storage', storage);
    app.decorate('accounts', accounts);
    app.decorate('usageCounters', usageCounters);
    app.decorate('domain', domain);
    app.decorate('contractViolations', violations);
    app.decorateRequest('now', undefined as unknown as Date);
    app.decorateRequest('operation', undefined);

    // A callback hook, like the envelope's: no promise per request.
    app.addHook('onRequest', (request, reply, done) => {
      request.now = clock();
      const route = request.routeOptions.config.operation;
      request.operation = route && !hasEmptyParam(request.params) ? route : undefined;
      reply.header(REQUEST_ID_HEADER, request.id);
      done();
    });

    // Order matters: CORS answers preflights before anything counts them; the connection limit and the gateway
    // limit count every other request; a declared body over the limit is refused before auth; auth establishes the
    // caller; the quota counts authenticated test-key calls; the envelope wraps successes; error mapping answers
    // failures; graceful close marks the responses sent while closing.
    await app.register(cors, {
      origins: config.corsOrigins,
      operations: spec.operations,
      credentialHeaders: spec.credentialHeaders,
      declaredResponseHeaders: spec.declaredResponseHeaders,
    });
    await app.register(connectionLimit, {
      maxPerAddress: config.maxConnectionsPerAddress,
      trustedProxies: config.trustedProxies,
    });
    await app.register(incompleteRequests, { max: config.maxIncompleteRequests });
    const tiers: GatewayTier[] = [
      { prefix: spec.limits.gateway.appliesTo, ratePerSecond: config.gatewayRatePerSecond, burst: config.gatewayBurst },
      { prefix: spec.limits.gatewayMcp.appliesTo, ratePerSecond: config.mcpRatePerSecond, burst: config.mcpBurst },
    ];
    await app.register(gatewayRateLimit, {
      tiers,
      buckets: redis ? new RedisGatewayBuckets(redis, tiers) : new MemoryGatewayBuckets(tiers),
    });
    await app.register(jsonBody, { bodyLimit: config.bodyLimitBytes, operationLimits: spec.operationBodyLimits });
    await app.register(auth, { accounts, jwt, apiKeyCacheMs: config.apiKeyCacheMs });
    await app.register(quota, {
      counters: usageCounters,
      timeZone: config.serviceTimeZone,
      testKeyMonthlyQuota: config.testKeyMonthlyQuota,
      operations: spec.operations,
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
    await app.register(gracefulClose);
    if (config.strictContract) {
      await app.register(contractCheck, { operations: spec.operations, validator: spec.model.validator(), violations });
    }

    app.get('/health', async () => {
      await storage.ping();
      return { data: { status: 'ok' } };
    });
    registerRoutes(app, handlers, spec, config.bodyLimitBytes);

    await app.ready();
    return app;
  } catch (err) {
    redis?.disconnect();
    if (ownsStorage) await storage.close();
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Routes

/** Whether a path parameter is empty (`/v3/wms/orders/`): such a path addresses no operation. */
function hasEmptyParam(params: unknown): boolean {
  const values = params as Record<string, string> | undefined;
  for (const name in values) if (values[name] === '') return true;
  return false;
}

type AnyHandler = (
  input: { params: unknown; query: unknown; body: unknown },
  ctx: HandlerContext | RequestContext,
) => Promise<unknown>;

/**
 * The handler's context. An authenticated call carries the environment of its credential (DECISIONS G20), which
 * every domain handler needs; the public token operations have none and get the generated context only.
 */
function context(request: FastifyRequest, route: Route): HandlerContext | RequestContext {
  const credential = request.credential;
  // One object per request, built whole (no base object spread into another).
  if (credential && credential.kind !== 'public')
    return {
      accountId: credential.accountId,
      area: route.area as Area,
      keyArea: credential.kind === 'api_key' ? credential.keyArea : null,
      now: request.now,
      log: request.log,
      environment: credential.environment,
    };
  // Only operations without `security` get here; a domain handler without an environment would be a bug.
  if (route.security.length > 0) throw new Error(`${route.operationId} was reached without a credential`);
  return { accountId: '', area: route.area as Area, keyArea: null, now: request.now, log: request.log };
}

/**
 * Registers one Fastify route per operation of the generated route table. Params, query and body are validated
 * against the contract's own schemas (the contract model's validators; params and query coerced from strings and defaulted, the body
 * taken as sent) before the handler runs.
 */
export function registerRoutes(
  app: FastifyInstance,
  handlers: ServerHandlers,
  spec: Contract,
  bodyLimit: number,
): void {
  // Requests may carry any member of an open set (`openValues`); responses are held to the known ones.
  const validators = {
    parameters: spec.model.validator({ coerceTypes: true, openValues: true }),
    body: spec.model.validator({ openValues: true }),
  };
  const validatorOptions = { doc: spec.doc, integerSyntax: spec.limits.queryIntegerSyntax };
  for (const route of routes) {
    const op = spec.operations.get(route.operationId);
    if (!op)
      throw new Error(
        `the route table has ${route.operationId}, which the loaded contract does not: rebuild @cls-api/server`,
      );
    const validate = requestValidator(op, validators, validatorOptions);
    const handler = handlers[route.operationId] as AnyHandler;
    const [status] = route.successStatuses;
    const response = successSchemaOf(spec, route.operationId, status!);
    app.route({
      method: route.method,
      url: route.url,
      config: { operation: route },
      // The success response written from its schema when that gives JSON.stringify's bytes (src/serialization.ts).
      ...(response ? { schema: { response: { [status!]: response } } } : {}),
      bodyLimit: bodyLimitOf(route.operationId, { bodyLimit, operationLimits: spec.operationBodyLimits }),
      preValidation: async (request) => {
        validate(request);
      },
      handler: async (request, reply) => {
        const result = await handler(
          { params: request.params, query: request.query, body: request.body },
          context(request, route),
        );
        // An async handler that resolves to nothing would leave the request hanging.
        if (result === undefined) throw new Error(`the handler of ${route.operationId} returned no result`);
        reply.code(status);
        return result;
      },
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The server on the real domain, listening and shutdown

export interface BuildAppOptions {
  config: Config;
  /** Open storage; when absent, the database of `config.database` is opened and migrated (and closed with the server). */
  storage?: Storage;
  /** Close storage given in `storage` when the server closes. */
  closeStorage?: boolean;
  /** The server's clock (quota month, token expiry, return window, timestamps); injectable for tests. */
  clock?: Clock;
  logger?: Logger;
}

/** The reference server: the framework around the real domain. Call `listen` on the result to serve. */
export function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  return assembleApp({ ...options, createDomain });
}

/** Where the server listens, as a base URL a client can use (0.0.0.0 and :: are shown as loopback). */
export function baseUrlOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the server is not listening on a TCP port');
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** Builds the server and listens on config.port / config.host. */
export async function startServer(options: BuildAppOptions): Promise<FastifyInstance> {
  const app = await buildApp(options);
  try {
    await app.listen({ port: options.config.port, host: options.config.host });
  } catch (err) {
    await app.close();
    throw err;
  }
  return app;
}

export interface ShutdownOptions {
  /** How long in-flight requests may take (SHUTDOWN_GRACE_MS); then their connections are cut. */
  graceMs: number;
  onClosed?: () => void;
}

/**
 * Graceful shutdown on SIGINT/SIGTERM (src/plugins/graceful-close.ts): new connections are refused, in-flight
 * requests finish and are answered with `Connection: close`, then the database closes and the process exits 0.
 * Requests still running after `graceMs` have their connections cut, and the process exits 1; so does a second
 * signal, at once.
 */
export function shutdownOnSignals(app: FastifyInstance, options: ShutdownOptions): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    app.log.info(
      { signal, graceMs: options.graceMs },
      'shutting down: refusing new connections, finishing in-flight requests',
    );
    let cut = false;
    const grace = setTimeout(() => {
      cut = true;
      app.log.error(
        { graceMs: options.graceMs },
        'shutdown grace period over: cutting the connections of requests still running',
      );
      app.server.closeAllConnections();
      // The close waits for nothing more now; if it still does not finish, do not hang.
      setTimeout(() => process.exit(1), 1_000).unref();
    }, options.graceMs);
    grace.unref();
    app.close().then(
      () => {
        clearTimeout(grace);
        options.onClosed?.();
        app.log.info('shut down');
        process.exitCode = cut ? 1 : 0;
      },
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
