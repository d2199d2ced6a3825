// Where the demo credentials are kept once printed. The database keeps only hashes of keys and secrets, so the
// demo's keys and client credentials are written, when the demo data is loaded, to a local file beside the
// database (`demo-keys.json`, or `demo-keys-<hash of the URL>.json` for a PostgreSQL DATABASE, in DATA_DIR when it
// is set): `serve --demo`, `seed` and `pnpm start` (scripts/start.mjs) keep and read the same file, so a later
// start shows them again.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DemoAccount } from './demo.js';

const URL_SHAPE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The folder of local files: DATA_DIR, else the SQLite file's folder, else `./data` (relative to `cwd`). */
export function dataDirOf(env: Record<string, string | undefined>, cwd = process.cwd()): string {
  const database = env.DATABASE?.trim() || './data/reference.db';
  if (env.DATA_DIR?.trim()) return resolve(cwd, env.DATA_DIR.trim());
  if (URL_SHAPE.test(database) || database === ':memory:') return resolve(cwd, 'data');
  return dirname(resolve(cwd, database));
}

/** The demo credentials file of the database `DATABASE` names; undefined for `:memory:` (nothing outlives it). */
export function demoKeysPath(env: Record<string, string | undefined>, cwd = process.cwd()): string | undefined {
  const database = env.DATABASE?.trim() || './data/reference.db';
  if (database === ':memory:') return undefined;
  const name = URL_SHAPE.test(database)
    ? `demo-keys-${createHash('sha256').update(database).digest('hex').slice(0, 12)}.json`
    : 'demo-keys.json';
  return join(dataDirOf(env, cwd), name);
}

/** Writes the demo credentials (`{"accounts": […]}`, as `seed --json` prints them), readable by this user only. */
export function saveDemoKeys(path: string, accounts: DemoAccount[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ accounts }), { mode: 0o600 });
}

/** The demo credentials kept in `path`, or undefined when there are none (or the file is not ours). */
export function readDemoKeys(path: string): DemoAccount[] | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const { accounts } = JSON.parse(readFileSync(path, 'utf8')) as { accounts?: DemoAccount[] };
    return Array.isArray(accounts) ? accounts : undefined;
  } catch {
    return undefined;
  }
}
