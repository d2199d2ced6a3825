// SQLite as a `SqlEngine` (store/sql.ts) on one better-sqlite3 connection. better-sqlite3 is synchronous, so every
// statement completes before its promise is returned; transactions are queued one after another on the connection
// and take the write lock with BEGIN IMMEDIATE, waiting for it on timers while another connection holds it
// (store/busy.ts).
import { whenUnlocked } from './busy.js';
import type { Db } from './db.js';
import type { Dialect, Page, Param, SqlEngine, SqlExecutor } from './sql.js';
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

  async get<T>(sql: string, params: readonly Param[] = []): Promise<T | undefined> {
    const prepared = this.statements.get(sql);
    const row = prepared.row();
    const values = prepared.statement.get(...params) as unknown[] | undefined;
    return values && (row(values) as T);
  }

  async all<T>(sql: string, params: readonly Param[] = []): Promise<T[]> {
    const prepared = this.statements.get(sql);
    const row = prepared.row();
    const rows = prepared.statement.all(...params) as unknown[][];
    const out = new Array<T>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = row(rows[i]!) as T;
    return out;
  }

  async page<T>(sql: string, params: readonly Param[] = []): Promise<Page<T>> {
    const prepared = this.statements.get(sql);
    const row = prepared.rowWithoutLast();
    const rows = prepared.statement.all(...params) as unknown[][];
    if (rows.length === 0) return { rows: [], total: undefined };
    const first = rows[0]!;
    const out = new Array<T>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = row(rows[i]!) as T;
    return { rows: out, total: first[first.length - 1] as number };
  }

  async run(sql: string, params: readonly Param[] = []): Promise<number> {
    return this.statements.get(sql).statement.run(...params).changes;
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
    this.statements.get('SELECT 1').statement.get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
