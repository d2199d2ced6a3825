// The sandbox's own records (store/sql-domain.ts): an owner's records counted and removed by kind (the reset), and
// the test clock of an account's test data (spec/sandbox/openapi.yaml).
import type { Owner } from '../../environment.js';
import type { RecordCounts, SandboxClockRecord } from '../interface.js';
import { ownerParams } from './ops.js';
import { SqlVideoOps } from './videos.js';

/**
 * Each kind's table, in the order a removal must go: what refers to a row before the row (videos and returns name
 * orders, orders and drafts name products, options and stock name products, products name suppliers).
 */
const TABLES: ReadonlyArray<[kind: keyof RecordCounts, table: string]> = [
  ['videos', 'videos'],
  ['returns', 'returns'],
  ['orders', 'orders'],
  ['drafts', 'draft_orders'],
  ['stock', 'stock'],
  ['options', 'product_options'],
  ['products', 'products'],
  ['suppliers', 'suppliers'],
  ['deposits', 'deposits'],
];

const OWNED = 'WHERE account_id = ? AND environment = ?';

function zero(): RecordCounts {
  return { orders: 0, drafts: 0, returns: 0, products: 0, options: 0, stock: 0, suppliers: 0, videos: 0, deposits: 0 };
}

export class SqlSandboxOps extends SqlVideoOps {
  async countRecords(owner: Owner): Promise<RecordCounts> {
    const counts = zero();
    const select = TABLES.map(([kind, table]) => `(SELECT count(*) FROM ${table} ${OWNED}) AS ${kind}`).join(', ');
    const row = await this.get<Record<keyof RecordCounts, number | string>>(
      `SELECT ${select}`,
      ...TABLES.flatMap(() => ownerParams(owner)),
    );
    for (const [kind] of TABLES) counts[kind] = Number(row?.[kind] ?? 0);
    return counts;
  }

  async removeRecords(owner: Owner): Promise<RecordCounts> {
    const counts = zero();
    for (const [kind, table] of TABLES)
      counts[kind] = await this.run(`DELETE FROM ${table} ${OWNED}`, ...ownerParams(owner));
    return counts;
  }

  findSandboxClock(accountId: string): Promise<SandboxClockRecord | undefined> {
    return this.get<SandboxClockRecord>(
      'SELECT offset_ms, frozen_at_ms FROM sandbox_clocks WHERE account_id = ?',
      accountId,
    );
  }

  async setSandboxClock(accountId: string, clock: SandboxClockRecord | null): Promise<void> {
    if (clock === null) {
      await this.run('DELETE FROM sandbox_clocks WHERE account_id = ?', accountId);
      return;
    }
    await this.run(
      `INSERT INTO sandbox_clocks (account_id, offset_ms, frozen_at_ms) VALUES (?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET offset_ms = excluded.offset_ms, frozen_at_ms = excluded.frozen_at_ms`,
      accountId,
      clock.offset_ms,
      clock.frozen_at_ms,
    );
  }
}
