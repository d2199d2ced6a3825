// Another connection holding SQLite's write lock (another process on the file, an operator's command, a backup):
// reads are served at once (WAL), the monthly quota still counts them, writes wait for the lock on timers while the
// server keeps serving, and a write that cannot get the lock in time is 500 INTERNAL_ERROR in the envelope.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { monthKey } from '@cls-api/spec';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/store/db.js';
import { DEFAULT_LOCK_TIMEOUT_MS } from '../../src/store/sqlite-engine.js';
import { startTestServer, type TestServer, sqliteOf } from '../support/server.js';

let dir: string;
let file: string;
let s: TestServer | undefined;
let locker: Database.Database | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cls-reference-lock-'));
  file = join(dir, 'reference.db');
});
afterEach(async () => {
  if (locker?.inTransaction) locker.exec('ROLLBACK');
  locker?.close();
  locker = undefined;
  await s?.close();
  s = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A second connection on the same file that takes the write lock and keeps it until the test lets go. */
function holdWriteLock(): Database.Database {
  locker = new Database(file);
  locker.exec('BEGIN IMMEDIATE');
  return locker;
}

const product = (code: string) => ({ product_code: code, product_name: 'Locked', price: 1000, stock_quantity: 5 });

/** Settles to `done` or stays `pending`: lets a test see that a request is still waiting without timing it. */
function track<T>(promise: Promise<T>): { promise: Promise<T>; readonly state: 'pending' | 'done' } {
  const tracked = { promise, state: 'pending' as 'pending' | 'done' };
  void promise.then(
    () => (tracked.state = 'done'),
    () => (tracked.state = 'done'),
  );
  return tracked;
}

describe('SQLite write lock held by another connection', () => {
  it('the database runs in WAL mode, so readers do not wait for a writer', async () => {
    s = await startTestServer({ db: openDatabase(file), closeDb: true });
    expect(sqliteOf(s.app).pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('a test-key read is served at once and still counted; a write waits without blocking others, then completes', async () => {
    // The write must still be waiting when the lock is let go, however slowly the requests in between are served:
    // the lock wait is the longest the configuration allows, not the default 5 s (config.ts).
    s = await startTestServer({ db: openDatabase(file), closeDb: true, env: { DB_LOCK_TIMEOUT_MS: '600000' } });
    const seller = await s.account();
    const wms = await s.key(seller, 'wms');
    const lock = holdWriteLock();

    // The quota counter is a write: it must not make this read wait (it used to: 500 "database is locked" after 5 s).
    const read = await s.get('/v3/wms/suppliers', { apiKey: wms });
    expect(read.status).toBe(200);
    expect(read.headers['x-ratelimit-remaining']).toBe('999');

    const write = track(s.post('/v3/wms/products', product('LOCK-1'), { apiKey: wms }));
    // While the write waits for the lock, the event loop is free: other requests, reads and token grants are served.
    expect((await s.get('/health')).status).toBe(200);
    expect((await s.get('/v3/wms/products/LOCK-1', { apiKey: wms })).status).toBe(404);
    const again = await s.get('/v3/wms/suppliers', { apiKey: wms });
    // Counted in order: the read, the waiting write, the 404 read, this one.
    expect(again.headers['x-ratelimit-remaining']).toBe('996');
    expect(write.state).toBe('pending');

    lock.exec('COMMIT');
    const written = await write.promise;
    expect(written.status).toBe(200);
    expect((await s.get('/v3/wms/products/LOCK-1', { apiKey: wms })).status).toBe(200);
    // The calls counted during the lock reach the database once it is free.
    await s.app.usageMeter.settled();
    const month = monthKey(new Date(), s.config.serviceTimeZone);
    expect(await s.app.accounts.usage(seller, month, 'test')).toBe(5);
  });

  it('the quota still holds during a lock: calls not yet written count against it', async () => {
    s = await startTestServer({ db: openDatabase(file), closeDb: true, env: { TEST_KEY_MONTHLY_QUOTA: '3' } });
    const wms = await s.key(await s.account(), 'wms');
    expect((await s.get('/v3/wms/suppliers', { apiKey: wms })).status).toBe(200);
    const lock = holdWriteLock();
    expect((await s.get('/v3/wms/suppliers', { apiKey: wms })).status).toBe(200);
    expect((await s.get('/v3/wms/suppliers', { apiKey: wms })).status).toBe(200);
    const over = await s.get('/v3/wms/suppliers', { apiKey: wms });
    expect([over.status, over.body.error.code, over.headers['x-ratelimit-remaining']]).toEqual([
      429,
      'RATE_LIMIT_EXCEEDED',
      '0',
    ]);
    lock.exec('COMMIT');
    await s.app.usageMeter.settled();
    expect((await s.get('/v3/wms/suppliers', { apiKey: wms })).status).toBe(429);
  });

  it('the server waits as long as an engine made without a wait: one default, 5 s as the README says', () => {
    expect(loadConfig({}).dbLockTimeoutMs).toBe(DEFAULT_LOCK_TIMEOUT_MS);
    expect(DEFAULT_LOCK_TIMEOUT_MS).toBe(5_000);
  });

  it('a write that cannot get the lock within DB_LOCK_TIMEOUT_MS is 500 INTERNAL_ERROR in the envelope, and writes nothing', async () => {
    s = await startTestServer({ db: openDatabase(file), closeDb: true, env: { DB_LOCK_TIMEOUT_MS: '50' } });
    const seller = await s.account();
    const wms = await s.key(seller, 'wms');
    const client = await s.client(seller);
    const lock = holdWriteLock();
    const r = await s.post('/v3/wms/products', product('LOCK-2'), { apiKey: wms });
    expect([r.status, r.body]).toEqual([
      500,
      { success: false, error: { code: 'INTERNAL_ERROR', message: expect.any(String) } },
    ]);
    expect(r.text).not.toMatch(/locked|SQLITE/i);
    // Token grants write a refresh token: the same rule.
    const token = await s.post('/v3/auth/token', client);
    expect([token.status, token.body.error.code]).toEqual([500, 'INTERNAL_ERROR']);
    lock.exec('ROLLBACK');
    expect((await s.get('/v3/wms/products/LOCK-2', { apiKey: wms })).status).toBe(404);
    expect((await s.post('/v3/auth/token', client)).status).toBe(200);
  });
});
