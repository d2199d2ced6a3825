import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export type Db = Database.Database;

/**
 * The SQL migrations ship as source, one folder per engine: from `src/store/db.ts` and from `dist/store/db.js`
 * alike, two levels up is the package directory. Each engine numbers its own migrations.
 */
const migrationsRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'store', 'migrations');
export const migrationsDir = join(migrationsRoot, 'sqlite');
export const postgresMigrationsDir = join(migrationsRoot, 'postgres');

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

const FILE_NAME = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

/** The migration files of `dir`, in version order; gaps, duplicates and stray files are errors. */
export function readMigrations(dir: string = migrationsDir): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.sql')) continue;
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`migration file ${file} is not named NNN_name.sql`);
    const sql = readFileSync(join(dir, file), 'utf8');
    migrations.push({
      version: Number(match[1]),
      name: match[2]!,
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  migrations.sort((a, b) => a.version - b.version);
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new Error(
        `migrations must be numbered 001, 002, … without gaps or repeats; found ${String(m.version).padStart(3, '0')}_${m.name} at position ${i + 1}`,
      );
    }
  });
  return migrations;
}

export interface OpenOptions {
  migrationsDir?: string;
}

/** Opens the database (WAL for a file, plain for `:memory:`) and applies the pending migrations. */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const db = new Database(path);
  try {
    if (path !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    migrate(db, readMigrations(options.migrationsDir));
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Applies each migration not yet recorded in `schema_migrations`, each in its own transaction. */
export function migrate(db: Db, migrations: Migration[]): { applied: number[] } {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    checksum   TEXT    NOT NULL,
    applied_at TEXT    NOT NULL
  )`);
  const recorded = new Map(
    (
      db.prepare('SELECT version, name, checksum FROM schema_migrations').all() as Array<{
        version: number;
        name: string;
        checksum: string;
      }>
    ).map((r) => [r.version, r]),
  );
  checkRecorded(recorded, migrations);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)');
  const applied: number[] = [];
  for (const m of migrations) {
    if (recorded.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, m.checksum, new Date().toISOString());
    })();
    applied.push(m.version);
  }
  return { applied };
}

const label = (version: number, name: string) => `${String(version).padStart(3, '0')}_${name}`;

/**
 * Refuses a database whose recorded migrations this code does not have (it is newer) or whose applied migration
 * changed since (databases that ran the old text would be in an unknown state). Both engines use it.
 */
export function checkRecorded(
  recorded: ReadonlyMap<number, { name: string; checksum: string }>,
  migrations: readonly Migration[],
): void {
  for (const [version, row] of recorded) {
    const file = migrations.find((m) => m.version === version);
    if (!file)
      throw new Error(
        `the database has migration ${label(version, row.name)}, which this server does not know: it is newer than this code`,
      );
    if (file.checksum !== row.checksum || file.name !== row.name) {
      throw new Error(
        `migration ${label(version, file.name)} changed after it was applied; add a new migration instead`,
      );
    }
  }
}
