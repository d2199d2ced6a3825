import type { Db } from './db.js';
import { SqlDomainStore } from './sql-domain.js';
import { SqliteEngine } from './sqlite-engine.js';

/**
 * The domain store on one better-sqlite3 connection. A transaction whose work awaits only this store runs to its
 * end without waiting on I/O; transactions are queued one after another on the connection (store/sqlite-engine.ts).
 */
export class SqliteDomainStore extends SqlDomainStore {
  constructor(db: Db, lockTimeoutMs?: number) {
    super(SqliteEngine.of(db, lockTimeoutMs));
  }
}
