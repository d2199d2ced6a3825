import type Database from 'better-sqlite3';

/** Builds a row object from a row's values in column order. */
export type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * A function that turns a row's values into an object with these keys, compiled once per statement. better-sqlite3
 * builds each row object through V8's API, one property at a time, interning each column name again for every row:
 * most of a short page's cost in the profile. A compiled object literal has one shape, built at JavaScript speed.
 * The keys are the statement's own column names (the stores' SQL, never input), each written as a JSON string; a
 * repeated name keeps its last value, as better-sqlite3's objects do. A column named `__proto__` would set the
 * object's prototype (in better-sqlite3's objects too): it is refused.
 */
export function rowBuilder(names: readonly string[]): RowBuilder {
  if (names.includes('__proto__')) throw new Error('a column named __proto__ cannot be a row object key');
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`);
  return new Function('v', `"use strict"; return { ${fields.join(', ')} };`) as RowBuilder;
}

/** A prepared statement, and for one that returns rows, how its rows become objects. */
export interface Prepared {
  readonly statement: Database.Statement;
  /** Every column. */
  row(): RowBuilder;
  /** Every column but the last (a page's `slice_total`). */
  rowWithoutLast(): RowBuilder;
}

class PreparedStatement implements Prepared {
  private all?: RowBuilder;
  private allButLast?: RowBuilder;
  private rawOn = false;

  constructor(readonly statement: Database.Statement) {}

  private names(): string[] {
    // Rows are read as arrays from here on: only statements that return data are ever read (`get`, `all`).
    if (!this.rawOn) {
      this.statement.raw(true);
      this.rawOn = true;
    }
    return this.statement.columns().map((c) => c.name);
  }

  row(): RowBuilder {
    if (!this.all) this.all = rowBuilder(this.names());
    return this.all;
  }

  rowWithoutLast(): RowBuilder {
    if (!this.allButLast) this.allButLast = rowBuilder(this.names().slice(0, -1));
    return this.allButLast;
  }
}

/**
 * Prepared statements by SQL text, prepared once per connection: preparing costs more than running the small
 * statements the stores use, and it was a large share of a request's CPU under load (see BENCHMARKS.md).
 */
export class Statements {
  private readonly prepared = new Map<string, PreparedStatement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Prepared {
    let stmt = this.prepared.get(sql);
    if (!stmt) {
      stmt = new PreparedStatement(this.db.prepare(sql));
      this.prepared.set(sql, stmt);
    }
    return stmt;
  }
}
