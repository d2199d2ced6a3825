// Starts the reference server on an ephemeral port and talks to it over real HTTP. Every response is checked
// against the contract (./contract.ts) and the server's own strict-contract record; a test fails on any mismatch.
import { Agent, request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { expect } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createDomain } from '../../src/domain/index.js';
import { assembleApp, type Clock, type DomainFactory, storageOptions } from '../../src/server.js';
import type { KeyEnv, Storage } from '../../src/store/interface.js';
import type { Db } from '../../src/store/db.js';
import { openStorage, parseDatabaseTarget, type SqlStorage, sqliteStorage } from '../../src/store/storage.js';
import { TEST_CONNECT_TIMEOUT_MS } from './connect-timeout.js';
import { type EngineName, openTestStorage } from './engines.js';
import { contractProblems } from './contract.js';

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';

/**
 * The gateway's per-address limits lifted, both tiers: for tests about something else (the quota, bodies, times,
 * counts) that send more requests at once than a burst allows, often from one address.
 */
export const LIMITS_OFF: Readonly<Record<string, string>> = {
  GATEWAY_RATE_PER_SECOND: '1000000',
  GATEWAY_BURST: '1000000',
  MCP_RATE_PER_SECOND: '1000000',
  MCP_BURST: '1000000',
};

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE: ':memory:',
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    STRICT_CONTRACT: '1',
    DB_CONNECT_TIMEOUT_MS: String(TEST_CONNECT_TIMEOUT_MS),
    ...env,
  });
}

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** A value is sent as JSON; a string is sent as it is (with the given or a JSON content type). */
  body?: unknown;
  /** The client address, sent as X-Forwarded-For (the server must trust 127.0.0.1 as a proxy). */
  ip?: string;
  apiKey?: string;
  bearer?: string;
  /** Skip the contract check (only for deliberately non-conforming scenarios). */
  unchecked?: boolean;
}

export interface LogLine {
  level: number;
  msg?: string;
  reqId?: string;
  [key: string]: unknown;
}

export interface TestServer {
  app: FastifyInstance;
  baseUrl: string;
  config: Config;
  logs: LogLine[];
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  get(path: string, options?: RequestOptions): Promise<TestResponse>;
  post(path: string, body: unknown, options?: RequestOptions): Promise<TestResponse>;
  /** Account with linked wms, manager and cam service accounts. */
  account(options?: { paid?: boolean; name?: string }): Promise<string>;
  key(accountId: string, area: 'wms' | 'manager' | 'cam', env?: KeyEnv): Promise<string>;
  /** Client credentials of the account for one environment (test by default). */
  client(accountId: string, env?: KeyEnv): Promise<{ client_id: string; client_secret: string }>;
  /** A JWT obtained over HTTP with new client credentials of the account (test by default). */
  token(accountId: string, env?: KeyEnv): Promise<string>;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** A configuration made by the test (a contract of its own, `loadConfig(env, readContract(doc))`); else from `env`. */
  config?: Config;
  clock?: Clock;
  createDomain?: DomainFactory;
  /** An open SQLite database (a file the test also opens itself); the server uses its storage. */
  db?: Db;
  /** Storage of either engine (test/support/engines.ts). */
  storage?: Storage;
  /** Fresh storage of this engine, closed with the server (SQLite in memory when neither this nor a store is given). */
  engine?: EngineName;
  /** A database URL the server opens as `serve` does (and closes with the server): another instance on it. */
  databaseUrl?: string;
  /** Close the given `db` or `storage` with the server. */
  closeDb?: boolean;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const config = options.config ?? testConfig({ LOG_LEVEL: 'info', ...options.env });
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const logger = pino({ level: config.logLevel }, sink);
  const fresh = options.databaseUrl
    ? await openStorage(parseDatabaseTarget(options.databaseUrl), storageOptions(config, logger))
    : options.engine && !options.storage && !options.db
      ? await openTestStorage(options.engine, storageOptions(config, logger))
      : undefined;
  const app = await assembleApp({
    config,
    createDomain: options.createDomain ?? createDomain,
    ...(fresh ? { storage: fresh, closeStorage: true } : {}),
    ...(options.db || options.storage
      ? {
          storage: options.storage ?? sqliteStorage(options.db!, { lockTimeoutMs: config.dbLockTimeoutMs }),
          closeStorage: options.closeDb === true,
        }
      : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    logger,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('not listening');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const clock = options.clock ?? (() => new Date());

  function request(method: string, path: string, o: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
    if (o.apiKey !== undefined) headers['x-api-key'] = o.apiKey;
    if (o.bearer !== undefined) headers.authorization = `Bearer ${o.bearer}`;
    if (o.ip !== undefined) headers['x-forwarded-for'] = o.ip;
    let payload: string | undefined;
    if (o.body !== undefined) {
      payload = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
      // With its length declared, as clients send a body they hold whole (fetch, the client package): left to
      // itself, Node's request sends it chunked, which the server serves as a body of unknown size, one per address
      // at a time (src/plugins/json-body.ts, isLargeBody), so the usual path went untested. A test that wants a
      // chunked body says so in its headers.
      const named = Object.keys(headers).map((h) => h.toLowerCase());
      if (!named.includes('content-length') && !named.includes('transfer-encoding'))
        headers['content-length'] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${baseUrl}${path}`, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          const response: TestResponse = { status: res.statusCode ?? 0, headers: res.headers, text, body };
          try {
            if (!o.unchecked) {
              expect(
                contractProblems({ method, path, status: response.status, headers: res.headers, text }),
                `${method} ${path}`,
              ).toEqual([]);
            }
            resolve(response);
          } catch (err) {
            reject(err);
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  return {
    app,
    baseUrl,
    config,
    logs,
    request,
    get: (path, o) => request('GET', path, o),
    post: (path, body, o) => request('POST', path, { ...o, body }),
    account: async ({ paid = false, name = 'Test Seller' } = {}) =>
      (await app.accounts.createAccount({ name, paid, link: ['wms', 'manager', 'cam'] }, clock())).account_id,
    key: async (accountId, area, env = 'test') =>
      (await app.accounts.createApiKey(accountId, area, env, clock())).api_key,
    client: (accountId, env = 'test') => app.accounts.createClient(accountId, env, clock()),
    async token(accountId, env = 'test') {
      const body = await app.accounts.createClient(accountId, env, clock());
      const r = await request('POST', '/v3/auth/token', { body });
      expect(r.status).toBe(200);
      return r.body.data.access_token as string;
    },
    async close() {
      await app.close();
      // Strict-contract mode records anything the contract does not allow that a test did not look at.
      expect(app.contractViolations, 'contract violations recorded by the server').toEqual([]);
    },
  };
}

/** The better-sqlite3 connection of a server on SQLite (tests that look at the stored rows themselves). */
export function sqliteOf(app: FastifyInstance): Db {
  const db = (app.storage as { sqlite?: Db }).sqlite;
  if (!db) throw new Error('the server does not run on SQLite');
  return db;
}

/** Every stored row of a table, on either engine (tests that look at what is kept, such as hashes only). */
export async function storedRows(app: FastifyInstance, table: string): Promise<Array<Record<string, unknown>>> {
  return (app.storage as SqlStorage).sql.all(`SELECT * FROM ${table}`);
}
