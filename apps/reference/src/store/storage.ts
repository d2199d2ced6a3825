// Which database `DATABASE` names, and the server's storage on it: SQLite (a file path or `:memory:`, the embedded
// default) or PostgreSQL (`postgres://…`, `postgresql://…`), both behind the same two interfaces (store/interface.ts).
import { openDatabase, type Db } from './db.js';
import type { Storage } from './interface.js';
import { PgEngine } from './pg-engine.js';
import { SqlAccountStore } from './sql-accounts.js';
import { SqlDomainStore } from './sql-domain.js';
import type { SqlEngine } from './sql.js';
import { SqliteEngine } from './sqlite-engine.js';

export type DatabaseTarget =
  | { engine: 'sqlite'; path: string }
  | {
      engine: 'postgres';
      url: string;
      /** The URL without its password, for messages and logs. */
      display: string;
    };

/** A `DATABASE` value that names no database this server can use. */
export class DatabaseTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseTargetError';
  }
}

/** The database could not be opened, reached, logged into or migrated. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

const POSTGRES_SCHEMES = ['postgres:', 'postgresql:'];
/** `scheme://…`: a URL, not a file path (a Windows drive `C:\…` has no `//`). */
const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/** The URL with its password (given before the host, or as `?password=`) replaced: no message or log shows it. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@').replace(/([?&]password=)[^&]*/gi, '$1***');
  }
}

export function parseDatabaseTarget(value: string): DatabaseTarget {
  const scheme = URL_SHAPE.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return { engine: 'sqlite', path: value };
  const display = withoutPassword(value);
  if (!POSTGRES_SCHEMES.includes(`${scheme}:`)) {
    throw new DatabaseTargetError(
      `DATABASE must be a PostgreSQL URL (postgres://… or postgresql://…), a SQLite file path or :memory:; the scheme ${scheme}:// of "${display}" is not supported`,
    );
  }
  try {
    // No host is allowed: the client then uses PGHOST or the local server, as libpq does.
    new URL(value);
  } catch {
    throw new DatabaseTargetError(
      `DATABASE "${display}" is not a valid PostgreSQL URL (postgres://user:password@host:port/database)`,
    );
  }
  return { engine: 'postgres', url: value, display };
}

/** How the target is shown in messages: the path, or the URL without its password. */
export function describeTarget(target: DatabaseTarget): string {
  return target.engine === 'sqlite' ? target.path : target.display;
}

export interface StorageOptions {
  /** How long a SQLite write waits for the lock held by another connection (DB_LOCK_TIMEOUT_MS). */
  lockTimeoutMs?: number;
  /** How long getting a PostgreSQL connection (opened, or freed in a full pool) may take (DB_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
  onIdleError?: (err: Error) => void;
}

/** Both stores on one engine; closing the storage closes the engine. */
export class SqlStorage implements Storage {
  readonly accounts: SqlAccountStore;
  readonly domain: SqlDomainStore;

  constructor(readonly sql: SqlEngine) {
    this.accounts = new SqlAccountStore(sql);
    this.domain = new SqlDomainStore(sql);
  }

  get engine(): SqlEngine['name'] {
    return this.sql.name;
  }

  /** The better-sqlite3 connection of a SQLite storage (SQLite-only tests and tools); undefined on PostgreSQL. */
  get sqlite(): Db | undefined {
    return this.sql instanceof SqliteEngine ? this.sql.db : undefined;
  }

  ping(): Promise<void> {
    return this.sql.ping();
  }

  close(): Promise<void> {
    return this.sql.close();
  }
}

/** The storage on an open (migrated) SQLite connection. */
export function sqliteStorage(db: Db, options: StorageOptions = {}): SqlStorage {
  return new SqlStorage(SqliteEngine.of(db, options.lockTimeoutMs));
}

/**
 * Opens the database `DATABASE` names and applies its engine's pending migrations. Any failure (a file that cannot
 * be created, a PostgreSQL server that cannot be reached or refuses the credentials, a migration that fails) is a
 * `DatabaseUnavailableError` naming the database without its password.
 */
export async function openStorage(target: DatabaseTarget, options: StorageOptions = {}): Promise<SqlStorage> {
  try {
    if (target.engine === 'sqlite') return sqliteStorage(openDatabase(target.path), options);
    const { onIdleError, connectTimeoutMs } = options;
    return new SqlStorage(
      await PgEngine.open(target.url, {
        ...(onIdleError ? { onIdleError } : {}),
        ...(connectTimeoutMs !== undefined ? { connectTimeoutMs } : {}),
      }),
    );
  } catch (err) {
    throw openFailure(target, err);
  }
}

/**
 * Why the database `target` names could not be opened, as the error `openStorage` throws: the database named without
 * its password, with a hint where the cause is a known one.
 */
export function openFailure(target: DatabaseTarget, err: unknown): DatabaseUnavailableError {
  if (target.engine === 'sqlite' && driverNotLoaded(err))
    return new DatabaseUnavailableError(driverMessage(err), { cause: err });
  const reason = err instanceof Error ? err.message : String(err);
  const safe = target.engine === 'postgres' ? reason.split(target.url).join(target.display) : reason;
  // pg's own words when the server asks for a password and the URL has none.
  const hint =
    target.engine === 'postgres' && /password must be a string/.test(reason)
      ? ' (the server asks for a password and none was given: put it in the URL, postgres://user:password@host:port/database, or in PGPASSWORD)'
      : '';
  return new DatabaseUnavailableError(`DATABASE ${describeTarget(target)} cannot be used: ${safe}${hint}`, {
    cause: err,
  });
}

/**
 * better-sqlite3's native addon did not load: built for another Node.js (`pnpm install` builds it for the Node.js
 * that ran the install, and a version manager may switch Node.js after it), or never built. Not the database's fault.
 */
function driverNotLoaded(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return code === 'ERR_DLOPEN_FAILED' || /Could not locate the bindings file/.test(String(message));
}

function driverMessage(err: unknown): string {
  const message = String((err as { message?: unknown }).message);
  const built = /using\s+NODE_MODULE_VERSION (\d+)/.exec(message)?.[1];
  const needed = /requires\s+NODE_MODULE_VERSION (\d+)/.exec(message)?.[1];
  const why =
    built && needed
      ? `it was built for another Node.js (module version ${built}; ${process.version} needs ${needed})`
      : /Could not locate the bindings file/.test(message)
        ? 'it was never built (its build script did not run at install)'
        : message.split('\n')[0];
  return `SQLite's driver (better-sqlite3) cannot be loaded by Node.js ${process.version}: ${why}. Run \`pnpm --filter @cls-api/reference rebuild better-sqlite3\` to build it for this Node.js, or use PostgreSQL (DATABASE=postgres://…).`;
}
