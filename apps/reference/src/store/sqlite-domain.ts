import type Database from 'better-sqlite3';
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
import type { Environment, Owner } from '../environment.js';
import { whenUnlocked } from './busy.js';
import { Statements } from './statements.js';
import type { EpochSeconds } from '@cls-api/spec';

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

type Param = string | number | null;

/** The lock wait of a store made without one (the operator's CLI, tests); the server passes DB_LOCK_TIMEOUT_MS. */
const DEFAULT_LOCK_TIMEOUT_MS = 5_000;

/**
 * The domain store on one better-sqlite3 connection (the schema is `store/migrations/002_domain.sql` as
 * `003_environments.sql` changed it: every row belongs to an account and an environment).
 *
 * better-sqlite3 is synchronous, so every method completes before it returns its promise; a transaction whose work
 * awaits only this store therefore runs to its end without yielding to other requests. Transactions are still
 * queued one after another, so a `work` that did yield could not interleave with a second transaction.
 */
export class SqliteDomainStore implements DomainStore {
  private readonly statements: Statements;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Database.Database,
    /**
     * How long a transaction waits for the write lock while another connection holds it; the wait is on timers,
     * between other requests, never inside SQLite (src/store/busy.ts).
     */
    private readonly lockTimeoutMs: number = DEFAULT_LOCK_TIMEOUT_MS,
  ) {
    this.statements = new Statements(db);
  }

  private statement(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  private get<T>(sql: string, ...params: Param[]): T | undefined {
    return this.statement(sql).get(...params) as T | undefined;
  }

  private all<T>(sql: string, ...params: Param[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }

  private run(sql: string, ...params: Param[]): Database.RunResult {
    if (!this.db.inTransaction) throw new Error('domain store writes must run inside transaction()');
    return this.statement(sql).run(...params);
  }

  /** `SELECT <columns> <from-where> ORDER BY …` as one window plus the total count of matching rows. */
  private slice<T>(columns: string, fromWhere: string, orderBy: string, params: Param[], window: Window): Slice<T> {
    const total = this.get<{ n: number }>(`SELECT count(*) AS n ${fromWhere}`, ...params)?.n ?? 0;
    const items =
      total === 0 || window.offset >= total
        ? []
        : this.all<T>(
            `SELECT ${columns} ${fromWhere} ORDER BY ${orderBy} LIMIT ? OFFSET ?`,
            ...params,
            window.limit,
            window.offset,
          );
    return { items, total };
  }

  async transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      await whenUnlocked(() => this.db.exec('BEGIN IMMEDIATE'), this.lockTimeoutMs);
      try {
        const result = await work(this);
        this.db.exec('COMMIT');
        return result;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
    };
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
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
       WHERE account_id = ? AND environment = ? AND product_code = ? AND ifnull(option_code, '') = ?`,
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
        ? this.get<OrderRecord & { account_id: string; environment: Environment }>(
            `SELECT account_id, environment, ${ORDER_COLUMNS} FROM orders WHERE order_no = ?`,
            orderNo,
          )
        : this.get<OrderRecord & { account_id: string; environment: Environment }>(
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

  private orderSlice<T>(columns: string, owner: Owner, filter: OrderFilter, window: Window): Slice<T> {
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
    return this.slice(
      columns,
      `FROM orders WHERE ${where.join(' AND ')}`,
      'registered_at DESC, id DESC',
      params,
      window,
    );
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
       WHERE account_id = ? AND environment = ? AND invoice_no = ? ORDER BY recorded_at, id LIMIT ?`,
      ...ownerParams(owner),
      invoiceNo,
      limit,
    );
  }

  // -------------------------------------------------------------------------------------------------------------
  // Writes

  async nextSequence(name: string, scope: string): Promise<number> {
    if (!this.db.inTransaction) throw new Error('domain store writes must run inside transaction()');
    const row = this.statement(
      `INSERT INTO domain_sequences (name, scope, value) VALUES (?, ?, 1)
       ON CONFLICT (name, scope) DO UPDATE SET value = value + 1 RETURNING value`,
    ).get(name, scope) as { value: number };
    return row.value;
  }

  async insertSupplier(owner: Owner, s: SupplierRecord): Promise<void> {
    this.run(
      'INSERT INTO suppliers (account_id, environment, supplier_code, supplier_name, updated_at) VALUES (?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      s.supplier_code,
      s.supplier_name,
      s.updated_at,
    );
  }

  async insertProduct(owner: Owner, p: Omit<ProductRecord, 'option_count'>, stockQuantity: number): Promise<void> {
    this.run(
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
    this.run(
      'INSERT INTO stock (account_id, environment, product_code, option_code, quantity, updated_at) VALUES (?, ?, ?, NULL, ?, ?)',
      ...ownerParams(owner),
      p.product_code,
      stockQuantity,
      p.created_at,
    );
  }

  async insertOption(owner: Owner, o: OptionRecord, stockQuantity: number): Promise<void> {
    this.run(
      `INSERT INTO product_options (account_id, environment, product_code, option_code, option_name, additional_price, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ...ownerParams(owner),
      o.product_code,
      o.option_code,
      o.option_name,
      o.additional_price,
      o.created_at,
    );
    this.run(
      'INSERT INTO stock (account_id, environment, product_code, option_code, quantity, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      o.product_code,
      o.option_code,
      stockQuantity,
      o.created_at,
    );
    this.run(
      'UPDATE products SET updated_at = max(updated_at, ?) WHERE account_id = ? AND environment = ? AND product_code = ?',
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
    const result = this.run(
      `UPDATE stock SET quantity = quantity - ?, updated_at = ?
       WHERE account_id = ? AND environment = ? AND product_code = ? AND ifnull(option_code, '') = ? AND quantity >= ?`,
      quantity,
      at,
      ...ownerParams(owner),
      productCode,
      optionCode ?? '',
      quantity,
    );
    return result.changes === 1;
  }

  async releaseStock(
    owner: Owner,
    productCode: string,
    optionCode: string | null,
    quantity: number,
    at: EpochSeconds,
  ): Promise<void> {
    const result = this.run(
      `UPDATE stock SET quantity = quantity + ?, updated_at = ?
       WHERE account_id = ? AND environment = ? AND product_code = ? AND ifnull(option_code, '') = ?`,
      quantity,
      at,
      ...ownerParams(owner),
      productCode,
      optionCode ?? '',
    );
    if (result.changes !== 1)
      throw new Error(`no stock row for ${productCode}/${optionCode ?? '-'} of ${describeOwner(owner)}`);
  }

  async insertOrder(owner: Owner, o: OrderRecord): Promise<void> {
    this.run(
      `INSERT INTO orders (account_id, environment, ${ORDER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
  }

  async updateOrder(owner: Owner, orderNo: string, changes: OrderChanges): Promise<void> {
    const columns = ORDER_CHANGE_COLUMNS.filter((c) => changes[c] !== undefined);
    const result = this.run(
      `UPDATE orders SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE account_id = ? AND environment = ? AND order_no = ?`,
      ...columns.map((c) => changes[c] as Param),
      ...ownerParams(owner),
      orderNo,
    );
    if (result.changes !== 1) throw new Error(`order ${orderNo} of ${describeOwner(owner)} was not updated`);
  }

  async insertDraft(owner: Owner, d: DraftRecord): Promise<void> {
    this.run(
      `INSERT INTO draft_orders (account_id, environment, ${DRAFT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
  }

  async insertReturn(owner: Owner, r: ReturnRecord): Promise<void> {
    this.run(
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
    const result = this.run(
      'UPDATE returns SET withdrawn_at = ? WHERE account_id = ? AND environment = ? AND return_no = ? AND withdrawn_at IS NULL',
      at,
      ...ownerParams(owner),
      returnNo,
    );
    if (result.changes !== 1) throw new Error(`return ${returnNo} of ${describeOwner(owner)} is not open`);
  }

  async insertDeposit(owner: Owner, d: DepositRecord): Promise<void> {
    this.run(
      'INSERT INTO deposits (account_id, environment, deposit_id, amount, depositor_name, deposited_at) VALUES (?, ?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      d.deposit_id,
      d.amount,
      d.depositor_name,
      d.deposited_at,
    );
  }

  async insertVideo(owner: Owner, v: VideoRecord): Promise<void> {
    this.run(
      'INSERT INTO videos (account_id, environment, video_id, invoice_no, recorded_at, duration_seconds) VALUES (?, ?, ?, ?, ?, ?)',
      ...ownerParams(owner),
      v.video_id,
      v.invoice_no,
      v.recorded_at,
      v.duration_seconds,
    );
  }
}

function describeOwner(owner: Owner): string {
  return `account ${owner.accountId} (${owner.environment})`;
}
