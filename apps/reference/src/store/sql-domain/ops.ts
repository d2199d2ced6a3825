// What every table's statements share (store/sql-domain.ts): one executor, the engine's spellings, the rule that
// writes run only inside a transaction, pages of rows with their total, and the counters that number new rows.
import type { Environment, Owner } from '../../environment.js';
import type { Slice, Window } from '../interface.js';
import type { Dialect, Param, SqlExecutor } from '../sql.js';

/**
 * A row limit given as a parameter, in a form SQLite's planner does not read. SQLite (3.47 and later) reads a bare
 * `LIMIT ?`'s bound value when it plans, and then prepares the statement again each time that parameter is bound:
 * on every call, since every call binds it. That re-preparing cost more than the statement itself (the bench's
 * profile). The cast is the same limit to both engines.
 */
export const LIMIT = 'LIMIT CAST(? AS INTEGER)';
const LIMIT_OFFSET = `${LIMIT} OFFSET ?`;

/** The owner's two key columns (`account_id = ? AND environment = ?`), as statement parameters. */
export const ownerParams = (owner: Owner): [string, Environment] => [owner.accountId, owner.environment];

export function describeOwner(owner: Owner): string {
  return `account ${owner.accountId} (${owner.environment})`;
}

/**
 * Reads and writes on one executor: the engine itself outside a transaction, the transaction's connection inside
 * one. Writes refuse to run outside a transaction.
 */
export class SqlOps {
  constructor(
    private readonly exec: SqlExecutor,
    protected readonly d: Dialect,
    private readonly writable: boolean,
  ) {}

  protected get<T>(sql: string, ...params: Param[]): Promise<T | undefined> {
    return this.exec.get<T>(sql, params);
  }

  protected all<T>(sql: string, ...params: Param[]): Promise<T[]> {
    return this.exec.all<T>(sql, params);
  }

  protected run(sql: string, ...params: Param[]): Promise<number> {
    this.mustWrite();
    return this.exec.run(sql, params);
  }

  /** A write whose rows (`RETURNING …`) are read. */
  protected writeAll<T>(sql: string, ...params: Param[]): Promise<T[]> {
    this.mustWrite();
    return this.exec.all<T>(sql, params);
  }

  private mustWrite(): void {
    if (!this.writable) throw new Error('domain store writes must run inside transaction()');
  }

  /**
   * `SELECT <columns> <from-where> ORDER BY …` as one window plus the total count of matching rows. Both come from one
   * statement, so from one snapshot: a row another request or instance commits meanwhile is in both or in neither.
   */
  protected async slice<T>(
    columns: string,
    fromWhere: string,
    orderBy: string,
    params: Param[],
    window: Window,
    count: { sql: string; params: Param[] } = { sql: `SELECT count(*) ${fromWhere}`, params },
  ): Promise<Slice<T>> {
    const { rows, total } = await this.exec.page<T>(
      `SELECT ${columns}, (${count.sql}) AS slice_total ${fromWhere} ORDER BY ${orderBy} ${LIMIT_OFFSET}`,
      [...count.params, ...params, window.limit, window.offset],
    );
    if (total === undefined) {
      // An empty window (nothing matches, or the page is past the end) still says how many rows match.
      const n = (await this.get<{ n: number }>(`SELECT (${count.sql}) AS n`, ...count.params))?.n ?? 0;
      return { items: [], total: n };
    }
    return { items: rows, total };
  }

  async nextSequence(name: string, scope: string): Promise<number> {
    return this.nextSequenceBlock(name, scope, 1);
  }

  /** Reserves `count` consecutive values of the counter in one statement; resolves to the first of them. */
  async nextSequenceBlock(name: string, scope: string, count: number): Promise<number> {
    this.mustWrite();
    const row = await this.get<{ value: number }>(
      `INSERT INTO domain_sequences (name, scope, value) VALUES (?, ?, ?)
       ON CONFLICT (name, scope) DO UPDATE SET value = domain_sequences.value + excluded.value RETURNING value`,
      name,
      scope,
      count,
    );
    return Number(row!.value) - count + 1;
  }
}

/** The most rows one multi-row statement carries; a draft row is 14 parameters, so 3,584 at most. */
export const BATCH_ROWS = 256;

/**
 * `items` cut into batches whose sizes are `BATCH_ROWS` or powers of two below it (1,000 rows: 256, 256, 256, 128,
 * 64, 32, 8), so that a statement built for a batch is one of nine texts whatever the request's size: each engine
 * prepares a text once (statements.ts, pg-engine.ts) and holds a bounded number of them.
 */
export function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  let at = 0;
  while (at < items.length) {
    const left = items.length - at;
    let size = BATCH_ROWS;
    while (size > left) size /= 2;
    out.push(items.slice(at, at + size));
    at += size;
  }
  return out;
}

/** `(?, ?, …)` for `n` parameters. */
export const placeholders = (n: number): string => `(${Array.from({ length: n }, () => '?').join(', ')})`;

/**
 * `build(rows)` remembered for each batch size. A multi-row statement's text is long (a 256-row draft insert is
 * 3,584 placeholders); built anew on every call, it was a visible share of a 1,000-row request, and each new string
 * was hashed again by the engine's statement cache. `batches` yields at most nine sizes, so this holds nine texts.
 */
export function perBatchSize(build: (rows: number) => string): (rows: number) => string {
  const texts = new Map<number, string>();
  return (rows) => {
    let text = texts.get(rows);
    if (text === undefined) {
      text = build(rows);
      texts.set(rows, text);
    }
    return text;
  };
}
