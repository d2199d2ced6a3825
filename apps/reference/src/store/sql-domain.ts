// The domain store (store/interface.ts) in SQL, once for both engines (store/sql.ts): SQLite through
// `sqlite-engine.ts`, PostgreSQL through `pg-engine.ts`. The schemas are `migrations/sqlite/` (002_domain.sql as
// 003_environments.sql changed it) and `migrations/postgres/`: every row belongs to an account and an environment.
//
// Each table's statements live in the file named after what it holds (`sql-domain/`): products (with suppliers and
// options), stock, orders (with drafts), returns, deposits, videos, the sandbox's, on what they share (`sql-domain/ops.ts`). Each
// extends the one before it only so that together they are one class: a transaction's operations are one object
// whose methods are on its prototype, as cheap to make per transaction as before the split. The order of the chain
// means nothing.
import type { DomainStore, StoreTransaction } from './interface.js';
import type { SqlEngine } from './sql.js';
import { SqlSandboxOps } from './sql-domain/sandbox.js';

/** Every read and write of the domain on one executor (`sql-domain/ops.ts`). */
class SqlStoreOps extends SqlSandboxOps implements StoreTransaction {}

/** The domain store on a SQL engine: reads on the engine, writes in `transaction`. */
export class SqlDomainStore extends SqlStoreOps implements DomainStore {
  constructor(readonly engine: SqlEngine) {
    super(engine, engine.dialect, false);
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.engine.transaction((exec) => work(new SqlStoreOps(exec, this.engine.dialect, true)));
  }
}
