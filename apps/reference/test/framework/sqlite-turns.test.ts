// A long transaction on a file database lets other requests be served between its statements
// (src/store/sqlite-engine.ts), and what they do then is as if they came before or after it, never inside it: a read
// sees the last committed state (the read-only connection), a write waits for the transaction's end, and the
// transaction's own work reads what it wrote. The WAL is copied into the file by a thread of its own
// (src/store/checkpointer.ts), not by the COMMIT. The breaks are driven by a clock the test moves, not by time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Db, openDatabase } from '../../src/store/db.js';
import { SLICE_MS } from '../../src/slices.js';
import { SqliteEngine, WRITER_CACHE_KIB } from '../../src/store/sqlite-engine.js';
import { turnsDuring } from '../support/turns.js';

let dir: string;
let db: Db;
let engine: SqliteEngine;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cls-sqlite-turns-'));
  db = openDatabase(join(dir, 'reference.db'));
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, note TEXT)');
  engine = SqliteEngine.of(db);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A clock that moves past the slice at every reading: each statement of a transaction comes after a break. */
function slowClock(): void {
  let now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => (now += SLICE_MS + 1));
}

const count = async () => (await engine.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n;

describe('a long transaction on a file database', () => {
  it('takes breaks between its statements, in which other work runs', async () => {
    slowClock();
    const { turns } = await turnsDuring(() =>
      engine.transaction(async (tx) => {
        for (let i = 0; i < 20; i++) await tx.run('INSERT INTO t (note) VALUES (?)', [`row ${i}`]);
      }),
    );
    expect(turns).toBeGreaterThanOrEqual(19);
    expect(await count()).toBe(20);
  });

  it('in a break, a read sees the state before it; the transaction reads its own rows; a write waits for its end', async () => {
    slowClock();
    await engine.run('INSERT INTO t (note) VALUES (?)', ['before']);
    const seenOutside: number[] = [];
    const seenInside: number[] = [];
    const order: string[] = [];
    const tx = engine.transaction(async (tx) => {
      for (let i = 0; i < 5; i++) {
        await tx.run('INSERT INTO t (note) VALUES (?)', [`row ${i}`]);
        // A read of the work itself made through the engine, as a store's helper may make it.
        seenInside.push(await count());
        await nextTurn();
      }
      order.push('transaction done');
    });
    // Another request, in the breaks: reads, then a write of its own.
    await nextTurn();
    seenOutside.push(await count());
    const write = engine.run('INSERT INTO t (note) VALUES (?)', ['other request']).then(() => order.push('write done'));
    await nextTurn();
    seenOutside.push(await count());
    await Promise.all([tx, write]);
    expect(seenOutside).toEqual([1, 1]);
    expect(seenInside).toEqual([2, 3, 4, 5, 6]);
    expect(order).toEqual(['transaction done', 'write done']);
    expect(await count()).toBe(7);
  });

  it('a transaction that fails leaves nothing, and the write that waited for it is kept', async () => {
    slowClock();
    const tx = engine.transaction(async (tx) => {
      await tx.run('INSERT INTO t (note) VALUES (?)', ['lost']);
      await nextTurn();
      await nextTurn();
      throw new Error('a row failed');
    });
    await nextTurn();
    const write = engine.run('INSERT INTO t (note) VALUES (?)', ['kept']);
    await expect(tx).rejects.toThrow('a row failed');
    await write;
    expect(await engine.all('SELECT note FROM t')).toEqual([{ note: 'kept' }]);
  });

  it('writes its pages to the WAL as its statements run, not all at its COMMIT; failing, it leaves none of them', async () => {
    const wal = join(dir, 'reference.db-wal');
    const rows = 400;
    let walBeforeCommit = 0;
    let seenInBreak = -1;
    const tx = engine.transaction(async (tx) => {
      for (let i = 0; i < rows; i++) await tx.run('INSERT INTO t (note) VALUES (?)', ['x'.repeat(4_000)]);
      walBeforeCommit = statSync(wal).size;
      await nextTurn();
      throw new Error('the last row failed');
    });
    await nextTurn();
    seenInBreak = await count();
    await expect(tx).rejects.toThrow('the last row failed');
    // Most of its 1.6 MB were in the WAL before its end (within SQLite's default cache, none would have been)...
    expect(walBeforeCommit).toBeGreaterThan(rows * 4_000 - WRITER_CACHE_KIB * 1024);
    // ...and none of it is in the database: not seen in a break, not after, not by the writer, not by a new connection.
    expect(seenInBreak).toBe(0);
    expect(await count()).toBe(0);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 0 });
    await engine.transaction(async (tx) => tx.run('INSERT INTO t (note) VALUES (?)', ['kept']));
    const fresh = new Database(join(dir, 'reference.db'), { readonly: true });
    try {
      expect(fresh.prepare('SELECT note FROM t').all()).toEqual([{ note: 'kept' }]);
    } finally {
      fresh.close();
    }
  });

  it('its COMMIT leaves the WAL to the checkpoint thread, which copies it into the database file', async () => {
    const file = join(dir, 'reference.db');
    const before = statSync(file).size;
    await engine.transaction(async (tx) => {
      for (let i = 0; i < 60; i++) await tx.run('INSERT INTO t (note) VALUES (?)', ['x'.repeat(100_000)]);
    });
    // The COMMIT did not checkpoint (SQLite's default would have: these 6 MB are more than 1,000 pages of WAL)...
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(statSync(file).size).toBe(before);
    // ...the thread does.
    await engine.checkpoint();
    expect(statSync(file).size).toBeGreaterThan(before + 60 * 100_000);
  });
});

describe('the checkpoint thread', () => {
  it('never holds a command open, and never ends one early: the built admin command writes, closes and exits 0', () => {
    const cli = resolve(import.meta.dirname, '../../dist/cli.js');
    const env = { PATH: process.env.PATH ?? '', DATABASE: join(dir, 'admin.db'), LOG_LEVEL: 'silent' };
    const made = spawnSync(process.execPath, [cli, 'admin', 'account', 'create', '--name', 'Turns', '--json'], {
      env,
      encoding: 'utf8',
    });
    expect(made.status, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).account_id).toMatch(/^acc_/);
  });
});

describe('an in-memory database', () => {
  it('has one connection: its transactions take no break', async () => {
    const memory = SqliteEngine.of(openDatabase(':memory:'));
    try {
      await memory.run('CREATE TABLE m (id INTEGER PRIMARY KEY)');
      slowClock();
      let turns = 0;
      const ticker = nextTurn().then(() => turns++);
      await memory.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await tx.run('INSERT INTO m DEFAULT VALUES');
        expect(turns).toBe(0);
      });
      await ticker;
    } finally {
      await memory.close();
    }
  });
});
