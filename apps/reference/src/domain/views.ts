// Stored records as the contract shows them: times formatted in the service time zone, derived fields filled in.

import type { components } from '@cls-api/server';
import { ApiError } from '../errors.js';
import type {
  DepositRecord,
  DomainStore,
  DraftRecord,
  OptionRecord,
  OrderRecord,
  OrderSummaryRecord,
  ProductRecord,
  ReturnRecord,
  StockRecord,
  SupplierRecord,
  VideoRecord,
} from '../store/interface.js';
import type { EpochSeconds, ServiceTime, TimeOfDay } from '@cls-api/spec';

type Schemas = components['schemas'];

/** What every part of the domain shares. */
export interface Domain {
  store: DomainStore;
  time: ServiceTime;
  /** Base of `video_url`; the video id and the link's expiry are appended. */
  videoBaseUrl: string;
  /** At most this many videos are listed for one invoice (`maxItems` of the operation's `data`). */
  videosPerInvoice: number;
  /**
   * The time of day that ends a return's withdrawal window (`info.x-limits.return_withdrawal_deadline`): the
   * window ends at the first such instant after the registration (DECISIONS G13).
   */
  returnWithdrawalDeadline: TimeOfDay;
  /** Whether an order in status `code` has shipped and can no longer be modified (the contract model's). */
  isShipped(code: number): boolean;
}

export function orderView(o: OrderRecord, time: ServiceTime): Schemas['Order'] {
  return {
    order_no: o.order_no,
    mall_order_no: o.mall_order_no,
    mall_product_name: o.mall_product_name,
    product_code: o.product_code,
    option_code: o.option_code,
    quantity: o.quantity,
    receiver_name: o.receiver_name,
    receiver_phone: o.receiver_phone,
    receiver_address: o.receiver_address,
    memo: o.memo,
    order_status_code: o.order_status_code,
    invoice_no: o.invoice_no,
    registered_date: time.format(o.registered_at),
    updated_at: time.format(o.updated_at),
  };
}

export function managerOrderView(o: OrderSummaryRecord, time: ServiceTime): Schemas['ManagerOrderListItem'] {
  return {
    order_no: o.order_no,
    mall_product_name: o.mall_product_name,
    order_status_code: o.order_status_code,
    registered_date: time.format(o.registered_at),
  };
}

export function draftView(d: DraftRecord, time: ServiceTime): Schemas['DraftOrder'] {
  return {
    draft_id: d.draft_id,
    status: d.status,
    mall_order_no: d.mall_order_no,
    mall_product_name: d.mall_product_name,
    product_code: d.product_code,
    option_code: d.option_code,
    quantity: d.quantity,
    receiver_name: d.receiver_name,
    receiver_phone: d.receiver_phone,
    receiver_address: d.receiver_address,
    memo: d.memo,
    created_at: time.format(d.created_at),
  };
}

export function productView(p: ProductRecord, time: ServiceTime): Schemas['Product'] {
  return {
    product_code: p.product_code,
    product_name: p.product_name,
    price: p.price,
    supplier_code: p.supplier_code,
    option_count: p.option_count,
    created_at: time.format(p.created_at),
    updated_at: time.format(p.updated_at),
  };
}

export function optionView(o: OptionRecord, time: ServiceTime): Schemas['ProductOption'] {
  return {
    product_code: o.product_code,
    option_code: o.option_code,
    option_name: o.option_name,
    additional_price: o.additional_price,
    created_at: time.format(o.created_at),
  };
}

export function stockView(s: StockRecord, time: ServiceTime): Schemas['InventoryItem'] {
  return {
    product_code: s.product_code,
    option_code: s.option_code,
    quantity: s.quantity,
    updated_at: time.format(s.updated_at),
  };
}

export function supplierView(s: SupplierRecord, time: ServiceTime): Schemas['Supplier'] {
  return { supplier_code: s.supplier_code, supplier_name: s.supplier_name, updated_at: time.format(s.updated_at) };
}

export function returnView(r: ReturnRecord, time: ServiceTime): Schemas['Return'] {
  return {
    return_no: r.return_no,
    order_no: r.order_no,
    reason: r.reason,
    status: r.withdrawn_at === null ? 'requested' : 'withdrawn',
    registered_at: time.format(r.registered_at),
    cancellable_until: time.format(r.cancellable_until),
    withdrawn_at: r.withdrawn_at === null ? null : time.format(r.withdrawn_at),
  };
}

export function depositView(d: DepositRecord, time: ServiceTime): Schemas['Deposit'] {
  return {
    deposit_id: d.deposit_id,
    amount: d.amount,
    depositor_name: d.depositor_name,
    deposited_at: time.format(d.deposited_at),
  };
}

/** Video links are valid for one hour from the request (components.schemas.Video). */
export const VIDEO_LINK_LIFETIME_SECONDS = 3600;

export function videoView(v: VideoRecord, d: Domain, now: EpochSeconds): Schemas['Video'] {
  const url = new URL(encodeURIComponent(v.video_id), d.videoBaseUrl);
  url.searchParams.set('expires', String(now + VIDEO_LINK_LIFETIME_SECONDS));
  return {
    video_id: v.video_id,
    invoice_no: v.invoice_no,
    recorded_at: d.time.format(v.recorded_at),
    duration_seconds: v.duration_seconds,
    video_url: url.href,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Time and date filters. The contract's patterns admit only real times (DECISIONS G16), so over HTTP a value that
// names no time never gets here; callers without that door (the MCP area's own validation, tests) still get a 400.

export function timeFilter(time: ServiceTime, name: string, value: string | undefined): EpochSeconds | undefined {
  if (value === undefined) return undefined;
  const at = time.parseDateTime(value);
  if (at === undefined)
    throw new ApiError('INVALID_PARAMETER', `${name} ${value} is not a real time (YYYY-MM-DD HH:MM:SS).`);
  return at;
}

export function dateFilter(time: ServiceTime, name: string, value: string | undefined): EpochSeconds | undefined {
  if (value === undefined) return undefined;
  const at = time.startOfDate(value);
  if (at === undefined) throw new ApiError('INVALID_PARAMETER', `${name} ${value} is not a real date (YYYY-MM-DD).`);
  return at;
}

/** A service-assigned number such as `ORD-20261120-0001`: prefix, service-time date, per-day sequence. */
export function dailyNumber(prefix: string, date: string, sequence: number): string {
  return `${prefix}-${date}-${String(sequence).padStart(4, '0')}`;
}
