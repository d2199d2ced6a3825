import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import envSchema from 'env-schema';
import { contract, type Contract } from './contract-facts.js';
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
  gatewayRatePerSecond: number;
  gatewayBurst: number;
  mcpRatePerSecond: number;
  mcpBurst: number;
  testKeyMonthlyQuota: number;
  jwtSecret: string;
  /** True when JWT_SECRET was not set and a random one was generated for this process. */
  jwtSecretGenerated: boolean;
  jwtTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Addresses or CIDR ranges whose `X-Forwarded-For` is believed; empty: the socket address is the client. */
  trustedProxies: string[];
  logLevel: LogLevel;
  /** The largest request body read; by default the largest the contract allows (`src/body-limit.ts`). */
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
  /** On SIGTERM/SIGINT, how long in-flight requests may take before their connections are cut. */
  shutdownGraceMs: number;
  /**
   * REDIS_URL: the gateway buckets, the monthly usage counters and the refresh tokens live in Redis, shared by every
   * instance (src/limits/); without it the buckets are each instance's own and the rest is in the database.
   */
  redisUrl: string | undefined;
  /** How long a request waits for one Redis command before it fails (500): a frozen Redis never holds requests. */
  redisCommandTimeoutMs: number;
  /** Requests whose head or body is still arriving, over all clients: above it the oldest of them is closed. */
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

export interface LoadOptions {
  /** Operator commands that never sign a JWT do not need JWT_SECRET, even in production. */
  needsJwtSecret?: boolean;
}

/** A variable holding a number: its default, its bounds, and what its message adds about them. */
interface NumberVariable {
  kind: 'integer' | 'number';
  fallback: number;
  min: number;
  max?: number;
  note?: string;
}

/** Every variable that holds a number. The contract's limits are the floor: more generous (load tests), never stricter. */
function numberVariables(spec: Contract): Record<string, NumberVariable> {
  const { gateway, gatewayMcp } = spec.limits;
  const floor = (v: number) => ` (the contract's value ${v} or more)`;
  const atLeast = (fallback: number, note = floor(fallback)): NumberVariable => ({
    kind: 'number',
    fallback,
    min: fallback,
    note,
  });
  const integer = (fallback: number, min: number, max: number): NumberVariable => ({
    kind: 'integer',
    fallback,
    min,
    max,
  });
  const { access, refresh } = spec.tokenLifetime;
  return {
    PORT: integer(3000, 0, 65535),
    GATEWAY_RATE_PER_SECOND: atLeast(gateway.ratePerSecond),
    GATEWAY_BURST: atLeast(gateway.burst),
    MCP_RATE_PER_SECOND: atLeast(gatewayMcp.ratePerSecond),
    MCP_BURST: atLeast(gatewayMcp.burst),
    TEST_KEY_MONTHLY_QUOTA: integer(spec.limits.testKeyMonthlyQuota, 1, 2_147_483_647),
    JWT_TTL_SECONDS: integer(Math.min(3600, access.max), access.min, access.max),
    REFRESH_TOKEN_TTL_SECONDS: integer(Math.min(14 * 86400, refresh.max), refresh.min, refresh.max),
    BODY_LIMIT_BYTES: integer(spec.maxRequestBodyBytes, 1024, 1024 * 1024 * 1024),
    // Slow clients: each stage of a request has its own bound, so that an idle or trickling connection cannot hold
    // the server (README, "Limits and timeouts").
    HEADERS_TIMEOUT_MS: integer(10_000, 100, 600_000),
    REQUEST_TIMEOUT_MS: integer(30_000, 100, 3_600_000),
    CONNECTION_TIMEOUT_MS: integer(60_000, 100, 3_600_000),
    KEEP_ALIVE_TIMEOUT_MS: integer(5_000, 100, 600_000),
    MAX_CONNECTIONS_PER_ADDRESS: integer(64, 1, 100_000),
    DB_LOCK_TIMEOUT_MS: integer(5_000, 0, 600_000),
    SHUTDOWN_GRACE_MS: integer(20_000, 0, 600_000),
    // The hot path of every keyed request (README, "Deployment"): at most one second, so that a revoked key or an
    // ended subscription stops working within a second on every instance; 0 turns either off.
    API_KEY_CACHE_MS: integer(1_000, 0, 1_000),
    LIVE_USAGE_FLUSH_MS: integer(1_000, 0, 1_000),
    REDIS_COMMAND_TIMEOUT_MS: integer(1_000, 10, 60_000),
    MAX_INCOMPLETE_REQUESTS: integer(256, 1, 100_000),
  };
}

const STRICT_VALUES = ['0', '1', 'true', 'false'];

/**
 * The environment's JSON Schema, checked by env-schema (Ajv): a number's digits as written (no `0x10`, `1e3` or
 * `Infinity`, which Ajv's coercion would take), then its bounds; the closed lists; the shapes a pattern states.
 * Everything else (addresses, the database, the time zone, origins, one variable against another) is checked below.
 */
function environmentSchema(numbers: Record<string, NumberVariable>): object {
  const properties: Record<string, object> = {};
  for (const [name, v] of Object.entries(numbers)) {
    properties[name] = {
      default: String(v.fallback),
      allOf: [
        // At most 15 significant digits for an integer and 308 for a number: a longer one coerces to a number Ajv no longer
        // bounds (past 2^53, or Infinity, which skips its minimum and maximum).
        { type: 'string', pattern: v.kind === 'integer' ? '^0*\\d{1,15}$' : '^0*\\d{1,308}(\\.\\d+)?$' },
        { type: v.kind, minimum: v.min, maximum: v.max ?? Number.MAX_VALUE },
      ],
    };
  }
  properties.LOG_LEVEL = { type: 'string', enum: LOG_LEVELS, default: 'info' };
  properties.STRICT_CONTRACT = { type: 'string', enum: STRICT_VALUES };
  properties.REDIS_URL = { type: 'string', pattern: '^rediss?://[^\\s]+$' };
  properties.JWT_SECRET = { type: 'string', minLength: 32 };
  for (const name of ['NODE_ENV', 'HOST', 'DATABASE', 'SERVICE_TIME_ZONE', 'TRUSTED_PROXIES', 'CORS_ORIGINS'])
    properties[name] = { type: 'string' };
  return { type: 'object', properties };
}

/** One schema per contract, so that Ajv compiles it once (it keeps compiled schemas by the schema object). */
const schemas = new WeakMap<Contract, { numbers: Record<string, NumberVariable>; schema: object }>();
function schemaOf(spec: Contract): { numbers: Record<string, NumberVariable>; schema: object } {
  let entry = schemas.get(spec);
  if (!entry) {
    const numbers = numberVariables(spec);
    entry = { numbers, schema: environmentSchema(numbers) };
    schemas.set(spec, entry);
  }
  return entry;
}

/** Our message for a variable the schema refused: the variable, what it takes, and the value as given. */
function schemaProblem(name: string, value: string, numbers: Record<string, NumberVariable>): string {
  const n = numbers[name];
  if (n?.kind === 'integer')
    return `${name} must be an integer from ${n.min} to ${n.max}${n.note ?? ''}, got "${value}"`;
  if (n) return `${name} must be a number of at least ${n.min}${n.note ?? ''}, got "${value}"`;
  if (name === 'LOG_LEVEL') return `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`;
  if (name === 'STRICT_CONTRACT') return `STRICT_CONTRACT must be 1/true or 0/false, got "${value}"`;
  if (name === 'REDIS_URL') return 'REDIS_URL must be redis://[user:password@]host[:port][/db] (or rediss:// for TLS)';
  if (name === 'JWT_SECRET') return 'JWT_SECRET must be at least 32 characters (HS256 needs a 256-bit key)';
  return `${name} is not valid, got "${value}"`;
}

/**
 * The variables as the schema read them (numbers coerced, defaults filled), and our message for each it refused.
 * A variable set to nothing but spaces is unset.
 */
function readEnvironment(env: Env, spec: Contract) {
  const { numbers, schema } = schemaOf(spec);
  const given: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && value.trim() !== '') given[name] = value.trim();
  try {
    return { values: envSchema({ schema, data: given, env: false }) as Record<string, unknown>, problems: [] };
  } catch (err) {
    const errors = (err as { errors?: Array<{ instancePath: string }> }).errors;
    if (!errors) throw err;
    const refused = new Set(errors.map((e) => e.instancePath.split('/')[1]!).filter(Boolean));
    const problems = [...refused].map((name) => schemaProblem(name, given[name] ?? '', numbers));
    // What the checks below still need: the values as given, and a refused number's default. The refused ones are
    // reported already, so the configuration is refused whatever they are.
    const values: Record<string, unknown> = { LOG_LEVEL: 'info', ...given };
    for (const [name, v] of Object.entries(numbers))
      values[name] = refused.has(name) || given[name] === undefined ? v.fallback : Number(given[name]);
    return { values, problems };
  }
}

/** Reads and validates the configuration; every problem is reported at once. */
export function loadConfig(env: Env = process.env, spec: Contract = contract(), options: LoadOptions = {}): Config {
  const { values, problems } = readEnvironment(env, spec);
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const num = (name: string): number => values[name] as number;

  const production = text('NODE_ENV') === 'production';
  const host = text('HOST') ?? '127.0.0.1';
  if (!isIP(host) && !/^[A-Za-z0-9.-]+$/.test(host))
    problems.push(`HOST must be an IP address or host name, got "${host}"`);
  let database: DatabaseTarget = { engine: 'sqlite', path: './data/reference.db' };
  try {
    database = parseDatabaseTarget(text('DATABASE') ?? database.path);
  } catch (err) {
    if (!(err instanceof DatabaseTargetError)) throw err;
    problems.push(err.message);
  }

  const serviceTimeZone = text('SERVICE_TIME_ZONE') ?? spec.timeZone;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: serviceTimeZone });
  } catch {
    problems.push(`SERVICE_TIME_ZONE must be an IANA time zone such as ${spec.timeZone}, got "${serviceTimeZone}"`);
  }

  let jwtSecret = text('JWT_SECRET');
  let jwtSecretGenerated = false;
  if (jwtSecret === undefined) {
    if (production && options.needsJwtSecret !== false)
      problems.push('JWT_SECRET is required when NODE_ENV=production (at least 32 characters)');
    jwtSecret = randomBytes(32).toString('base64url');
    jwtSecretGenerated = true;
  }

  const trustedProxies = (text('TRUSTED_PROXIES') ?? '')
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

  if (num('HEADERS_TIMEOUT_MS') > num('REQUEST_TIMEOUT_MS')) {
    problems.push(
      `HEADERS_TIMEOUT_MS (${num('HEADERS_TIMEOUT_MS')}) must not be longer than REQUEST_TIMEOUT_MS (${num('REQUEST_TIMEOUT_MS')}): the headers are part of the request`,
    );
  }

  const corsRaw = text('CORS_ORIGINS') ?? '*';
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

  const strict = text('STRICT_CONTRACT');
  const strictContract = strict === undefined ? text('NODE_ENV') === 'test' : strict === '1' || strict === 'true';

  if (problems.length) throw new ConfigError(problems);
  return {
    port: num('PORT'),
    host,
    database,
    serviceTimeZone,
    gatewayRatePerSecond: num('GATEWAY_RATE_PER_SECOND'),
    gatewayBurst: num('GATEWAY_BURST'),
    mcpRatePerSecond: num('MCP_RATE_PER_SECOND'),
    mcpBurst: num('MCP_BURST'),
    testKeyMonthlyQuota: num('TEST_KEY_MONTHLY_QUOTA'),
    jwtSecret,
    jwtSecretGenerated,
    jwtTtlSeconds: num('JWT_TTL_SECONDS'),
    refreshTokenTtlSeconds: num('REFRESH_TOKEN_TTL_SECONDS'),
    trustedProxies,
    logLevel: values.LOG_LEVEL as LogLevel,
    bodyLimitBytes: num('BODY_LIMIT_BYTES'),
    headersTimeoutMs: num('HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: num('REQUEST_TIMEOUT_MS'),
    connectionTimeoutMs: num('CONNECTION_TIMEOUT_MS'),
    keepAliveTimeoutMs: num('KEEP_ALIVE_TIMEOUT_MS'),
    maxConnectionsPerAddress: num('MAX_CONNECTIONS_PER_ADDRESS'),
    dbLockTimeoutMs: num('DB_LOCK_TIMEOUT_MS'),
    shutdownGraceMs: num('SHUTDOWN_GRACE_MS'),
    redisUrl: text('REDIS_URL'),
    redisCommandTimeoutMs: num('REDIS_COMMAND_TIMEOUT_MS'),
    maxIncompleteRequests: num('MAX_INCOMPLETE_REQUESTS'),
    apiKeyCacheMs: num('API_KEY_CACHE_MS'),
    liveUsageFlushMs: num('LIVE_USAGE_FLUSH_MS'),
    corsOrigins,
    strictContract,
    production,
  };
}
