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
    this.mustWrite();
    const row = await this.get<{ value: number }>(
      `INSERT INTO domain_sequences (name, scope, value) VALUES (?, ?, 1)
       ON CONFLICT (name, scope) DO UPDATE SET value = domain_sequences.value + 1 RETURNING value`,
      name,
      scope,
    );
    return row!.value;
  }
}
