// SQLite as a `SqlEngine` (store/sql.ts) on one better-sqlite3 connection. better-sqlite3 is synchronous, so every
// statement completes before its promise is returned; transactions are queued one after another on the connection
// and take the write lock with BEGIN IMMEDIATE, waiting for it on timers while another connection holds it
// (store/busy.ts).
import type Database from 'better-sqlite3';
import { whenUnlocked } from './busy.js';
import type { Db } from './db.js';
import type { Dialect, Param, SqlEngine, SqlExecutor } from './sql.js';
import { Statements } from './statements.js';

/** The lock wait of an engine made without one (the operator's CLI, tests); the server passes DB_LOCK_TIMEOUT_MS. */
export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;

const DIALECT: Dialect = { ifNull: 'ifnull', greater: 'max' };

const engines = new WeakMap<Db, SqliteEngine>();

export class SqliteEngine implements SqlEngine {
  /**
   * The one engine of a connection: the account store and the domain store share its transaction queue, so that a
   * transaction of one never begins inside a transaction of the other. The first caller's lock wait holds.
   */
  static of(db: Db, lockTimeoutMs?: number): SqliteEngine {
    let engine = engines.get(db);
    if (!engine) {
      engine = new SqliteEngine(db, lockTimeoutMs);
      engines.set(db, engine);
    }
    return engine;
  }

  readonly name = 'sqlite' as const;
  readonly dialect = DIALECT;
  private readonly statements: Statements;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly db: Db,
    /** How long a transaction waits for the write lock held by another connection. */
    private readonly lockTimeoutMs: number = DEFAULT_LOCK_TIMEOUT_MS,
  ) {
    this.statements = new Statements(db);
  }

  private statement(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  async get<T>(sql: string, params: readonly Param[] = []): Promise<T | undefined> {
    return this.statement(sql).get(...params) as T | undefined;
  }

  async all<T>(sql: string, params: readonly Param[] = []): Promise<T[]> {
    return this.statement(sql).all(...params) as T[];
  }

  async run(sql: string, params: readonly Param[] = []): Promise<number> {
    return this.statement(sql).run(...params).changes;
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      await whenUnlocked(() => this.db.exec('BEGIN IMMEDIATE'), this.lockTimeoutMs);
      try {
        const result = await work(this);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    };
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  async ping(): Promise<void> {
    this.statement('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
