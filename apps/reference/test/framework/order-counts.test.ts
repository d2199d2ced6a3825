// A seller's order count is kept by the writes (migrations: order_counts) and an unfiltered order list reads its
// total from it. On both engines, with two instances writing at once, the kept count and every list's total must stay
// the number of orders stored: a registration that fails (a duplicate mall_order_no, stock run out, a bulk request
// rolled back) counts nothing, and the other environment's orders are not counted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { ENGINES, type EngineName, newPostgresDatabase } from '../support/engines.js';
import { LIMITS_OFF, startTestServer, type TestServer } from '../support/server.js';

const servers: TestServer[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of cleanups.splice(0)) await c();
});

type Query = <T>(sql: string) => Promise<T[]>;

/** Two instances on one new database of the engine, and a way to read it directly. */
async function twoInstances(engine: EngineName): Promise<{ a: TestServer; b: TestServer; query: Query }> {
  if (engine === 'postgres') {
    const url = await newPostgresDatabase();
    const a = await startTestServer({ databaseUrl: url, env: LIMITS_OFF });
    const b = await startTestServer({ databaseUrl: url, env: LIMITS_OFF });
    servers.push(a, b);
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    cleanups.push(() => pool.end());
    return { a, b, query: async <T>(sql: string) => (await pool.query(sql)).rows as T[] };
  }
  const dir = mkdtempSync(join(tmpdir(), 'cls-reference-counts-'));
  const file = join(dir, 'orders.db');
  const a = await startTestServer({ db: openDatabase(file), closeDb: true, env: LIMITS_OFF });
  const b = await startTestServer({ db: openDatabase(file), closeDb: true, env: LIMITS_OFF });
  servers.push(a, b);
  const reader = openDatabase(file);
  cleanups.push(() => {
    reader.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { a, b, query: async <T>(sql: string) => reader.prepare(sql).all() as T[] };
}

const row = (mall_order_no: string, quantity = 1) => ({
  mall_order_no,
  mall_product_name: 'Scarf',
  product_code: 'SCARF',
  quantity,
  receiver_name: 'Kim Minji',
  receiver_phone: '010-1234-5678',
  receiver_address: '12 Teheran-ro, Gangnam-gu, Seoul',
});

describe.each(ENGINES)('the kept order count on %s', (engine) => {
  it('stays the number of stored orders across concurrent registrations on two instances', async () => {
    const { a, b, query } = await twoInstances(engine);
    const seller = await a.account({ paid: true });
    const wms = [await a.key(seller, 'wms'), await b.key(seller, 'wms')];
    const live = await a.key(seller, 'wms', 'live');
    const manager = await a.key(seller, 'manager');
    const product = { product_code: 'SCARF', product_name: 'Scarf', price: 10000, stock_quantity: 40 };
    expect((await a.post('/v3/wms/products', product, { apiKey: wms[0]! })).status).toBe(200);
    expect((await a.post('/v3/wms/products', product, { apiKey: live })).status).toBe(200);

    // 48 registrations at once: every fourth repeats an earlier mall_order_no, every sixth is a bulk request whose
    // second row asks for more than the stock (all-or-nothing: neither row is stored), and the stock runs out.
    const results = await Promise.all(
      Array.from({ length: 48 }, (_, i) => {
        const orders =
          i % 6 === 5 ? [row(`BULK-${i}`), row(`BULK-${i}-BIG`, 1000)] : [row(i % 4 === 3 ? `M-${i - 1}` : `M-${i}`)];
        return (i % 2 ? b : a).post('/v3/wms/orders', { orders }, { apiKey: wms[i % 2]! });
      }),
    );
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    // A live order of the same seller belongs to the other environment's count.
    expect((await b.post('/v3/wms/orders', { orders: [row('LIVE-1')] }, { apiKey: live })).status).toBe(200);

    const stored = await query<{ environment: string; n: number }>(
      `SELECT environment, count(*) AS n FROM orders WHERE account_id = '${seller}' GROUP BY environment ORDER BY environment`,
    );
    const kept = await query<{ environment: string; n: number }>(
      `SELECT environment, n FROM order_counts WHERE account_id = '${seller}' ORDER BY environment`,
    );
    const asNumbers = (rows: Array<{ environment: string; n: number }>) =>
      rows.map((r) => ({ environment: r.environment, n: Number(r.n) }));
    const inTest = asNumbers(stored).find((r) => r.environment === 'test')!.n;
    expect(inTest).toBeGreaterThan(10);
    expect(inTest).toBeLessThan(48);
    expect(asNumbers(kept)).toEqual(asNumbers(stored));

    for (const s of [a, b]) {
      const list = await s.get('/v3/manager/orders?page=1&size=5', { apiKey: manager });
      expect(list.status).toBe(200);
      expect(list.body.pagination).toMatchObject({ total: inTest, total_pages: Math.ceil(inTest / 5) });
      // Past the last page the total is still the kept count.
      const past = await s.get(`/v3/manager/orders?page=${Math.ceil(inTest / 5) + 1}&size=5`, { apiKey: manager });
      expect(past.body).toMatchObject({ data: [], pagination: { total: inTest } });
      // A filtered list counts what it matches, as before.
      const filtered = await s.get('/v3/manager/orders?order_status_code=10&size=5', { apiKey: manager });
      expect(filtered.body.pagination.total).toBe(inTest);
    }
  });

  it('is zero for a seller without orders', async () => {
    const { a, query } = await twoInstances(engine);
    const seller = await a.account({ paid: true });
    const manager = await a.key(seller, 'manager');
    const empty = await a.get('/v3/manager/orders', { apiKey: manager });
    expect(empty.body).toMatchObject({ data: [], pagination: { total: 0, total_pages: 0 } });
    expect(await query(`SELECT * FROM order_counts WHERE account_id = '${seller}'`)).toEqual([]);
  });
});
