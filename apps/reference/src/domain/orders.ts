// Warehouse orders and draft (open) orders: the two bulk registrations, reads, the update, and the order's life
// after registration (preparing, shipping, delivery, cancellation). WMS and manager see the same orders.

import type { components } from '@cls-api/server';
import { type Owner, ownerOf } from '../environment.js';
import { ApiError } from '../errors.js';
import {
  DRAFT_STATUS_OPEN,
  type DomainHandlers,
  ORDER_STATUS,
  type OrderStatusCode,
  paginationOf,
  windowOf,
} from './vocabulary.js';
import type {
  DraftRecord,
  OrderChanges,
  OrderFields,
  OrderFilter,
  OrderRecord,
  Slice,
  StoreTransaction,
  Window,
} from '../store/interface.js';
import { type EpochSeconds, ServiceTime } from '@cls-api/spec';
import { dailyNumber, dateFilter, type Domain, draftView, managerOrderView, orderView, timeFilter } from './views.js';

type OrderRow = components['schemas']['OrderRow'];
type OrderResult = components['schemas']['OrderResult'];
type DraftResult = components['schemas']['DraftResult'];

/**
 * What the server assigns to a registered order or a draft. The records written below spread a row's fields last
 * (the faster order), so a row field must never be one of these, or a client could set it: the two checks below fail
 * the build if `OrderFields` gains one, or if a record gains an assigned field not listed here.
 */
type AssignedField =
  | 'order_no'
  | 'order_status_code'
  | 'invoice_no'
  | 'registered_at'
  | 'updated_at'
  | 'draft_id'
  | 'status'
  | 'created_at';
type Never<T extends never> = T;
export type RowFieldsAssignNothing = Never<Extract<keyof OrderFields, AssignedField>>;
export type EveryAssignedFieldListed = Never<
  Exclude<Exclude<keyof OrderRecord | keyof DraftRecord, keyof OrderFields>, AssignedField>
>;

function fieldsOf(row: OrderRow): OrderFields {
  return {
    mall_order_no: row.mall_order_no,
    mall_product_name: row.mall_product_name,
    product_code: row.product_code,
    option_code: row.option_code ?? null,
    quantity: row.quantity,
    receiver_name: row.receiver_name,
    receiver_phone: row.receiver_phone,
    receiver_address: row.receiver_address,
    memo: row.memo ?? '',
  };
}

function stockName(productCode: string, optionCode: string | null): string {
  return optionCode === null ? `product ${productCode}` : `option ${optionCode} of product ${productCode}`;
}

/** Why a row's product or option cannot be used, or undefined when both exist. */
async function missingItem(tx: StoreTransaction, owner: Owner, f: OrderFields): Promise<string | undefined> {
  if (!(await tx.findProduct(owner, f.product_code))) return `Product ${f.product_code} was not found.`;
  if (f.option_code !== null && !(await tx.findOption(owner, f.product_code, f.option_code))) {
    return `Option ${f.option_code} of product ${f.product_code} was not found.`;
  }
  return undefined;
}

/**
 * `missingItem` for the rows of one bulk request: a bulk request names a few products and options over many rows,
 * and none of them is added or removed during its transaction, so each (product, option) is looked up once. Made
 * afresh by each run of the transaction's work (a default parameter of it), so a retried run looks again.
 */
function missingItemOnce(): (tx: StoreTransaction, owner: Owner, f: OrderFields) => Promise<string | undefined> {
  const known = new Map<string, string | undefined>();
  return async (tx, owner, f) => {
    const key = f.option_code === null ? f.product_code : `${f.product_code}\u0000${f.option_code}`;
    if (known.has(key)) return known.get(key);
    const missing = await missingItem(tx, owner, f);
    known.set(key, missing);
    return missing;
  };
}

/**
 * Takes `quantity` from the stock the order draws on (the option's, or the product's own when no option is given).
 * When too little is free nothing is taken, and the free quantity is returned.
 */
async function allocate(
  tx: StoreTransaction,
  owner: Owner,
  productCode: string,
  optionCode: string | null,
  quantity: number,
  at: EpochSeconds,
): Promise<{ free: number } | undefined> {
  if (await tx.allocateStock(owner, productCode, optionCode, quantity, at)) return undefined;
  return { free: (await tx.findStock(owner, productCode, optionCode))?.quantity ?? 0 };
}

function shortageText(f: Pick<OrderFields, 'product_code' | 'option_code'>, requested: string, free: number): string {
  return `Insufficient stock for ${stockName(f.product_code, f.option_code)}: ${requested}, ${free} available.`;
}

/** Remembers each `mall_order_no` of a request, so a later row repeating one fails. */
class RepeatedInRequest {
  private readonly firstRow = new Map<string, number>();
  constructor(private readonly arrayName: string) {}

  /** The failure text when `key` appeared in an earlier row, else undefined (and the row is remembered). */
  check(label: string, key: string, row: number): string | undefined {
    const earlier = this.firstRow.get(key);
    if (earlier !== undefined) return `${label} ${key} repeats ${this.arrayName}[${earlier}] of this request.`;
    this.firstRow.set(key, row);
    return undefined;
  }
}

async function nextOrderNo(tx: StoreTransaction, time: ServiceTime, at: EpochSeconds): Promise<string> {
  const date = time.compactDateOf(at);
  return dailyNumber('ORD', date, await tx.nextSequence('order_no', date));
}

/** Invoice numbers are the carrier's: this server assigns digits, a 12-digit carrier range, one per shipment. */
async function nextInvoiceNo(tx: StoreTransaction): Promise<string> {
  return String(600_000_000_000 + (await tx.nextSequence('invoice_no', '')));
}

// ---------------------------------------------------------------------------------------------------------------
// The order's life after registration

export interface OrderLifecycle {
  /**
   * Hands an order to the carrier: status `30`, a new invoice number, and the packing camera's video of it.
   * `accountId` null finds the order across all sellers; order numbers are unique across the service, environments
   * included, so the number alone names the order and its owner.
   */
  ship(accountId: string | null, orderNo: string, now: Date): Promise<{ order_no: string; invoice_no: string }>;
  /** `10` → `20`: picking and packing starts. */
  prepare(owner: Owner, orderNo: string, now: Date): Promise<void>;
  /** `30` → `40`. */
  deliver(owner: Owner, orderNo: string, now: Date): Promise<void>;
  /** An unshipped order is cancelled (`90`) and its stock is freed. */
  cancel(owner: Owner, orderNo: string, now: Date): Promise<void>;
}

export function orderLifecycle(d: Domain): OrderLifecycle {
  const { store } = d;

  async function load(tx: StoreTransaction, owner: Owner | null, orderNo: string) {
    const order = await tx.findOrder(owner, orderNo);
    if (!order) throw new ApiError('ORDER_NOT_FOUND', `Order ${orderNo} was not found.`);
    return order;
  }

  /** A step of the warehouse's own progress: only from status `from`, straight to `to`. */
  function advance(from: number, to: number) {
    return (owner: Owner, orderNo: string, now: Date) =>
      store.transaction(async (tx) => {
        const order = await load(tx, owner, orderNo);
        if (order.order_status_code !== from) {
          throw new ApiError('INVALID_PARAMETER', `Order ${orderNo} is not in status ${from}.`);
        }
        await tx.updateOrder(owner, orderNo, { order_status_code: to, updated_at: ServiceTime.seconds(now) });
      });
  }

  function refuseFinished(order: OrderRecord): void {
    if (d.isShipped(order.order_status_code)) {
      throw new ApiError('ORDER_ALREADY_SHIPPED', `Order ${order.order_no} has already shipped.`);
    }
    if (order.order_status_code === ORDER_STATUS.cancelled) {
      throw new ApiError('INVALID_PARAMETER', `Order ${order.order_no} is cancelled.`);
    }
  }

  return {
    ship: (accountId, orderNo, now) =>
      store.transaction(async (tx) => {
        const at = ServiceTime.seconds(now);
        const order = await load(tx, null, orderNo);
        // Another seller's order is not found either (DECISIONS G9).
        if (accountId !== null && order.owner.accountId !== accountId)
          throw new ApiError('ORDER_NOT_FOUND', `Order ${orderNo} was not found.`);
        refuseFinished(order);
        const invoice_no = await nextInvoiceNo(tx);
        await tx.updateOrder(order.owner, orderNo, {
          order_status_code: ORDER_STATUS.shipped,
          invoice_no,
          updated_at: at,
        });
        // The warehouse's packing camera records every parcel it ships; the camera area looks videos up by invoice.
        const sequence = await tx.nextSequence('video_id', '');
        const duration = 30 + ((sequence * 37) % 90);
        await tx.insertVideo(order.owner, {
          video_id: `VID-${String(sequence).padStart(6, '0')}`,
          invoice_no,
          recorded_at: at - duration,
          duration_seconds: duration,
        });
        return { order_no: orderNo, invoice_no };
      }),

    prepare: advance(ORDER_STATUS.registered, ORDER_STATUS.preparing),

    deliver: advance(ORDER_STATUS.shipped, ORDER_STATUS.delivered),

    cancel: (owner, orderNo, now) =>
      store.transaction(async (tx) => {
        const at = ServiceTime.seconds(now);
        const order = await load(tx, owner, orderNo);
        refuseFinished(order);
        await tx.releaseStock(owner, order.product_code, order.option_code, order.quantity, at);
        await tx.updateOrder(owner, orderNo, { order_status_code: ORDER_STATUS.cancelled, updated_at: at });
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Bulk registration: orders and drafts share one row loop

/** The success-only fields of a result row (empty strings on a failed row, DECISIONS G7), in the result's order. */
type Written<R> = Omit<R, 'mall_order_no' | 'mall_product_name' | 'success' | 'result_message'>;

/** What one kind of bulk registration does with its rows; the loop (`registerRows`) is the same for both. */
interface RowRegistration<R> {
  /** The failure text when the seller already has a record with this mall_order_no. */
  duplicate(mallOrderNo: string): string;
  /** Which of the request's mall_order_nos the seller's records already use (one look-up for the request). */
  existing(tx: StoreTransaction, owner: Owner, mallOrderNos: readonly string[]): Promise<Set<string>>;
  /** Why the row cannot be written (beyond a duplicate), or undefined; may take what the row needs (stock). */
  refuse(tx: StoreTransaction, owner: Owner, f: OrderFields): Promise<string | undefined>;
  /**
   * Writes the rows nothing refused, in request order; for each, what it was written as, or undefined when a
   * concurrent request (another instance) registered the same mall_order_no meanwhile: the unique key decided, that
   * row lost, and whatever `refuse` took for it is given back.
   */
  write(tx: StoreTransaction, owner: Owner, rows: readonly OrderFields[]): Promise<Array<Written<R> | undefined>>;
  /** The success-only fields of a failed row. */
  failed: Written<R>;
}

/** One result per row, in order; each row succeeds or fails alone, all inside the caller's transaction. */
async function registerRows<R>(
  tx: StoreTransaction,
  owner: Owner,
  rows: readonly OrderRow[],
  kind: RowRegistration<R>,
): Promise<R[]> {
  const repeated = new RepeatedInRequest('orders');
  const fields = rows.map(fieldsOf);
  const existing = await kind.existing(tx, owner, [...new Set(fields.map((f) => f.mall_order_no))]);
  // Each row's failure in the order the rules are checked: repeated in the request, a duplicate, then the row's own.
  const failures: Array<string | undefined> = [];
  for (const [i, f] of fields.entries()) {
    failures.push(
      repeated.check('mall_order_no', f.mall_order_no, i) ??
        (existing.has(f.mall_order_no) ? kind.duplicate(f.mall_order_no) : undefined) ??
        (await kind.refuse(tx, owner, f)),
    );
  }
  const accepted = fields.filter((_, i) => failures[i] === undefined);
  const written = (await kind.write(tx, owner, accepted))[Symbol.iterator]();
  return fields.map((f, i) => {
    const failure = failures[i];
    const row = failure === undefined ? written.next().value : undefined;
    return {
      mall_order_no: f.mall_order_no,
      mall_product_name: f.mall_product_name,
      ...(row ?? kind.failed),
      success: row !== undefined,
      result_message: failure ?? (row ? '' : kind.duplicate(f.mall_order_no)),
    } as R;
  });
}

function counted<R extends { success: boolean }>(results: readonly R[]) {
  const created_count = results.filter((r) => r.success).length;
  return { created_count, failed_count: results.length - created_count };
}

type RegistrationHandlers = Pick<DomainHandlers, 'registerOrders' | 'registerDraftOrders' | 'getDraftOrder'>;

function registrationHandlers(d: Domain): RegistrationHandlers {
  const { store, time } = d;
  return {
    async registerOrders({ body }, ctx) {
      const at = ServiceTime.seconds(ctx.now);
      const created_at = time.format(at);
      // Every accepted row of the request is written in this one transaction; a row that fails writes nothing.
      const results = await store.transaction((tx, missing = missingItemOnce()) =>
        registerRows<OrderResult>(tx, ownerOf(ctx), body.orders, {
          duplicate: (no) => `An order with mall_order_no ${no} already exists.`,
          existing: (tx, owner, nos) => tx.orderMallOrderNos(owner, nos),
          refuse: async (tx, owner, f) =>
            (await missing(tx, owner, f)) ??
            (await allocate(tx, owner, f.product_code, f.option_code, f.quantity, at).then(
              (short) => short && shortageText(f, `${f.quantity} requested`, short.free),
            )),
          async write(tx, owner, rows) {
            const written: Array<{ order_no: string; created_at: string } | undefined> = [];
            for (const f of rows) {
              const order_no = await nextOrderNo(tx, time, at);
              // The row's own fields spread last (see the drafts below, and AssignedField).
              const inserted = await tx.insertOrder(owner, {
                order_no,
                order_status_code: ORDER_STATUS.registered,
                invoice_no: null,
                registered_at: at,
                updated_at: at,
                ...f,
              });
              if (!inserted) await tx.releaseStock(owner, f.product_code, f.option_code, f.quantity, at);
              written.push(inserted ? { order_no, created_at } : undefined);
            }
            return written;
          },
          failed: { order_no: '', created_at: '' },
        }),
      );
      const counts = counted(results);
      ctx.log.info(counts, 'orders registered');
      return { data: { ...counts, results } };
    },

    async registerDraftOrders({ body }, ctx) {
      const at = ServiceTime.seconds(ctx.now);
      const created_at = time.format(at);
      const date = time.compactDateOf(at);
      const drafts = await store.transaction((tx, missing = missingItemOnce()) =>
        registerRows<DraftResult>(tx, ownerOf(ctx), body.orders, {
          duplicate: (no) => `A draft with mall_order_no ${no} already exists.`,
          existing: (tx, owner, nos) => tx.draftMallOrderNos(owner, nos),
          // A draft allocates no stock: only duplicates and unknown products or options fail a row.
          refuse: missing,
          async write(tx, owner, rows) {
            if (rows.length === 0) return [];
            // The rows' draft numbers reserved at once and the rows written a batch a statement: a 1,000-row request
            // is a few statements, not three a row. A row that loses to a concurrent request leaves its number unused.
            const first = await tx.nextSequenceBlock('draft_id', date, rows.length);
            // The row's fields spread last: V8 copies a spread object's shape at once but adds each property written
            // after a spread one at a time: `{ ...f, draft_id, … }` cost about 2 µs a row, over ten times this order.
            const drafts = rows.map((f, i) => ({
              draft_id: dailyNumber('DRF', date, first + i),
              status: DRAFT_STATUS_OPEN,
              created_at: at,
              ...f,
            }));
            const inserted = await tx.insertDrafts(owner, drafts);
            return drafts.map((d) =>
              inserted.has(d.mall_order_no)
                ? { draft_id: d.draft_id, status: DRAFT_STATUS_OPEN, created_at }
                : undefined,
            );
          },
          // DECISIONS G7: every success-only field of a failed row is the empty string, status included.
          failed: { draft_id: '', status: '', created_at: '' },
        }),
      );
      const counts = counted(drafts);
      ctx.log.info(counts, 'draft orders registered');
      return { data: { ...counts, drafts } };
    },

    async getDraftOrder({ params }, ctx) {
      const draft = await store.findDraft(ownerOf(ctx), params.draft_id);
      if (!draft) throw new ApiError('ORDER_DRAFT_NOT_FOUND', `Draft order ${params.draft_id} was not found.`);
      return { data: draftView(draft, time) };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Reads: the lists and the single order, in both areas

type ReadHandlers = Pick<DomainHandlers, 'listWmsOrders' | 'getWmsOrder' | 'listManagerOrders' | 'getManagerOrder'>;

function readHandlers(d: Domain): ReadHandlers {
  const { store, time } = d;

  async function readOrder(owner: Owner, orderNo: string) {
    const order = await store.findOrder(owner, orderNo);
    // Another seller's order is not found either (DECISIONS G9): 404, never 403.
    if (!order) throw new ApiError('ORDER_NOT_FOUND', `Order ${orderNo} was not found.`);
    return order;
  }

  type ListQuery = {
    page: number;
    size: number;
    updated_after?: string;
    date_from?: string;
    order_status_code?: OrderStatusCode;
  };

  /** One page of the seller's orders, read by `read` (whole orders, or only what a summary shows). */
  async function listOrders<T>(
    owner: Owner,
    query: ListQuery,
    read: (owner: Owner, filter: OrderFilter, window: Window) => Promise<Slice<T>>,
  ) {
    const filter = {
      updatedAfter: timeFilter(time, 'updated_after', query.updated_after),
      registeredFrom: dateFilter(time, 'date_from', query.date_from),
      statusCode: query.order_status_code,
    };
    const slice = await read(owner, filter, windowOf(query.page, query.size));
    return { items: slice.items, pagination: paginationOf(query.page, query.size, slice.total) };
  }

  return {
    async listWmsOrders({ query }, ctx) {
      const { items, pagination } = await listOrders(ownerOf(ctx), query, (...args) => store.listOrders(...args));
      return { data: items.map((o) => orderView(o, time)), pagination };
    },

    async listManagerOrders({ query }, ctx) {
      const { items, pagination } = await listOrders(ownerOf(ctx), query, (...args) =>
        store.listOrderSummaries(...args),
      );
      return { data: items.map((o) => managerOrderView(o, time)), pagination };
    },

    async getWmsOrder({ params }, ctx) {
      return { data: orderView(await readOrder(ownerOf(ctx), params.order_no), time) };
    },

    async getManagerOrder({ params }, ctx) {
      return { data: orderView(await readOrder(ownerOf(ctx), params.order_no), time) };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The update

function updateHandlers(d: Domain): Pick<DomainHandlers, 'updateWmsOrder'> {
  const { store, time } = d;
  return {
    async updateWmsOrder({ params, body }, ctx) {
      const at = ServiceTime.seconds(ctx.now);
      const owner = ownerOf(ctx);
      const updated = await store.transaction(async (tx) => {
        const order = await tx.findOrder(owner, params.order_no);
        if (!order) throw new ApiError('ORDER_NOT_FOUND', `Order ${params.order_no} was not found.`);
        if (d.isShipped(order.order_status_code)) {
          throw new ApiError(
            'ORDER_ALREADY_SHIPPED',
            `Order ${order.order_no} has already shipped and cannot be modified.`,
          );
        }
        if (order.order_status_code === ORDER_STATUS.cancelled) {
          throw new ApiError('INVALID_PARAMETER', `Order ${order.order_no} is cancelled and cannot be modified.`);
        }
        const changes: OrderChanges = { updated_at: at };
        if (body.quantity !== undefined && body.quantity !== order.quantity) {
          const difference = body.quantity - order.quantity;
          if (difference > 0) {
            const short = await allocate(tx, owner, order.product_code, order.option_code, difference, at);
            // Thrown inside the transaction, so the order and the stock stay exactly as they were.
            if (short)
              throw new ApiError(
                'INVENTORY_INSUFFICIENT',
                shortageText(order, `${difference} more requested`, short.free),
              );
          } else {
            await tx.releaseStock(owner, order.product_code, order.option_code, -difference, at);
          }
          changes.quantity = body.quantity;
        }
        if (body.receiver_name !== undefined) changes.receiver_name = body.receiver_name;
        if (body.receiver_phone !== undefined) changes.receiver_phone = body.receiver_phone;
        if (body.receiver_address !== undefined) changes.receiver_address = body.receiver_address;
        if (body.memo !== undefined) changes.memo = body.memo;
        await tx.updateOrder(owner, order.order_no, changes);
        return { ...order, ...changes };
      });
      return { data: orderView(updated, time) };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Every order operation

type OrderHandlers = ReadHandlers & RegistrationHandlers & Pick<DomainHandlers, 'updateWmsOrder'>;

export function orderHandlers(d: Domain): OrderHandlers {
  return { ...readHandlers(d), ...registrationHandlers(d), ...updateHandlers(d) };
}
