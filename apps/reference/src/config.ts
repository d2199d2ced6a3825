import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { GatewayLimit } from '@cls-api/spec';
import { contract, type Contract } from './contract-facts.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './store/pg-engine.js';
import { DEFAULT_LOCK_TIMEOUT_MS } from './store/sqlite-engine.js';
import { type DatabaseTarget, DatabaseTargetError, parseDatabaseTarget } from './store/storage.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  port: number;
  host: string;
  /** `DATABASE`: a SQLite file path or `:memory:` (the default engine), or a `postgres://…` URL. */
  database: DatabaseTarget;
  /** Time zone of the monthly reset, the 18:00 return window and every `YYYY-MM-DD HH:MM:SS` time. */
  serviceTimeZone: string;
  /**
   * Every gateway limit of the contract, each at its rate and burst or the higher ones its settings give
   * (`gatewayLimitSetting`).
   */
  gatewayLimits: GatewayLimit[];
  testKeyMonthlyQuota: number;
  jwtSecret: string;
  /** True when JWT_SECRET was not set and a random one was generated for this process. */
  jwtSecretGenerated: boolean;
  jwtTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Addresses or CIDR ranges whose `X-Forwarded-For` is believed; empty: the socket address is the client. */
  trustedProxies: string[];
  logLevel: LogLevel;
  /** The largest request body read; by default the largest the contract allows (`@cls-api/server`'s `maxRequestBodyBytes`). */
  bodyLimitBytes: number;
  /** Time for a client to send a request's headers (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** Time for a client to send a whole request, body included (Node's and Fastify's `requestTimeout`). */
  requestTimeoutMs: number;
  /** A connection on which nothing moves for this long is closed (Fastify's `connectionTimeout`). */
  connectionTimeoutMs: number;
  /** An idle kept-alive connection is closed after this long (`keepAliveTimeout`). */
  keepAliveTimeoutMs: number;
  /** Open connections one client address may hold; more are refused. */
  maxConnectionsPerAddress: number;
  /** How long a write waits for the SQLite write lock held by another connection before it fails (500). */
  dbLockTimeoutMs: number;
  /**
   * How long getting a PostgreSQL connection may take before it fails: opening one (at start, and for each the pool
   * adds), or waiting for a free one when the pool is full.
   */
  dbConnectTimeoutMs: number;
  /** On SIGTERM/SIGINT, how long in-flight requests may take before their connections are cut. */
  shutdownGraceMs: number;
  /**
   * REDIS_URL: the gateway buckets, the monthly usage counters and the refresh tokens live in Redis, shared by every
   * instance (src/limits/); without it the buckets are each instance's own and the rest is in the database.
   */
  redisUrl: string | undefined;
  /** How long a request waits for one Redis command before it fails (500): a frozen Redis never holds requests. */
  redisCommandTimeoutMs: number;
  /** Requests whose head or body has stopped arriving, over all clients: above it those stalled longest are closed. */
  maxIncompleteRequests: number;
  /** How long a looked-up API key is remembered: a revocation made elsewhere is honoured within this (src/auth/key-cache.ts). */
  apiKeyCacheMs: number;
  /** How long live-key calls are counted in memory before they are written, in one statement per account. */
  liveUsageFlushMs: number;
  /** Origins a browser page may call the API from: `*`, or a list of `scheme://host[:port]`. */
  corsOrigins: '*' | string[];
  /**
   * Contract assertions at run time: every response is validated against the contract and every error code is
   * checked against the operation's `x-error-codes`; a mismatch becomes a 500 and is recorded. On in tests.
   */
  strictContract: boolean;
  production: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n- ${problems.join('\n- ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * The prefix of a gateway limit's settings, `<PREFIX>_RATE_PER_SECOND` and `<PREFIX>_BURST`: `GATEWAY` for the
 * general limit (`gateway`), the rest of the name for each further one (`MCP` for `gateway_mcp`).
 */
export function gatewayLimitSetting(name: string): string {
  return (name === 'gateway' ? name : name.replace(/^gateway_/, '')).toUpperCase();
}

export interface LoadOptions {
  /** Operator commands that never sign a JWT do not need JWT_SECRET, even in production. */
  needsJwtSecret?: boolean;
}

/** Reads and validates the configuration; every problem is reported at once. */
export function loadConfig(env: Env = process.env, spec: Contract = contract(), options: LoadOptions = {}): Config {
  const problems: string[] = [];
  const raw = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const integer = (name: string, fallback: number, min: number, max: number, note = ''): number => {
    const value = raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}${note}, got "${value}"`);
      return fallback;
    }
    return Number(value);
  };
  const number = (name: string, fallback: number, min: number, note = ''): number => {
    const value = raw(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value) || !Number.isFinite(n) || n < min) {
      problems.push(`${name} must be a number of at least ${min}${note}, got "${value}"`);
      return fallback;
    }
    return n;
  };

  const production = raw('NODE_ENV') === 'production';
  const port = integer('PORT', 3000, 0, 65535);
  const host = raw('HOST') ?? '127.0.0.1';
  if (!isIP(host) && !/^[A-Za-z0-9.-]+$/.test(host))
    problems.push(`HOST must be an IP address or host name, got "${host}"`);
  let database: DatabaseTarget = { engine: 'sqlite', path: './data/reference.db' };
  try {
    database = parseDatabaseTarget(raw('DATABASE') ?? database.path);
  } catch (err) {
    if (!(err instanceof DatabaseTargetError)) throw err;
    problems.push(err.message);
  }
  const redisUrl = raw('REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\/[^\s]+$/.test(redisUrl))
    problems.push('REDIS_URL must be redis://[user:password@]host[:port][/db] (or rediss:// for TLS)');

  const serviceTimeZone = raw('SERVICE_TIME_ZONE') ?? spec.timeZone;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: serviceTimeZone });
  } catch {
    problems.push(`SERVICE_TIME_ZONE must be an IANA time zone such as ${spec.timeZone}, got "${serviceTimeZone}"`);
  }

  // The contract's limits are the floor: the reference may be more generous (load tests), never stricter.
  const floor = (v: number) => ` (the contract's value ${v} or more)`;
  const gatewayLimits = spec.limits.gateway.map((limit): GatewayLimit => {
    const setting = gatewayLimitSetting(limit.name);
    const { ratePerSecond: rate, burst } = limit;
    return {
      ...limit,
      ratePerSecond: number(`${setting}_RATE_PER_SECOND`, rate, rate, floor(rate)),
      burst: number(`${setting}_BURST`, burst, burst, floor(burst)),
    };
  });
  const testKeyMonthlyQuota = integer('TEST_KEY_MONTHLY_QUOTA', spec.limits.testKeyMonthlyQuota, 1, 2_147_483_647);

  let jwtSecret = raw('JWT_SECRET');
  let jwtSecretGenerated = false;
  if (jwtSecret === undefined) {
    if (production && options.needsJwtSecret !== false)
      problems.push('JWT_SECRET is required when NODE_ENV=production (at least 32 characters)');
    jwtSecret = randomBytes(32).toString('base64url');
    jwtSecretGenerated = true;
  } else if (jwtSecret.length < 32) {
    problems.push('JWT_SECRET must be at least 32 characters (HS256 needs a 256-bit key)');
  }
  const { access, refresh } = spec.tokenLifetime;
  const jwtTtlSeconds = integer('JWT_TTL_SECONDS', Math.min(3600, access.max), access.min, access.max);
  const refreshTokenTtlSeconds = integer(
    'REFRESH_TOKEN_TTL_SECONDS',
    Math.min(14 * 86400, refresh.max),
    refresh.min,
    refresh.max,
  );

  const trustedProxies = (raw('TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of trustedProxies) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (!family || !bitsOk || extra !== undefined) {
      problems.push(`TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges, got "${entry}"`);
    }
  }

  const logLevel = (raw('LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  const bodyLimitBytes = integer('BODY_LIMIT_BYTES', spec.maxRequestBodyBytes, 1024, 1024 * 1024 * 1024);

  // Slow clients: each stage of a request has its own bound, so that an idle or trickling connection cannot hold
  // the server (README, "Limits and timeouts").
  const headersTimeoutMs = integer('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = integer('REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs}): the headers are part of the request`,
    );
  }
  const connectionTimeoutMs = integer('CONNECTION_TIMEOUT_MS', 60_000, 100, 3_600_000);
  const keepAliveTimeoutMs = integer('KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000);
  const maxConnectionsPerAddress = integer('MAX_CONNECTIONS_PER_ADDRESS', 64, 1, 100_000);
  const dbLockTimeoutMs = integer('DB_LOCK_TIMEOUT_MS', DEFAULT_LOCK_TIMEOUT_MS, 0, 600_000);
  const dbConnectTimeoutMs = integer('DB_CONNECT_TIMEOUT_MS', DEFAULT_CONNECT_TIMEOUT_MS, 100, 600_000);
  const shutdownGraceMs = integer('SHUTDOWN_GRACE_MS', 20_000, 0, 600_000);
  // The hot path of every keyed request (README, "Deployment"): at most one second, so that a revoked key or an
  // ended subscription stops working within a second on every instance; 0 turns either off.
  const apiKeyCacheMs = integer('API_KEY_CACHE_MS', 1_000, 0, 1_000);
  const liveUsageFlushMs = integer('LIVE_USAGE_FLUSH_MS', 1_000, 0, 1_000);
  const redisCommandTimeoutMs = integer('REDIS_COMMAND_TIMEOUT_MS', 1_000, 10, 60_000);
  const maxIncompleteRequests = integer('MAX_INCOMPLETE_REQUESTS', 256, 1, 100_000);

  const corsRaw = raw('CORS_ORIGINS') ?? '*';
  let corsOrigins: '*' | string[] = '*';
  if (corsRaw !== '*') {
    corsOrigins = corsRaw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const origin of corsOrigins) {
      // An Origin header is exactly scheme://host[:port]: no path, no trailing slash (RFC 6454).
      if (!/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(origin)) {
        problems.push(
          `CORS_ORIGINS must be * or a comma-separated list of origins such as https://shop.example:8443, got "${origin}"`,
        );
      }
    }
  }

  const strictRaw = raw('STRICT_CONTRACT');
  if (strictRaw !== undefined && !['0', '1', 'true', 'false'].includes(strictRaw)) {
    problems.push(`STRICT_CONTRACT must be 1/true or 0/false, got "${strictRaw}"`);
  }
  const strictContract =
    strictRaw === undefined ? raw('NODE_ENV') === 'test' : strictRaw === '1' || strictRaw === 'true';

  if (problems.length) throw new ConfigError(problems);
  return {
    port,
    host,
    database,
    serviceTimeZone,
    gatewayLimits,
    testKeyMonthlyQuota,
    jwtSecret,
    jwtSecretGenerated,
    jwtTtlSeconds,
    refreshTokenTtlSeconds,
    trustedProxies,
    logLevel,
    bodyLimitBytes,
    headersTimeoutMs,
    requestTimeoutMs,
    connectionTimeoutMs,
    keepAliveTimeoutMs,
    maxConnectionsPerAddress,
    dbLockTimeoutMs,
    dbConnectTimeoutMs,
    shutdownGraceMs,
    redisUrl,
    redisCommandTimeoutMs,
    maxIncompleteRequests,
    apiKeyCacheMs,
    liveUsageFlushMs,
    corsOrigins,
    strictContract,
    production,
  };
}

/** How every command opens `DATABASE`: SQLite's lock wait and PostgreSQL's connect limit, as configured. */
export function databaseOptions(config: Pick<Config, 'dbLockTimeoutMs' | 'dbConnectTimeoutMs'>): {
  lockTimeoutMs: number;
  connectTimeoutMs: number;
} {
  return { lockTimeoutMs: config.dbLockTimeoutMs, connectTimeoutMs: config.dbConnectTimeoutMs };
}
