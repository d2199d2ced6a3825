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
    const recorded = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as Array<{
      version: number;
      name: string;
    }>;
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

  it('migration 003 moves data written before 3.1 into the test environment and keeps it intact', () => {
    // A database as 3.0 left it: only the migrations up to 002, with a product, an option, stock, an order, two
    // returns (one registered before the day's 18:00, one after it) and client credentials.
    const old = join(dir, 'migrations-3.0');
    mkdirSync(old);
    for (const f of readdirSync(migrationsDir).filter((f) => /^00[12]_/.test(f)))
      copyFileSync(join(migrationsDir, f), join(old, f));
    const file = join(dir, 'from-3.0.db');
    const before = openDatabase(file, { migrationsDir: old });
    const seoul = (iso: string) => Date.parse(iso) / 1000;
    before.exec(`
      INSERT INTO accounts (account_id, name, paid, created_at) VALUES ('acc_old', 'Old', 1, 0);
      INSERT INTO client_credentials (client_id, account_id, secret_hash, created_at) VALUES ('cli_OLDOLDOLDOLDOLDOLD', 'acc_old', 'h', 0);
      INSERT INTO products (account_id, product_code, product_name, price, created_at, updated_at) VALUES ('acc_old', 'P-1', 'Old product', 100, 1, 1);
      INSERT INTO product_options (account_id, product_code, option_code, option_name, additional_price, created_at) VALUES ('acc_old', 'P-1', 'O-1', 'Old option', 0, 1);
      INSERT INTO stock (account_id, product_code, option_code, quantity, updated_at) VALUES ('acc_old', 'P-1', NULL, 3, 1), ('acc_old', 'P-1', 'O-1', 4, 1);
      INSERT INTO orders (account_id, order_no, mall_order_no, mall_product_name, product_code, option_code, quantity, receiver_name,
                          receiver_phone, receiver_address, order_status_code, registered_at, updated_at)
        VALUES ('acc_old', 'ORD-20261120-0001', 'M-1', 'Old product', 'P-1', 'O-1', 1, 'Kim', '010-1111-2222', 'Seoul', 10, 1, 1);
    `);
    const insertReturn = before.prepare(
      `INSERT INTO returns (account_id, return_no, order_no, reason, registered_at, cancellable_until, withdrawn_at) VALUES ('acc_old', ?, 'ORD-20261120-0001', 'x', ?, ?, ?)`,
    );
    // 3.0 ended every window at 18:00 of the registration day, even for a return registered after it.
    insertReturn.run(
      'RET-MORNING',
      seoul('2026-11-20T01:00:00Z'),
      seoul('2026-11-20T09:00:00Z'),
      seoul('2026-11-20T02:00:00Z'),
    );
    insertReturn.run('RET-EVENING', seoul('2026-11-20T10:00:00Z'), seoul('2026-11-20T09:00:00Z'), null);
    before.close();

    const after = openDatabase(file);
    const rows = (table: string) => after.prepare(`SELECT * FROM ${table}`).all() as Array<Record<string, unknown>>;
    for (const table of ['products', 'product_options', 'stock', 'orders', 'returns']) {
      expect(rows(table).length, table).toBeGreaterThan(0);
      expect(new Set(rows(table).map((r) => r.environment)), table).toEqual(new Set(['test']));
    }
    expect(rows('client_credentials')).toEqual([
      expect.objectContaining({ client_id: 'cli_OLDOLDOLDOLDOLDOLD', environment: 'test' }),
    ]);
    expect(rows('stock').map((r) => [r.option_code, r.quantity])).toEqual([
      [null, 3],
      ['O-1', 4],
    ]);
    // The 3.1 window (DECISIONS G13): the evening return may be withdrawn until 18:00 the next day.
    expect(Object.fromEntries(rows('returns').map((r) => [r.return_no, r.cancellable_until]))).toEqual({
      'RET-MORNING': seoul('2026-11-20T09:00:00Z'),
      'RET-EVENING': seoul('2026-11-21T09:00:00Z'),
    });
    expect(after.pragma('foreign_key_check')).toEqual([]);
    // The orders written before the count was kept are counted once, when it starts to be kept.
    expect(rows('order_counts')).toEqual([{ account_id: 'acc_old', environment: 'test', n: 1 }]);
    // Codes are now unique per account and environment: the live world may use the same product code.
    after
      .prepare(
        `INSERT INTO products (account_id, environment, product_code, product_name, price, created_at, updated_at) VALUES ('acc_old', 'live', 'P-1', 'Live', 1, 1, 1)`,
      )
      .run();
    expect(() =>
      after
        .prepare(
          `INSERT INTO products (account_id, environment, product_code, product_name, price, created_at, updated_at) VALUES ('acc_old', 'test', 'P-1', 'Again', 1, 1, 1)`,
        )
        .run(),
    ).toThrow(/UNIQUE/);
    // The foreign keys follow the renamed tables: an option of a product that does not exist in its environment is refused.
    expect(() =>
      after
        .prepare(
          `INSERT INTO product_options (account_id, environment, product_code, option_code, option_name, additional_price, created_at) VALUES ('acc_old', 'live', 'NOPE', 'O', 'O', 0, 1)`,
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    after.close();
  });

  it('a restart keeps accounts, keys, usage and every acknowledged row', async () => {
    const file = join(dir, 'reference.db');
    const clock = new TestClock('2026-11-20T03:00:00Z');
    s = await startTestServer({ clock: clock.now, db: openDatabase(file), closeDb: true });
    const seller = await s.account();
    const wms = await s.key(seller, 'wms');
    const client = await s.app.accounts.createClient(seller, 'test', clock.now());
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
