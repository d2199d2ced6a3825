// What the SQL stores (`sql-accounts.ts`, `sql-domain.ts`) need from a database engine: statements with `?`
// parameters, a transaction, and the few spellings in which SQLite and PostgreSQL differ. `sqlite-engine.ts` and
// `pg-engine.ts` provide it, so the domain's and the accounts' SQL is written once for both engines.

export type Param = string | number | null;

/** The rows of a statement whose last column is the size of the whole set, and that size. */
export interface Page<T> {
  /** The rows without their last column. */
  rows: T[];
  /** The last column of the first row; undefined when no row came back. */
  total: number | undefined;
}

/** Runs statements on one connection (or, outside a transaction, on whichever connection the engine has free). */
export interface SqlExecutor {
  get<T>(sql: string, params?: readonly Param[]): Promise<T | undefined>;
  all<T>(sql: string, params?: readonly Param[]): Promise<T[]>;
  /** Like `all`, for a statement whose last column is the size of the whole set (the same in every row). */
  page<T>(sql: string, params?: readonly Param[]): Promise<Page<T>>;
  /** Runs a write; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly Param[]): Promise<number>;
}

/** The spellings that differ between the engines. */
export interface Dialect {
  /** `ifnull(x, y)` in SQLite (its expression index on stock uses it), `coalesce(x, y)` in PostgreSQL. */
  ifNull: 'ifnull' | 'coalesce';
  /** The larger of two values: SQLite's two-argument `max`, PostgreSQL's `greatest`. */
  greater: 'max' | 'greatest';
}

export type EngineName = 'sqlite' | 'postgres';

export interface SqlEngine extends SqlExecutor {
  readonly name: EngineName;
  readonly dialect: Dialect;
  /**
   * Runs `work` in one transaction that takes the write lock (SQLite) or runs at read committed with row locks
   * (PostgreSQL): committed when `work` resolves, rolled back when it rejects.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Whether a write would reach the database now (`/health`). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
