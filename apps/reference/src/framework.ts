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
import { contractCheck } from './plugins/contract-check.js';
import { envelope } from './plugins/envelope.js';
import { errorMapping, frameworkErrorReply } from './plugins/error-mapping.js';
import { gatewayRateLimit } from './plugins/gateway-rate-limit.js';
import { quota } from './plugins/quota.js';
import { registerRoutes } from './routes.js';
import { SqliteAccountStore, type AccountStore } from './store/accounts.js';
import { openDatabase, type Db } from './store/db.js';
import { contractAjv } from './validation.js';

export type Clock = () => Date;

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
export type DomainFactory = (db: Db, options: { timeZone: string }) => Domain;

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
    const accounts = new SqliteAccountStore(db);
    const jwt = new JwtIssuer(config.jwtSecret, config.jwtTtlSeconds, spec.jwtAudience);
    const domain = options.createDomain(db, { timeZone: config.serviceTimeZone });
    const handlers: ServerHandlers = {
      ...domain.handlers,
      ...createTokenHandlers({ accounts, jwt, refreshTokenTtlSeconds: config.refreshTokenTtlSeconds }),
    };
    // The types make a missing handler a compile error; this catches it at start-up in builds that drifted.
    assertHandlersComplete(handlers);

    const app = Fastify({
      loggerInstance: (options.logger ?? createLogger(config)) as FastifyBaseLogger,
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
      return503OnClosing: true,
    });
    app.removeContentTypeParser('text/plain');
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
      reply.header('X-Request-Id', request.id);
    });

    // Order matters: the gateway limit counts every request before anything else; auth establishes the caller;
    // the quota counts authenticated test-key calls; the envelope wraps successes; error mapping answers failures.
    await app.register(gatewayRateLimit, {
      limits: [
        { appliesTo: spec.limits.gateway.appliesTo, ratePerSecond: config.gatewayRatePerSecond, burst: config.gatewayBurst },
        { appliesTo: spec.limits.gatewayMcp.appliesTo, ratePerSecond: config.mcpRatePerSecond, burst: config.mcpBurst },
      ],
    });
    await app.register(auth, { accounts, jwt });
    await app.register(quota, { accounts, timeZone: config.serviceTimeZone, testKeyMonthlyQuota: config.testKeyMonthlyQuota, operations: spec.operations });
    await app.register(envelope);
    await app.register(errorMapping, { catalog: spec.catalog, strict: config.strictContract, violations });
    if (config.strictContract) {
      await app.register(contractCheck, { operations: spec.operations, ajv: contractAjv(spec.doc, { coerceTypes: false, useDefaults: false }), violations });
    }

    app.get('/health', async () => {
      db.prepare('SELECT 1').get();
      return { data: { status: 'ok' } };
    });
    registerRoutes(app, handlers, spec);

    if (ownsDb) app.addHook('onClose', async () => db.close());
    await app.ready();
    return app;
  } catch (err) {
    if (ownsDb) db.close();
    throw err;
  }
}
