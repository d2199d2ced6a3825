// SQLite as a `SqlEngine` (store/sql.ts) on better-sqlite3 connections. better-sqlite3 is synchronous, so every
// statement completes before its promise is returned; transactions are queued one after another on the connection
// and take the write lock with BEGIN IMMEDIATE, waiting for it on timers while another connection holds it
// (store/busy.ts).
//
// A database in a file also gets a second, read-only connection for the reads made outside a transaction. In WAL
// mode it sees the last committed state whatever the first connection is writing, so a long transaction (a bulk
// request's thousand rows) can let the event loop serve other requests between its statements (`SLICE_MS`): their
// reads see the state before it, as they would have had it come later, and their writes wait for its end, so none
// lands inside it. An in-memory database has one connection only: its transactions run without a break. A file
// database's WAL is copied into the file by a thread of its own (store/checkpointer.ts), not by a COMMIT.
import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { SLICE_MS, Slices } from '../slices.js';
import { SERVER_BUSY_TIMEOUT_MS, whenUnlocked } from './busy.js';
import { Checkpointer } from './checkpointer.js';
import type { Db } from './db.js';
import type { Dialect, Page, Param, SqlEngine, SqlExecutor } from './sql.js';
import { Statements } from './statements.js';

/**
 * How long a write waits for the write lock: an engine made without a wait (the operator's CLI, tests) waits this
 * long, and so does the server unless DB_LOCK_TIMEOUT_MS says otherwise (config.ts reads its default here).
 */
export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;

/**
 * The page cache of a file database's writing connection, in KiB (SQLite's default is 2,000). A transaction's changed
 * pages beyond it are written to the WAL while its statements run, between its breaks, instead of all at its COMMIT,
 * which holds the event loop (a bulk request's thousand rows are megabytes of pages). Pages written before the COMMIT
 * are not part of the database until it: the reading connection does not see them, and a ROLLBACK drops them.
 */
export const WRITER_CACHE_KIB = 256;

const DIALECT: Dialect = { ifNull: 'ifnull', greater: 'max' };

const engines = new WeakMap<Db, SqliteEngine>();

function getOn<T>(statements: Statements, sql: string, params: readonly Param[]): T | undefined {
  const prepared = statements.get(sql);
  const row = prepared.row();
  const values = prepared.statement.get(...params) as unknown[] | undefined;
  return values && (row(values) as T);
}

function allOn<T>(statements: Statements, sql: string, params: readonly Param[]): T[] {
  const prepared = statements.get(sql);
  const row = prepared.row();
  const rows = prepared.statement.all(...params) as unknown[][];
  const out = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = row(rows[i]!) as T;
  return out;
}

function pageOn<T>(statements: Statements, sql: string, params: readonly Param[]): Page<T> {
  const prepared = statements.get(sql);
  const row = prepared.rowWithoutLast();
  const rows = prepared.statement.all(...params) as unknown[][];
  if (rows.length === 0) return { rows: [], total: undefined };
  const first = rows[0]!;
  const out = new Array<T>(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = row(rows[i]!) as T;
  return { rows: out, total: first[first.length - 1] as number };
}

/** The statements of one transaction, on the writing connection, with a break for others every `SLICE_MS`. */
class Transaction implements SqlExecutor {
  /** Its slices; none on an in-memory database, whose one connection may not be left in the middle of it. */
  private readonly slices: Slices | undefined;

  constructor(
    private readonly statements: Statements,
    breaks: boolean,
  ) {
    this.slices = breaks ? new Slices(SLICE_MS) : undefined;
  }

  /** A break for others once the slice is used up (before a statement, and before the COMMIT). */
  async turn(): Promise<void> {
    await this.slices?.maybe();
  }

  /** Whether it ran longer than a slice: what comes after its COMMIT (the answer written) gets a slice of its own. */
  get long(): boolean {
    return this.slices?.long ?? false;
  }

  async get<T>(sql: string, params: readonly Param[] = []): Promise<T | undefined> {
    await this.turn();
    return getOn<T>(this.statements, sql, params);
  }

  async all<T>(sql: string, params: readonly Param[] = []): Promise<T[]> {
    await this.turn();
    return allOn<T>(this.statements, sql, params);
  }

  async page<T>(sql: string, params: readonly Param[] = []): Promise<Page<T>> {
    await this.turn();
    return pageOn<T>(this.statements, sql, params);
  }

  async run(sql: string, params: readonly Param[] = []): Promise<number> {
    await this.turn();
    return this.statements.get(sql).statement.run(...params).changes;
  }
}

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
  /** The read-only connection of a file database, opened at its first read. */
  private reader: { db: Db; statements: Statements } | undefined;
  /** Resolves when the transaction running now ends; undefined while none runs. */
  private running: Promise<void> | undefined;
  /** The transaction whose work is running, for its own statements made through the engine. */
  private readonly inside = new AsyncLocalStorage<Transaction>();
  /** A file database's checkpoints, off the event loop (store/checkpointer.ts); started by the first transaction. */
  private checkpoints: Checkpointer | undefined;

  private constructor(
    readonly db: Db,
    /** How long a transaction waits for the write lock held by another connection. */
    private readonly lockTimeoutMs: number = DEFAULT_LOCK_TIMEOUT_MS,
  ) {
    this.statements = new Statements(db);
    if (!db.memory) db.pragma(`cache_size = -${WRITER_CACHE_KIB}`);
  }

  /** Where a statement made outside a transaction runs: a read on the reader, a write once no transaction runs. */
  private async statementsFor(sql: string): Promise<Statements> {
    const readOnly = this.statements.get(sql).statement.readonly;
    // A transaction's own work reads what it wrote: on its connection.
    const own = this.inside.getStore() !== undefined;
    if (readOnly && !own && !this.db.memory) {
      if (!this.reader) {
        const db = new Database(this.db.name, { readonly: true, fileMustExist: true });
        db.pragma(`busy_timeout = ${SERVER_BUSY_TIMEOUT_MS}`);
        this.reader = { db, statements: new Statements(db) };
      }
      return this.reader.statements;
    }
    // A write made by a transaction's own work through the engine belongs to it; any other waits for its end.
    if (!readOnly && !own) while (this.running) await this.running;
    return this.statements;
  }

  async get<T>(sql: string, params: readonly Param[] = []): Promise<T | undefined> {
    return getOn<T>(await this.statementsFor(sql), sql, params);
  }

  async all<T>(sql: string, params: readonly Param[] = []): Promise<T[]> {
    return allOn<T>(await this.statementsFor(sql), sql, params);
  }

  async page<T>(sql: string, params: readonly Param[] = []): Promise<Page<T>> {
    return pageOn<T>(await this.statementsFor(sql), sql, params);
  }

  async run(sql: string, params: readonly Param[] = []): Promise<number> {
    return (await this.statementsFor(sql)).get(sql).statement.run(...params).changes;
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    if (!this.db.memory && !this.checkpoints) this.checkpoints = new Checkpointer(this.db);
    const run = async (): Promise<T> => {
      await whenUnlocked(() => this.db.exec('BEGIN IMMEDIATE'), this.lockTimeoutMs);
      let ended!: () => void;
      this.running = new Promise((resolve) => {
        ended = resolve;
      });
      const tx = new Transaction(this.statements, !this.db.memory);
      try {
        const result = await this.inside.run(tx, () => work(tx));
        await tx.turn();
        this.db.exec('COMMIT');
        if (tx.long) await nextTurn();
        return result;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      } finally {
        this.running = undefined;
        ended();
      }
    };
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  async ping(): Promise<void> {
    this.statements.get('SELECT 1').statement.get();
  }

  /** Copies the WAL into the database file now (tests; the checkpoints otherwise run on their own timer). */
  async checkpoint(): Promise<void> {
    await this.checkpoints?.now();
  }

  async close(): Promise<void> {
    await this.checkpoints?.stop();
    if (this.reader?.db.open) this.reader.db.close();
    if (this.db.open) this.db.close();
    // Once run, an AsyncLocalStorage keeps a hook on every promise of the process until it is disabled: a closed
    // engine's would slow every await of whatever runs in the process after it (another engine, a test file).
    this.inside.disable();
  }
}
