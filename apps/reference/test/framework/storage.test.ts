import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrationsDir, openDatabase, readMigrations } from '../../src/store/db.js';
import { TestClock } from '../support/clock.js';
import { startTestServer, type TestServer } from '../support/server.js';

let dir: string;
let s: TestServer | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cls-reference-db-'));
});
afterEach(async () => {
  await s?.close();
  s = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite storage', () => {
  it('a file database runs in WAL mode and records each migration once, in order', () => {
    const file = join(dir, 'nested', 'reference.db');
    const db = openDatabase(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const recorded = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as Array<{ version: number; name: string }>;
    const files = readMigrations();
    expect(recorded).toEqual(files.map((m) => ({ version: m.version, name: m.name })));
    expect(recorded[0]).toEqual({ version: 1, name: 'accounts' });
    db.close();
    const again = openDatabase(file);
    expect(again.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get()).toEqual({ n: files.length });
    again.close();
  });

  it('applies only the pending migrations, and refuses an applied migration that changed', () => {
    const own = join(dir, 'migrations');
    mkdirSync(own);
    writeFileSync(join(own, '001_first.sql'), 'CREATE TABLE a (x INTEGER);');
    const file = join(dir, 'm.db');
    openDatabase(file, { migrationsDir: own }).close();
    writeFileSync(join(own, '002_second.sql'), 'CREATE TABLE b (y INTEGER);');
    const db = openDatabase(file, { migrationsDir: own });
    expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual([1, 2]);
    db.close();
    writeFileSync(join(own, '001_first.sql'), 'CREATE TABLE a (x INTEGER, z TEXT);');
    expect(() => openDatabase(file, { migrationsDir: own })).toThrow(/001_first changed after it was applied/);
  });

  it('a failing migration leaves nothing behind', () => {
    const own = join(dir, 'migrations');
    mkdirSync(own);
    writeFileSync(join(own, '001_first.sql'), 'CREATE TABLE a (x INTEGER);');
    writeFileSync(join(own, '002_broken.sql'), 'CREATE TABLE b (y INTEGER); INSERT INTO nowhere VALUES (1);');
    const file = join(dir, 'm.db');
    expect(() => openDatabase(file, { migrationsDir: own })).toThrow(/nowhere/);
    writeFileSync(join(own, '002_broken.sql'), 'CREATE TABLE b (y INTEGER);');
    rmSync(join(own, '002_broken.sql'));
    writeFileSync(join(own, '002_fixed.sql'), 'CREATE TABLE b (y INTEGER);');
    const db = openDatabase(file, { migrationsDir: own });
    expect(db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()).toEqual([
      { version: 1, name: 'first' },
      { version: 2, name: 'fixed' },
    ]);
    db.close();
  });

  it('gaps, repeats and badly named files are errors; a database newer than the code is refused', () => {
    const own = join(dir, 'migrations');
    mkdirSync(own);
    writeFileSync(join(own, '001_first.sql'), 'SELECT 1;');
    writeFileSync(join(own, '003_third.sql'), 'SELECT 1;');
    expect(() => readMigrations(own)).toThrow(/without gaps or repeats/);
    rmSync(join(own, '003_third.sql'));
    writeFileSync(join(own, '2-second.sql'), 'SELECT 1;');
    expect(() => readMigrations(own)).toThrow(/not named NNN_name.sql/);
    rmSync(join(own, '2-second.sql'));
    const file = join(dir, 'm.db');
    const full = join(dir, 'full');
    mkdirSync(full);
    for (const f of readdirSync(migrationsDir)) copyFileSync(join(migrationsDir, f), join(full, f));
    openDatabase(file, { migrationsDir: full }).close();
    expect(() => openDatabase(file, { migrationsDir: own })).toThrow(/newer than this code|changed after/);
  });

  it('a restart keeps accounts, keys, usage and every acknowledged row', async () => {
    const file = join(dir, 'reference.db');
    const clock = new TestClock('2026-11-20T03:00:00Z');
    s = await startTestServer({ clock: clock.now, db: openDatabase(file), closeDb: true });
    const seller = s.account();
    const wms = s.key(seller, 'wms');
    const client = s.app.accounts.createClient(seller, clock.now());
    const created = await s.post(
      '/v3/wms/products',
      { product_code: 'KEEP-1', product_name: 'Kept product', price: 12000, stock_quantity: 7 },
      { apiKey: wms },
    );
    expect(created.status).toBe(200);
    const tokens = (await s.post('/v3/auth/token', client)).body.data;
    await s.close();
    s = undefined;

    s = await startTestServer({ clock: clock.now, db: openDatabase(file), closeDb: true });
    const read = await s.get('/v3/wms/products/KEEP-1', { apiKey: wms });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ product_code: 'KEEP-1', product_name: 'Kept product', price: 12000 });
    // Two counted calls before the restart, this is the third.
    expect(read.headers['x-ratelimit-remaining']).toBe(String(s.config.testKeyMonthlyQuota - 2));
    expect((await s.post('/v3/auth/token/refresh', { refresh_token: tokens.refresh_token })).status).toBe(200);
  });
});
