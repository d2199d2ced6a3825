import type Database from 'better-sqlite3';

/**
 * Prepared statements by SQL text, prepared once per connection: preparing costs more than running the small
 * statements the stores use, and it was a large share of a request's CPU under load (see BENCHMARKS.md).
 */
export class Statements {
  private readonly prepared = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let stmt = this.prepared.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.prepared.set(sql, stmt);
    }
    return stmt;
  }
}
