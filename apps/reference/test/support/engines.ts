// The storage engines a suite runs on: SQLite in memory, and PostgreSQL on the run's own server
// (test/global-setup.ts), one new database per call: empty, or a copy of the run's migrated template.
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { TEST_CONNECT_TIMEOUT_MS } from './connect-timeout.js';
import {
  openStorage,
  parseDatabaseTarget,
  type SqlStorage,
  type StorageOptions,
  sqliteStorage,
} from '../../src/store/storage.js';

export type EngineName = 'sqlite' | 'postgres';
export const ENGINES: readonly EngineName[] = ['sqlite', 'postgres'];

let databases = 0;

/**
 * A new PostgreSQL database on the run's server; its URL. Empty, or with `migrated` a copy of the run's template,
 * which holds every migration as `openStorage` applies them (and checks again when it opens the copy).
 */
export async function newPostgresDatabase(options: { migrated?: boolean } = {}): Promise<string> {
  const base = inject('postgresBaseUrl');
  const name = `cls_${process.pid}_${Date.now()}_${databases++}`;
  const admin = new pg.Client({ connectionString: `${base}postgres` });
  await admin.connect();
  try {
    await admin.query(
      `CREATE DATABASE ${name}${options.migrated ? ` TEMPLATE ${inject('postgresMigratedTemplate')}` : ''}`,
    );
  } finally {
    await admin.end();
  }
  return `${base}${name}`;
}

/** Fresh, migrated storage of the engine. */
export async function openTestStorage(engine: EngineName, options: StorageOptions = {}): Promise<SqlStorage> {
  if (engine === 'sqlite') return sqliteStorage(openDatabase(':memory:'), options);
  return openStorage(parseDatabaseTarget(await newPostgresDatabase({ migrated: true })), {
    connectTimeoutMs: TEST_CONNECT_TIMEOUT_MS,
    ...options,
  });
}
