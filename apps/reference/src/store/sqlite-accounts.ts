import type { Db } from './db.js';
import { SqlAccountStore } from './sql-accounts.js';
import { SqliteEngine } from './sqlite-engine.js';

/** The account store on one better-sqlite3 connection (store/sql-accounts.ts on store/sqlite-engine.ts). */
export class SqliteAccountStore extends SqlAccountStore {
  constructor(db: Db, lockTimeoutMs?: number) {
    super(SqliteEngine.of(db, lockTimeoutMs));
  }
}
