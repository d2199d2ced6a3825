// Orders and draft orders (store/sql-domain.ts): registered, read one by one or a page at a time, and changed.
import type { Environment, Owner } from '../../environment.js';
import type {
  DraftRecord,
  OrderChanges,
  OrderFilter,
  OrderRecord,
  OrderSummaryRecord,
  Slice,
  Window,
} from '../interface.js';
import type { Param } from '../sql.js';
import { batches, describeOwner, ownerParams, perBatchSize, placeholders } from './ops.js';
import { SqlStockOps } from './stock.js';

const ORDER_COLUMNS = `order_no, mall_order_no, mall_product_name, product_code, option_code, quantity, receiver_name,
  receiver_phone, receiver_address, memo, order_status_code, invoice_no, registered_at, updated_at`;
// better-sqlite3 builds each row object property by property: reading only the columns a view shows saves most of
// a list's cost.
const ORDER_SUMMARY_COLUMNS = 'order_no, mall_product_name, order_status_code, registered_at';
const DRAFT_COLUMNS = `draft_id, status, mall_order_no, mall_product_name, product_code, option_code, quantity,
  receiver_name, receiver_phone, receiver_address, memo, created_at`;

/** A seller's order count in one environment as the writes keep it; no row yet means no orders. */
const KEPT_ORDER_COUNT = 'SELECT coalesce((SELECT n FROM order_counts WHERE account_id = ? AND environment = ?), 0)';

/** The columns `updateOrder` may set, in the API's names. */
const ORDER_CHANGE_COLUMNS = [
  'quantity',
  'receiver_name',
  'receiver_phone',
  'receiver_address',
  'memo',
  'order_status_code',
  'invoice_no',
  'updated_at',
] as const satisfies ReadonlyArray<keyof OrderChanges>;

/**
 * The statement that finds which of `count` mall_order_nos (the first parameters) an owner (the last two) uses in the
 * table: each looked up by a subquery of its own on the unique key (see `mallOrderNosIn`).
 */
export function mallOrderNoLookup(table: 'orders' | 'draft_orders', count: number): string {
  return `SELECT keys.column1 AS mall_order_no FROM (VALUES ${Array.from({ length: count }, () => '(?)').join(', ')}) AS keys
    WHERE (SELECT 1 FROM ${table} t
           WHERE t.account_id = ? AND t.environment = ? AND t.mall_order_no = keys.column1) IS NOT NULL`;
}

const mallOrderNoLookups = {
  orders: perBatchSize((rows) => mallOrderNoLookup('orders', rows)),
  draft_orders: perBatchSize((rows) => mallOrderNoLookup('draft_orders', rows)),
};

/** A draft row's parameters: the owner's two key columns, then `DRAFT_COLUMNS`. */
const DRAFT_ROW_PARAMS = 14;

const draftInsert = perBatchSize(
  (rows) => `INSERT INTO draft_orders (account_id, environment, ${DRAFT_COLUMNS})
    VALUES ${Array.from({ length: rows }, () => placeholders(DRAFT_ROW_PARAMS)).join(', ')}
    ON CONFLICT (account_id, environment, mall_order_no) DO NOTHING RETURNING mall_order_no`,
);

export class SqlOrderOps extends SqlStockOps {
  async findOrder(owner: Owner | null, orderNo: string): Promise<(OrderRecord & { owner: Owner }) | undefined> {
    const row =
      owner === null
        ? await this.get<OrderRecord & { account_id: string; environment: Environment }>(
            `SELECT account_id, environment, ${ORDER_COLUMNS} FROM orders WHERE order_no = ?`,
            orderNo,
          )
        : await this.get<OrderRecord & { account_id: string; environment: Environment }>(
            `SELECT account_id, environment, ${ORDER_COLUMNS} FROM orders WHERE order_no = ? AND account_id = ? AND environment = ?`,
            orderNo,
            ...ownerParams(owner),
          );
    if (!row) return undefined;
    const { account_id, environment, ...order } = row;
    return { ...order, owner: { accountId: account_id, environment } };
  }

  async orderMallOrderNos(owner: Owner, mallOrderNos: readonly string[]): Promise<Set<string>> {
    return this.mallOrderNosIn('orders', owner, mallOrderNos);
  }

  async listOrders(owner: Owner, filter: OrderFilter, window: Window): Promise<Slice<OrderRecord>> {
    return this.orderSlice(ORDER_COLUMNS, owner, filter, window);
  }

  async listOrderSummaries(owner: Owner, filter: OrderFilter, window: Window): Promise<Slice<OrderSummaryRecord>> {
    return this.orderSlice(ORDER_SUMMARY_COLUMNS, owner, filter, window);
  }

  private orderSlice<T>(columns: string, owner: Owner, filter: OrderFilter, window: Window): Promise<Slice<T>> {
    const where = ['account_id = ?', 'environment = ?'];
    const params: Param[] = ownerParams(owner);
    if (filter.updatedAfter !== undefined) {
      where.push('updated_at > ?');
      params.push(filter.updatedAfter);
    }
    if (filter.registeredFrom !== undefined) {
      where.push('registered_at >= ?');
      params.push(filter.registeredFrom);
    }
    if (filter.statusCode !== undefined) {
      where.push('order_status_code = ?');
      params.push(filter.statusCode);
    }
    const fromWhere = `FROM orders WHERE ${where.join(' AND ')}`;
    // Unfiltered, the total is the count the writes keep (migrations: order_counts), read in the page's statement.
    const unfiltered =
      filter.updatedAfter === undefined && filter.registeredFrom === undefined && filter.statusCode === undefined;
    const kept = unfiltered ? { sql: KEPT_ORDER_COUNT, params: ownerParams(owner) } : undefined;
    return this.slice(columns, fromWhere, 'registered_at DESC, id DESC', params, window, kept);
  }

  async insertOrder(owner: Owner, o: OrderRecord): Promise<boolean> {
    // A concurrent transaction (another instance) that registered the same mall_order_no first wins: the unique
    // key decides, and this row is reported as the duplicate it is.
    const inserted = await this.run(
      `INSERT INTO orders (account_id, environment, ${ORDER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, environment, mall_order_no) DO NOTHING`,
      ...ownerParams(owner),
      o.order_no,
      o.mall_order_no,
      o.mall_product_name,
      o.product_code,
      o.option_code,
      o.quantity,
      o.receiver_name,
      o.receiver_phone,
      o.receiver_address,
      o.memo,
      o.order_status_code,
      o.invoice_no,
      o.registered_at,
      o.updated_at,
    );
    return inserted === 1;
  }

  async updateOrder(owner: Owner, orderNo: string, changes: OrderChanges): Promise<void> {
    const columns = ORDER_CHANGE_COLUMNS.filter((c) => changes[c] !== undefined);
    const updated = await this.run(
      `UPDATE orders SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE account_id = ? AND environment = ? AND order_no = ?`,
      ...columns.map((c) => changes[c] as Param),
      ...ownerParams(owner),
      orderNo,
    );
    if (updated !== 1) throw new Error(`order ${orderNo} of ${describeOwner(owner)} was not updated`);
  }

  async findDraft(owner: Owner, draftId: string): Promise<DraftRecord | undefined> {
    return this.get(
      `SELECT ${DRAFT_COLUMNS} FROM draft_orders WHERE account_id = ? AND environment = ? AND draft_id = ?`,
      ...ownerParams(owner),
      draftId,
    );
  }

  async draftMallOrderNos(owner: Owner, mallOrderNos: readonly string[]): Promise<Set<string>> {
    return this.mallOrderNosIn('draft_orders', owner, mallOrderNos);
  }

  /**
   * Which of `mallOrderNos` the owner's rows of the table use: one statement a batch, each key looked up on the unique
   * key (account, environment, mall_order_no) by a subquery of its own. As `mall_order_no IN (…)`, PostgreSQL on a
   * table it has not analysed yet (a new database) reads every row of the seller's and filters them, which grew with
   * the table (the bench's draft scenario, BENCHMARKS.md); a subquery per key is one index probe on either engine.
   */
  private async mallOrderNosIn(
    table: 'orders' | 'draft_orders',
    owner: Owner,
    mallOrderNos: readonly string[],
  ): Promise<Set<string>> {
    const found = new Set<string>();
    for (const batch of batches(mallOrderNos)) {
      const rows = await this.all<{ mall_order_no: string }>(
        mallOrderNoLookups[table](batch.length),
        ...batch,
        ...ownerParams(owner),
      );
      for (const r of rows) found.add(r.mall_order_no);
    }
    return found;
  }

  async insertDrafts(owner: Owner, drafts: readonly DraftRecord[]): Promise<Set<string>> {
    // A draft another transaction (perhaps of another instance) registered first under the same mall_order_no wins:
    // the unique key decides, and the row is not among those returned.
    const inserted = new Set<string>();
    const [accountId, environment] = ownerParams(owner);
    for (const batch of batches(drafts)) {
      // One flat array filled in place: the 14,000 parameters of a full request were a visible share of it as spread
      // arrays.
      const params = new Array<Param>(batch.length * DRAFT_ROW_PARAMS);
      let at = 0;
      for (const d of batch) {
        params[at++] = accountId;
        params[at++] = environment;
        params[at++] = d.draft_id;
        params[at++] = d.status;
        params[at++] = d.mall_order_no;
        params[at++] = d.mall_product_name;
        params[at++] = d.product_code;
        params[at++] = d.option_code;
        params[at++] = d.quantity;
        params[at++] = d.receiver_name;
        params[at++] = d.receiver_phone;
        params[at++] = d.receiver_address;
        params[at++] = d.memo;
        params[at++] = d.created_at;
      }
      const rows = await this.writeAll<{ mall_order_no: string }>(draftInsert(batch.length), ...params);
      for (const r of rows) inserted.add(r.mall_order_no);
    }
    return inserted;
  }
}
