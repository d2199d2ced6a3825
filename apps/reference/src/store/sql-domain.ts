// The domain store (store/interface.ts) in SQL, once for both engines (store/sql.ts): SQLite through
// `sqlite-engine.ts`, PostgreSQL through `pg-engine.ts`. The schemas are `migrations/sqlite/` (002_domain.sql as
// 003_environments.sql changed it) and `migrations/postgres/`: every row belongs to an account and an environment.
import type { EpochSeconds } from '@cls-api/spec';
import type { Environment, Owner } from '../environment.js';
import type {
  ChangeFilter,
  DepositRecord,
  DomainStore,
  DraftRecord,
  OptionRecord,
  OrderChanges,
  OrderFilter,
  OrderRecord,
  OrderSummaryRecord,
  Period,
  ProductRecord,
  ReturnRecord,
  Slice,
  StockFilter,
  StockRecord,
  StoreTransaction,
  SupplierRecord,
  VideoRecord,
  Window,
} from './interface.js';
import type { Dialect, Param, SqlEngine, SqlExecutor } from './sql.js';

const ORDER_COLUMNS = `order_no, mall_order_no, mall_product_name, product_code, option_code, quantity, receiver_name,
  receiver_phone, receiver_address, memo, order_status_code, invoice_no, registered_at, updated_at`;
// better-sqlite3 builds each row object property by property: reading only the columns a view shows saves most of
// a list's cost.
const ORDER_SUMMARY_COLUMNS = 'order_no, mall_product_name, order_status_code, registered_at';
const DRAFT_COLUMNS = `draft_id, status, mall_order_no, mall_product_name, product_code, option_code, quantity,
  receiver_name, receiver_phone, receiver_address, memo, created_at`;
const RETURN_COLUMNS = 'return_no, order_no, reason, registered_at, cancellable_until, withdrawn_at';
const PRODUCT_COLUMNS = `p.product_code, p.product_name, p.price, p.supplier_code,
  (SELECT count(*) FROM product_options o
   WHERE o.account_id = p.account_id AND o.environment = p.environment AND o.product_code = p.product_code) AS option_count,
  p.created_at, p.updated_at`;

/**
 * A row limit given as a parameter, in a form SQLite's planner does not read. SQLite (3.47 and later) reads a bare
 * `LIMIT ?`'s bound value when it plans, and then prepares the statement again each time that parameter is bound:
 * on every call, since every call binds it. That re-preparing cost more than the statement itself (the bench's
 * profile). The cast is the same limit to both engines.
 */
const LIMIT = 'LIMIT CAST(? AS INTEGER)';
const LIMIT_OFFSET = `${LIMIT} OFFSET ?`;

/** A seller's order count in one environment as the writes keep it; no row yet means no orders. */
const KEPT_ORDER_COUNT = 'SELECT coalesce((SELECT n FROM order_counts WHERE account_id = ? AND environment = ?), 0)';

/** The owner's two key columns (`account_id = ? AND environment = ?`), as statement parameters. */
const ownerParams = (owner: Owner): [string, Environment] => [owner.accountId, owner.environment];

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
 * Reads and writes on one executor: the engine itself outside a transaction, the transaction's connection inside
 * one. Writes refuse to run outside a transaction.
 */
class SqlStoreOps implements StoreTransaction {
  constructor(
    private readonly exec: SqlExecutor,
    private readonly d: Dialect,
    private readonly writable: boolean,
  ) {}

  private get<T>(sql: string, ...params: Param[]): Promise<T | undefined> {
    return this.exec.get<T>(sql, params);
  }

  private all<T>(sql: string, ...params: Param[]): Promise<T[]> {
    return this.exec.all<T>(sql, params);
  }

  private run(sql: string, ...params: Param[]): Promise<number> {
    if (!this.writable) throw new Error('domain store writes must run inside transaction()');
    return this.exec.run(sql, params);
  }

  /**
   * `SELECT <columns> <from-where> ORDER BY …` as one window plus the total count of matching rows. Both come from one
   * statement, so from one snapshot: a row another request or instance commits meanwhile is in both or in neither.
   */
  private async slice<T>(
    columns: string,
    fromWhere: string,
    orderBy: string,
    params: Param[],
    window: Window,
    count: { sql: string; params: Param[] } = { sql: `SELECT count(*) ${fromWhere}`, params },
  ): Promise<Slice<T>> {
    const { rows, total } = await this.exec.page<T>(
      `SELECT ${columns}, (${count.sql}) AS slice_total ${fromWhere} ORDER BY ${orderBy} ${LIMIT_OFFSET}`,
      [...count.params, ...params, window.limit, window.offset],
    );
    if (total === undefined) {
      // An empty window (nothing matches, or the page is past the end) still says how many rows match.
      const n = (await this.get<{ n: number }>(`SELECT (${count.sql}) AS n`, ...count.params))?.n ?? 0;
      return { items: [], total: n };
    }
    return { items: rows, total };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reads

  async listSuppliers(owner: Owner, window: Window): Promise<Slice<SupplierRecord>> {
    return this.slice(
      'supplier_code, supplier_name, updated_at',
      'FROM suppliers WHERE account_id = ? AND environment = ?',
      'id',
      ownerParams(owner),
      window,
    );
  }

  async findProduct(owner: Owner, productCode: string): Promise<ProductRecord | undefined> {
    return this.get(
      `SELECT ${PRODUCT_COLUMNS} FROM products p WHERE p.account_id = ? AND p.environment = ? AND p.product_code = ?`,
      ...ownerParams(owner),
      productCode,
    );
  }

  async listProducts(owner: Owner, filter: ChangeFilter, window: Window): Promise<Slice<ProductRecord>> {
    const where = ['p.account_id = ?', 'p.environment = ?'];
    const params: Param[] = ownerParams(owner);
    if (filter.updatedAfter !== undefined) {
      where.push('p.updated_at > ?');
      params.push(filter.updatedAfter);
    }
    return this.slice(PRODUCT_COLUMNS, `FROM products p WHERE ${where.join(' AND ')}`, 'p.id', params, window);
  }

  async findOption(owner: Owner, productCode: string, optionCode: string): Promise<OptionRecord | undefined> {
    return this.get(
      `SELECT product_code, option_code, option_name, additional_price, created_at FROM product_options
       WHERE account_id = ? AND environment = ? AND product_code = ? AND option_code = ?`,
      ...ownerParams(owner),
      productCode,
      optionCode,
    );
  }

  async listOptions(owner: Owner, productCode: string, window: Window): Promise<Slice<OptionRecord>> {
    return this.slice(
      'product_code, option_code, option_name, additional_price, created_at',
      'FROM product_options WHERE account_id = ? AND environment = ? AND product_code = ?',
      'id',
      [...ownerParams(owner), productCode],
      window,
    );
  }

  async findStock(owner: Owner, productCode: string, optionCode: string | null): Promise<StockRecord | undefined> {
    return this.get(
      `SELECT product_code, option_code, quantity, updated_at FROM stock
       WHERE account_id = ? AND environment = ? AND product_code = ? AND ${this.d.ifNull}(option_code, '') = ?`,
      ...ownerParams(owner),
      productCode,
      optionCode ?? '',
    );
  }

  async listStock(owner: Owner, filter: StockFilter, window: Window): Promise<Slice<StockRecord>> {
    const where = ['s.account_id = ?', 's.environment = ?'];
    const params: Param[] = ownerParams(owner);
    if (filter.productCode !== undefined) {
      where.push('s.product_code = ?');
      params.push(filter.productCode);
    }
    if (filter.updatedAfter !== undefined) {
      where.push('s.updated_at > ?');
      params.push(filter.updatedAfter);
    }
    return this.slice(
      's.product_code, s.option_code, s.quantity, s.updated_at',
      `FROM stock s
       JOIN products p ON p.account_id = s.account_id AND p.environment = s.environment AND p.product_code = s.product_code
       LEFT JOIN product_options o
         ON o.account_id = s.account_id AND o.environment = s.environment AND o.product_code = s.product_code
        AND o.option_code = s.option_code
       WHERE ${where.join(' AND ')}`,
      'p.id, o.id NULLS FIRST',
      params,
      window,
    );
  }

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

  async findOrderByMallOrderNo(owner: Owner, mallOrderNo: string): Promise<OrderRecord | undefined> {
    return this.get(
      `SELECT ${ORDER_COLUMNS} FROM orders WHERE account_id = ? AND environment = ? AND mall_order_no = ?`,
      ...ownerParams(owner),
      mallOrderNo,
    );
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

  async findDraft(owner: Owner, draftId: string): Promise<DraftRecord | undefined> {
    return this.get(
      `SELECT ${DRAFT_COLUMNS} FROM draft_orders WHERE account_id = ? AND environment = ? AND draft_id = ?`,
      ...ownerParams(owner),
      draftId,
    );
  }

  async findDraftByMallOrderNo(owner: Owner, mallOrderNo: string): Promise<DraftRecord | undefined> {
    return this.get(
      `SELECT ${DRAFT_COLUMNS} FROM draft_orders WHERE account_id = ? AND environment = ? AND mall_order_no = ?`,
      ...ownerParams(owner),
      mallOrderNo,
    );
  }

  async findReturn(owner: Owner, returnNo: string): Promise<ReturnRecord | undefined> {
    return this.get(
      `SELECT ${RETURN_COLUMNS} FROM returns WHERE account_id = ? AND environment = ? AND return_no = ?`,
      ...ownerParams(owner),
      returnNo,
    );
  }

  async findOpenReturn(owner: Owner, orderNo: string): Promise<ReturnRecord | undefined> {
    return this.get(
      `SELECT ${RETURN_COLUMNS} FROM returns WHERE account_id = ? AND environment = ? AND order_no = ? AND withdrawn_at IS NULL`,
      ...ownerParams(owner),
      orderNo,
    );
  }

  async listDeposits(owner: Owner, period: Period, window: Window): Promise<Slice<DepositRecord>> {
    return this.slice(
      'deposit_id, amount, depositor_name, deposited_at',
      'FROM deposits WHERE account_id = ? AND environment = ? AND deposited_at >= ? AND deposited_at < ?',
      'deposited_at DESC, id DESC',
      [...ownerParams(owner), period.from, period.until],
      window,
    );
  }

  async listVideos(owner: Owner, invoiceNo: string, limit: number): Promise<VideoRecord[]> {
    return this.all(
      `SELECT video_id, invoice_no, recorded_at, duration_seconds FROM videos
       WHERE account_id = ? AND environment = ? AND invoice_no = ? ORDER BY recorded_at, id ${LIMIT}`,
      ...ownerParams(owner),
      invoiceNo,
      limit,
    );
  }

  // -------------------------------------------------------------------------------------------------------------
  // Writes

  async nextSequence(name: string, scope: string): Promise<number> {
    if (!this.writable) throw new Error('domain store writes must run inside transaction()');
    const row = await this.get<{ value: number }>(
      `INSERT INTO domain_sequences (name, scope, value) VALUES (?, ?, 1)
       ON CONFLICT (name, scope) DO UPDATE SET value = domain_sequences.value + 1 RETURNING value`,
      name,
      scope,
    );
    return row!.value;
  }

  async insertSupplier(owner: Owner, s: SupplierRecord): Promise<void> {
    await this.run(
      'INSERT INTO suppliers (account_id, environment, supplier_code, supplier_name, updated_at) VALUES (?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      s.supplier_code,
      s.supplier_name,
      s.updated_at,
    );
  }

  async insertProduct(owner: Owner, p: Omit<ProductRecord, 'option_count'>, stockQuantity: number): Promise<void> {
    await this.run(
      `INSERT INTO products (account_id, environment, product_code, product_name, price, supplier_code, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ...ownerParams(owner),
      p.product_code,
      p.product_name,
      p.price,
      p.supplier_code,
      p.created_at,
      p.updated_at,
    );
    await this.run(
      'INSERT INTO stock (account_id, environment, product_code, option_code, quantity, updated_at) VALUES (?, ?, ?, NULL, ?, ?)',
      ...ownerParams(owner),
      p.product_code,
      stockQuantity,
      p.created_at,
    );
  }

  async insertOption(owner: Owner, o: OptionRecord, stockQuantity: number): Promise<void> {
    await this.run(
      `INSERT INTO product_options (account_id, environment, product_code, option_code, option_name, additional_price, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ...ownerParams(owner),
      o.product_code,
      o.option_code,
      o.option_name,
      o.additional_price,
      o.created_at,
    );
    await this.run(
      'INSERT INTO stock (account_id, environment, product_code, option_code, quantity, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      o.product_code,
      o.option_code,
      stockQuantity,
      o.created_at,
    );
    await this.run(
      `UPDATE products SET updated_at = ${this.d.greater}(updated_at, ?) WHERE account_id = ? AND environment = ? AND product_code = ?`,
      o.created_at,
      ...ownerParams(owner),
      o.product_code,
    );
  }

  async allocateStock(
    owner: Owner,
    productCode: string,
    optionCode: string | null,
    quantity: number,
    at: EpochSeconds,
  ): Promise<boolean> {
    const changes = await this.run(
      `UPDATE stock SET quantity = quantity - ?, updated_at = ?
       WHERE account_id = ? AND environment = ? AND product_code = ? AND ${this.d.ifNull}(option_code, '') = ? AND quantity >= ?`,
      quantity,
      at,
      ...ownerParams(owner),
      productCode,
      optionCode ?? '',
      quantity,
    );
    return changes === 1;
  }

  async releaseStock(
    owner: Owner,
    productCode: string,
    optionCode: string | null,
    quantity: number,
    at: EpochSeconds,
  ): Promise<void> {
    const changes = await this.run(
      `UPDATE stock SET quantity = quantity + ?, updated_at = ?
       WHERE account_id = ? AND environment = ? AND product_code = ? AND ${this.d.ifNull}(option_code, '') = ?`,
      quantity,
      at,
      ...ownerParams(owner),
      productCode,
      optionCode ?? '',
    );
    if (changes !== 1)
      throw new Error(`no stock row for ${productCode}/${optionCode ?? '-'} of ${describeOwner(owner)}`);
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

  async insertDraft(owner: Owner, d: DraftRecord): Promise<boolean> {
    const inserted = await this.run(
      `INSERT INTO draft_orders (account_id, environment, ${DRAFT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, environment, mall_order_no) DO NOTHING`,
      ...ownerParams(owner),
      d.draft_id,
      d.status,
      d.mall_order_no,
      d.mall_product_name,
      d.product_code,
      d.option_code,
      d.quantity,
      d.receiver_name,
      d.receiver_phone,
      d.receiver_address,
      d.memo,
      d.created_at,
    );
    return inserted === 1;
  }

  async insertReturn(owner: Owner, r: ReturnRecord): Promise<void> {
    await this.run(
      `INSERT INTO returns (account_id, environment, ${RETURN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ...ownerParams(owner),
      r.return_no,
      r.order_no,
      r.reason,
      r.registered_at,
      r.cancellable_until,
      r.withdrawn_at,
    );
  }

  async markReturnWithdrawn(owner: Owner, returnNo: string, at: EpochSeconds): Promise<void> {
    const changes = await this.run(
      'UPDATE returns SET withdrawn_at = ? WHERE account_id = ? AND environment = ? AND return_no = ? AND withdrawn_at IS NULL',
      at,
      ...ownerParams(owner),
      returnNo,
    );
    if (changes !== 1) throw new Error(`return ${returnNo} of ${describeOwner(owner)} is not open`);
  }

  async insertDeposit(owner: Owner, d: DepositRecord): Promise<void> {
    await this.run(
      'INSERT INTO deposits (account_id, environment, deposit_id, amount, depositor_name, deposited_at) VALUES (?, ?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      d.deposit_id,
      d.amount,
      d.depositor_name,
      d.deposited_at,
    );
  }

  async insertVideo(owner: Owner, v: VideoRecord): Promise<void> {
    await this.run(
      'INSERT INTO videos (account_id, environment, video_id, invoice_no, recorded_at, duration_seconds) VALUES (?, ?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      v.video_id,
      v.invoice_no,
      v.recorded_at,
      v.duration_seconds,
    );
  }
}

/** The domain store on a SQL engine: reads on the engine, writes in `transaction`. */
export class SqlDomainStore extends SqlStoreOps implements DomainStore {
  constructor(readonly engine: SqlEngine) {
    super(engine, engine.dialect, false);
  }

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.engine.transaction((exec) => work(new SqlStoreOps(exec, this.engine.dialect, true)));
  }
}

function describeOwner(owner: Owner): string {
  return `account ${owner.accountId} (${owner.environment})`;
}
