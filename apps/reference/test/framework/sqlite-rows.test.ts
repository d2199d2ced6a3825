// How the SQLite engine reads rows (src/store/statements.ts, src/store/sqlite-engine.ts): as arrays, made into
// objects by a builder compiled once per statement, which must give exactly the objects better-sqlite3 itself gives;
// and no statement of the stores binds a bare `LIMIT ?`, which SQLite prepares again on every call.
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { SqliteEngine } from '../../src/store/sqlite-engine.js';
import { rowBuilder } from '../../src/store/statements.js';
import { sqliteStorage } from '../../src/store/storage.js';

/** The keys in order, their values, and the prototype: what "the same object" means for a row. */
const shape = (o: object) => ({ entries: Object.entries(o), proto: Object.getPrototypeOf(o) });

describe('rowBuilder', () => {
  it('gives the object better-sqlite3 gives, odd column names included', () => {
    const db = openDatabase(':memory:');
    try {
      const sql = `SELECT 1 AS a, 'x' AS "b c", NULL AS "constructor", 2.5 AS "it's", X'00ff' AS blob, 'y' AS a`;
      const expected = db.prepare(sql).get() as object;
      const stmt = db.prepare(sql).raw(true);
      const built = rowBuilder(stmt.columns().map((c) => c.name))(stmt.get() as unknown[]);
      expect(shape(built)).toEqual(shape(expected));
      expect(Object.hasOwn(built, 'constructor')).toBe(true);
      expect(Object.getPrototypeOf(built)).toBe(Object.prototype);
      expect(() => rowBuilder(['a', '__proto__'])).toThrow(/__proto__/);
    } finally {
      db.close();
    }
  });
});

describe('the SQLite engine', () => {
  it('reads get, all and a page as better-sqlite3 objects would be, the page without its last column', async () => {
    const db = openDatabase(':memory:');
    try {
      db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, note TEXT);
        INSERT INTO t (name, score, note) VALUES ('a', 1.5, NULL), ('b', 2, 'x'), ('c', -3, 'é')`);
      const engine = SqliteEngine.of(db);
      const sql = 'SELECT id, name, score, note FROM t WHERE id >= ? ORDER BY id';
      const plain = db.prepare(sql).all(2) as object[];
      expect((await engine.all<object>(sql, [2])).map(shape)).toEqual(plain.map(shape));
      expect(shape((await engine.get<object>(sql, [2]))!)).toEqual(shape(plain[0]!));
      expect(await engine.get(sql, [9])).toBeUndefined();
      expect(await engine.all(sql, [9])).toEqual([]);
      // The same statement read both ways keeps both right.
      expect(await engine.all(sql, [3])).toEqual([{ id: 3, name: 'c', score: -3, note: 'é' }]);

      const pageSql = 'SELECT id, name, (SELECT count(*) FROM t) AS slice_total FROM t ORDER BY id LIMIT 2';
      const page = await engine.page<object>(pageSql, []);
      expect(page.total).toBe(3);
      expect(page.rows.map(shape)).toEqual([shape({ id: 1, name: 'a' }), shape({ id: 2, name: 'b' })]);
      expect(await engine.page('SELECT id, 7 AS slice_total FROM t WHERE id > 5', [])).toEqual({
        rows: [],
        total: undefined,
      });
      expect(await engine.run('UPDATE t SET note = ? WHERE id = ?', ['z', 1])).toBe(1);
    } finally {
      db.close();
    }
  });

  it('is never asked for a bare LIMIT ? by the domain store', async () => {
    const db = openDatabase(':memory:');
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    const storage = sqliteStorage(db);
    try {
      const owner = { accountId: 'acc_x', environment: 'test' as const };
      const window = { offset: 0, limit: 10 };
      const d = storage.domain;
      await d.listOrders(owner, {}, window);
      await d.listOrderSummaries(owner, { statusCode: 10 }, window);
      await d.listProducts(owner, {}, window);
      await d.listSuppliers(owner, window);
      await d.listOptions(owner, 'P', window);
      await d.listStock(owner, {}, window);
      await d.listDeposits(owner, { from: 0, until: 1 }, window);
      await d.listVideos(owner, 'INV', 10);
      const limited = prepared.filter((sql) => /\bLIMIT\b/i.test(sql));
      expect(limited.length).toBeGreaterThanOrEqual(8);
      for (const sql of limited) expect(sql).not.toMatch(/\bLIMIT\s+\?/i);
    } finally {
      await storage.close();
    }
  });

  it('gives up its transaction context when closed, which once run keeps a hook on every promise of the process', async () => {
    // The hook makes every await of whatever runs in the process after the engine slower (another engine, a test
    // file sharing the worker); only disabling the context removes it.
    const disable = vi.spyOn(AsyncLocalStorage.prototype, 'disable');
    try {
      const engine = SqliteEngine.of(openDatabase(':memory:'));
      await engine.transaction(async (tx) => tx.run('CREATE TABLE t (id INTEGER)', []));
      expect(disable).not.toHaveBeenCalled();
      await engine.close();
      expect(disable).toHaveBeenCalledTimes(1);
    } finally {
      disable.mockRestore();
    }
  });
});
