import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { assertHandlersComplete } from '@cls-api/server';
import { JwtIssuer } from './auth/jwt.js';
import { createTokenHandlers, type TokenHandlers } from './auth/tokens.js';
import type { Config } from './config.js';
import { contract } from './contract.js';
import type { DomainHandlers } from './domain/contract.js';
import type { Owner } from './environment.js';
import './fastify.js';
import { auth } from './plugins/auth.js';
import { connectionLimit } from './plugins/connection-limit.js';
import { contractCheck } from './plugins/contract-check.js';
import { cors, REQUEST_ID_HEADER } from './plugins/cors.js';
import { envelope } from './plugins/envelope.js';
import { clientErrorHandler, errorMapping, frameworkErrorReply } from './plugins/error-mapping.js';
import { gatewayRateLimit } from './plugins/gateway-rate-limit.js';
import { gracefulClose } from './plugins/graceful-close.js';
import { jsonBody } from './plugins/json-body.js';
import { quota } from './plugins/quota.js';
import { registerRoutes } from './routes.js';
import { SqliteAccountStore, type AccountStore } from './store/accounts.js';
import { SERVER_BUSY_TIMEOUT_MS } from './store/busy.js';
import { openDatabase, type Db } from './store/db.js';
import { contractAjv } from './validation.js';

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
export type DomainFactory = (db: Db, options: { timeZone: string; lockTimeoutMs?: number }) => Domain;

export interface AssembleOptions {
  config: Config;
  createDomain: DomainFactory;
  /** An open database; when absent, `config.database` is opened (and closed with the server). */
  db?: Db;
  /** Close a database given in `db` when the server closes. */
  closeDb?: boolean;
  clock?: Clock;
  logger?: Logger;
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    accounts: AccountStore;
    domain: Domain;
    /** Strict-contract mode: every response or error code the contract does not allow, as it happened. */
    contractViolations: string[];
  }
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, redact: ['req.headers["x-api-key"]', 'req.headers.authorization'] });
}

/** Builds the server around a domain: storage, plugins in their order, one route per operation. */
export async function assembleApp(options: AssembleOptions): Promise<FastifyInstance> {
  const { config } = options;
  const clock = options.clock ?? (() => new Date());
  const spec = contract();
  const ownsDb = options.db === undefined || options.closeDb === true;
  const db = options.db ?? openDatabase(config.database);

  try {
    // better-sqlite3 waits for a lock inside the call, holding the event loop: the server's connection waits only
    // briefly, and a write that finds the lock held elsewhere waits on timers instead (src/store/busy.ts).
    db.pragma(`busy_timeout = ${SERVER_BUSY_TIMEOUT_MS}`);
    const accounts = new SqliteAccountStore(db);
    const jwt = new JwtIssuer(config.jwtSecret, config.jwtTtlSeconds, spec.jwtAudience);
    const domain = options.createDomain(db, { timeZone: config.serviceTimeZone, lockTimeoutMs: config.dbLockTimeoutMs });
    const handlers: ServerHandlers = {
      ...domain.handlers,
      ...createTokenHandlers({ accounts, jwt, refreshTokenTtlSeconds: config.refreshTokenTtlSeconds, lockTimeoutMs: config.dbLockTimeoutMs }),
    };
    // The types make a missing handler a compile error; this catches it at start-up in builds that drifted.
    assertHandlersComplete(handlers);

    const logger = (options.logger ?? createLogger(config)) as FastifyBaseLogger;
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
        connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4))),
        maxHeaderSize: MAX_HEADER_BYTES,
      },
      clientErrorHandler: clientErrorHandler(spec.catalog, MAX_HEADER_BYTES, () => logger),
    });
    if (ownsDb) app.addHook('onClose', async () => db.close());
    const violations: string[] = [];
    app.decorate('db', db);
    app.decorate('accounts', accounts);
    app.decorate('domain', domain);
    app.decorate('contractViolations', violations);
    app.decorateRequest('now', undefined as unknown as Date);
    app.decorateRequest('operation', undefined);

    app.addHook('onRequest', async (request, reply) => {
      request.now = clock();
      const route = request.routeOptions.config.operation;
      const params = Object.values((request.params ?? {}) as Record<string, string>);
      request.operation = route && params.every((p) => p !== '') ? route : undefined;
      reply.header(REQUEST_ID_HEADER, request.id);
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
    await app.register(connectionLimit, { maxPerAddress: config.maxConnectionsPerAddress, trustedProxies: config.trustedProxies });
    await app.register(gatewayRateLimit, {
      limits: [
        { appliesTo: spec.limits.gateway.appliesTo, ratePerSecond: config.gatewayRatePerSecond, burst: config.gatewayBurst },
        { appliesTo: spec.limits.gatewayMcp.appliesTo, ratePerSecond: config.mcpRatePerSecond, burst: config.mcpBurst },
      ],
    });
    await app.register(jsonBody, { bodyLimit: config.bodyLimitBytes });
    await app.register(auth, { accounts, jwt });
    await app.register(quota, {
      accounts,
      timeZone: config.serviceTimeZone,
      testKeyMonthlyQuota: config.testKeyMonthlyQuota,
      operations: spec.operations,
      lockTimeoutMs: config.dbLockTimeoutMs,
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
      await app.register(contractCheck, { operations: spec.operations, ajv: contractAjv(spec.doc, { coerceTypes: false, useDefaults: false }), violations });
    }

    app.get('/health', async () => {
      db.prepare('SELECT 1').get();
      return { data: { status: 'ok' } };
    });
    registerRoutes(app, handlers, spec);

    await app.ready();
    return app;
  } catch (err) {
    if (ownsDb) db.close();
    throw err;
  }
}
