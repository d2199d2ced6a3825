// The reference server put together: storage and Redis, the handlers, the Fastify instance with its decorations, its
// plugins in their order and one route per operation; then listening. Each part lives in a file named after it
// (src/assembly/: backing, handlers, http-options, plugins, routes, shutdown). The CLI (src/cli.ts) is the only other
// entry point.
import { ServiceTime } from '@cls-api/spec';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { JwtIssuer } from './auth/jwt.js';
import { openSharedState, storageOptions, waitForLocksOnTimers } from './assembly/backing.js';
import { serverHandlers, type ServerHandlers } from './assembly/handlers.js';
import { httpOptions, MAX_HEADER_BYTES } from './assembly/http-options.js';
import { registerPlugins } from './assembly/plugins.js';
import { registerRoutes } from './assembly/routes.js';
import type { Config } from './config.js';
import { contract } from './contract-facts.js';
import { createDomain, type SandboxResetResult, type SandboxSeed } from './domain/index.js';
import type { DomainHandlers } from './domain/vocabulary.js';
import type { Owner } from './environment.js';
import { REQUEST_ID_HEADER } from './plugins/cors.js';
import type { AccountStore, DomainStore, Storage, UsageCounters } from './store/interface.js';
import { openStorage } from './store/storage.js';
import { SandboxClocks } from './sandbox/clock.js';
import { readSandbox } from './sandbox/facts.js';

export { MAX_HEADER_BYTES, registerRoutes, type ServerHandlers, storageOptions };
export { exitCodeOf, type ShutdownOptions, shutdownOnSignals } from './assembly/shutdown.js';

export type Clock = () => Date;

type Awaitable<T> = T | Promise<T>;

/** What the domain half of the server provides (src/domain/index.ts); the framework awaits either form. */
export interface Domain {
  handlers: DomainHandlers;
  /** Loads demo data into owners (an account in an environment) that have none. */
  seedDemo(input: { owners: Owner[]; now?: Date }): Awaitable<unknown>;
  shipOrder(accountId: string | null, orderNo: string, now: Date): Awaitable<{ order_no: string; invoice_no: string }>;
  /** The sandbox's reset of an account's test data (src/domain/index.ts). */
  resetSandbox(input: { owner: Owner; seed?: SandboxSeed; now: Date }): Awaitable<SandboxResetResult>;
}

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
    waitForLocksOnTimers(storage);
    const accounts = storage.accounts;
    const shared = await openSharedState(config, storage, logger, clock());
    redis = shared.redis;
    const { usageCounters } = shared;
    const jwt = new JwtIssuer(config.jwtSecret, config.jwtTtlSeconds, spec.jwtAudience);
    const domain = options.createDomain(storage.domain, { timeZone: config.serviceTimeZone });
    const handlers = serverHandlers({ config, domain: domain.handlers, accounts, jwt, redis });
    const sandbox = readSandbox();
    const clocks = new SandboxClocks(storage.domain, new ServiceTime(config.serviceTimeZone), sandbox.clockLastTime);

    const app = Fastify(httpOptions(config, spec, logger));
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

    await registerPlugins(app, { config, spec, accounts, usageCounters, jwt, redis, violations, sandbox, clocks });

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

/** Whether a path parameter is empty (`/v3/wms/orders/`): such a path addresses no operation. */
function hasEmptyParam(params: unknown): boolean {
  const values = params as Record<string, string> | undefined;
  for (const name in values) if (values[name] === '') return true;
  return false;
}
