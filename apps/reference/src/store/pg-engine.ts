// PostgreSQL as a `SqlEngine` (store/sql.ts) on a `pg` connection pool. Several server instances share one
// database: every guarantee that must hold across them is a statement or a constraint in the database (the
// conditional quota UPDATE, the unique mall_order_no, the conditional stock UPDATE), never a lock in this process.
import pg from 'pg';
import { checkRecorded, type Migration, postgresMigrationsDir, readMigrations } from './db.js';
import type { Dialect, Page, Param, SqlEngine, SqlExecutor } from './sql.js';

const DIALECT: Dialect = { ifNull: 'coalesce', greater: 'greatest' };

// BIGINT (times, counts, `count(*)`) as a JavaScript number, as SQLite gives it: every value the server stores is
// far below 2^53.
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** The stores write `?` placeholders (shared with SQLite); PostgreSQL numbers them. None appears inside a literal. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * The stores' statements by their `?` text, each numbered once and given a name, so that every connection parses
 * and plans it once (a named statement in `pg`) instead of on every call: parsing was a large share of a GET's
 * database time. The stores' SQL texts are a fixed set (the few built from a column list vary only with the
 * columns a PATCH names); past `MAX_NAMED_STATEMENTS` a text is sent unnamed, so no connection holds an unbounded
 * number of prepared statements.
 */
const MAX_NAMED_STATEMENTS = 512;
const namedStatements = new Map<string, { name: string; text: string }>();

export function statementOf(sql: string): { name?: string; text: string } {
  let statement = namedStatements.get(sql);
  if (!statement) {
    if (namedStatements.size >= MAX_NAMED_STATEMENTS) return { text: numbered(sql) };
    statement = { name: `cls_${namedStatements.size + 1}`, text: numbered(sql) };
    namedStatements.set(sql, statement);
  }
  return statement;
}

function query(client: pg.Pool | pg.PoolClient, sql: string, params: readonly Param[]): Promise<pg.QueryResult> {
  const { name, text } = statementOf(sql);
  return client.query({ name, text, values: params as Param[] });
}

/** Errors after which a transaction is worth running again from the start: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
const TRANSACTION_ATTEMPTS = 5;

/** A key of `pg_advisory_lock` held while migrating, so that instances starting at once migrate one at a time. */
const MIGRATION_LOCK_KEY = 0x636c_735f; // "cls_"

class Executor implements SqlExecutor {
  constructor(private readonly client: pg.Pool | pg.PoolClient) {}

  async get<T>(sql: string, params: readonly Param[] = []): Promise<T | undefined> {
    const result = await query(this.client, sql, params);
    return result.rows[0] as T | undefined;
  }

  async all<T>(sql: string, params: readonly Param[] = []): Promise<T[]> {
    const result = await query(this.client, sql, params);
    return result.rows as T[];
  }

  async page<T>(sql: string, params: readonly Param[] = []): Promise<Page<T>> {
    const result = await query(this.client, sql, params);
    const rows = result.rows as Record<string, unknown>[];
    if (rows.length === 0) return { rows: [], total: undefined };
    const last = result.fields[result.fields.length - 1]!.name;
    return { rows: rows.map(({ [last]: _, ...item }) => item as T), total: rows[0]![last] as number };
  }

  async run(sql: string, params: readonly Param[] = []): Promise<number> {
    const result = await query(this.client, sql, params);
    return result.rowCount ?? 0;
  }
}

export interface PgEngineOptions {
  /** Connections this instance keeps open at most. */
  maxConnections?: number;
  /** Reports errors of idle connections (the database restarted, the network dropped); they are replaced. */
  onIdleError?: (err: Error) => void;
  /**
   * How long getting a connection may take before it fails, opening one or waiting for a free one when all
   * `maxConnections` are in use (DB_CONNECT_TIMEOUT_MS); 10 s unless told.
   */
  connectTimeoutMs?: number;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

export class PgEngine extends Executor implements SqlEngine {
  readonly name = 'postgres' as const;
  readonly dialect = DIALECT;

  private constructor(private readonly pool: pg.Pool) {
    super(pool);
  }

  /**
   * Connects (the first connection proves the address and the credentials) and applies the pending migrations of
   * `migrations/postgres/`. Rejects when the database cannot be used; the pool is closed then.
   */
  static async open(
    url: string,
    options: PgEngineOptions = {},
    migrationsDir = postgresMigrationsDir,
  ): Promise<PgEngine> {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      types,
    });
    pool.on('error', (err) => options.onIdleError?.(err));
    const engine = new PgEngine(pool);
    try {
      await migrate(pool, readMigrations(migrationsDir));
      return engine;
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await work(new Executor(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        const code = (err as { code?: unknown }).code;
        if (typeof code !== 'string' || !RETRYABLE.has(code) || attempt >= TRANSACTION_ATTEMPTS) throw err;
      } finally {
        client.release(broken);
      }
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * Applies each migration not yet recorded in `schema_migrations`, each in its own transaction, under an advisory
 * lock: a second instance starting at the same time waits, then finds them applied.
 */
async function migrate(pool: pg.Pool, migrations: readonly Migration[]): Promise<{ applied: number[] }> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    INTEGER PRIMARY KEY,
        name       TEXT    NOT NULL,
        checksum   TEXT    NOT NULL,
        applied_at TEXT    NOT NULL
      )`);
      const rows = (await client.query('SELECT version, name, checksum FROM schema_migrations')).rows as Array<{
        version: number;
        name: string;
        checksum: string;
      }>;
      const recorded = new Map(rows.map((r) => [r.version, r]));
      checkRecorded(recorded, migrations);
      const applied: number[] = [];
      for (const m of migrations) {
        if (recorded.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query(
            'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)',
            [m.version, m.name, m.checksum, new Date().toISOString()],
          );
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
        applied.push(m.version);
      }
      return { applied };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}
