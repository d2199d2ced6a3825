// The seller's shipped order and its invoice, found once per run and shared by the cases that need them: the
// shipped order that cannot be modified (workflows/shipped-order.ts), and the invoice whose videos the camera area
// lists (the invoice case there, and the MCP tool that wraps that read). The kit cannot ship an order itself: the
// warehouse does, so a run without a shipped order of the seller skips what needs one, and says how to make one.
import type { OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext } from '../../run/case.js';
import type { Row } from './bulk.js';
import { pageQuery } from './fixtures.js';

/**
 * The read of the same record on another area that takes the run's JWT (`/v3/wms/orders/{order_no}` →
 * `/v3/manager/orders/{order_no}`), or undefined when there is none or the run has no client credentials.
 */
export function jwtRead(t: CaseContext, read: OperationInfo): OperationInfo | undefined {
  if (!t.env.clientId || !t.env.clientSecret) return undefined;
  const segment = `/${read.area}/`;
  if (!read.path.includes(segment)) return undefined;
  return t.contract.operations.find(
    (o) =>
      o.method === 'get' &&
      o.area !== read.area &&
      o.security.some((s) => t.isBearerScheme(s)) &&
      read.path.replace(segment, `/${o.area}/`) === o.path,
  );
}

/** What a run found of the seller's shipped orders: one of them, or that the seller has none. */
type ShippedSearch = { order: Row } | { none: true };

/** Why a case needing a shipped order skips: the seller has none, and how to make one. */
export function noShippedOrder(t: CaseContext): string {
  return `no order with order_status_code ${t.contract.orderStatuses.shipped.join(' or ')}: ship one on the server first (the reference server: admin order ship ORDER_NO)`;
}

/**
 * A shipped order of the seller (by `order_status_code`, the contract model's shipped values), or undefined when the
 * seller has none or the list did not answer as the contract says (that answer is the calling case's failure).
 * First the newest orders on an area the run's JWT reads (no quota spent); then, by status, on the list that
 * filters by it.
 */
export async function shippedOrder(t: CaseContext): Promise<Row | undefined> {
  const known = t.env.shared.get('shipped_order') as ShippedSearch | undefined;
  if (known) return 'order' in known ? known.order : undefined;
  const list = t.op('listWmsOrders');
  const shipped = t.contract.orderStatuses.shipped;
  const recent = await recentShippedOrder(t, list, shipped);
  let order = recent?.order;
  // The seller's whole list was on that page: no shipped order anywhere, nothing more to ask.
  for (const code of order || recent?.complete ? [] : shipped) {
    const ex = await t.call(list, { query: { order_status_code: code, page: 1, size: 1 } });
    if (!t.expect(ex, list, { status: t.contract.successStatus(list) })) return undefined;
    order = (dataOf<Row[]>(ex) ?? [])[0];
    if (order) break;
  }
  t.env.shared.set('shipped_order', order ? { order } : { none: true });
  return order;
}

/**
 * A shipped order on the first page (at the largest size) of the order list the run's JWT reads, and whether that
 * page held the seller's whole list; undefined when there is no such list or it is not answered as the contract says.
 */
async function recentShippedOrder(
  t: CaseContext,
  list: OperationInfo,
  shipped: readonly number[],
): Promise<{ order: Row | undefined; complete: boolean } | undefined> {
  const byJwt = jwtRead(t, list);
  const paged = byJwt ? t.contract.paged(byJwt) : undefined;
  if (!byJwt || !paged) return undefined;
  const max = t.contract.resolve(paged.sizeParameter.schema).maximum;
  const ex = await t.call(byJwt, { query: pageQuery(t, byJwt, typeof max === 'number' ? max : 20) });
  if (!t.expect(ex, byJwt, { status: t.contract.successStatus(byJwt) })) return undefined;
  const order = (dataOf<Row[]>(ex) ?? []).find((o) => shipped.includes(Number(o.order_status_code)));
  const pagination = (ex.response.json as { pagination?: { has_next?: unknown } } | undefined)?.pagination;
  return { order, complete: pagination?.has_next === false };
}

/** What the run learned of the shipped order's invoice: its number, and whether the camera area listed videos of it. */
export type InvoiceLookup = { invoice: string; orderNo: string; videos: number } | { skip: string };

/**
 * The videos of the seller's shipped order's invoice, asked once per run (`listInvoiceVideos`): its success, or the
 * documented 404 for an invoice without video, which a real warehouse may have. Either is judged in the calling case;
 * any other answer is its failure, and then nothing is remembered.
 */
export async function invoiceVideos(t: CaseContext): Promise<InvoiceLookup | undefined> {
  const known = t.env.shared.get('invoice_videos') as InvoiceLookup | undefined;
  if (known) return known;
  const videosOp = t.op('listInvoiceVideos');
  const order = await shippedOrder(t);
  if (!order) return t.env.shared.get('shipped_order') ? remember(t, { skip: noShippedOrder(t) }) : undefined;
  const orderNo = String(order.order_no);
  const read = 'invoice_no' in order ? { invoice: order.invoice_no } : await readInvoiceNo(t, orderNo);
  if (!read) return undefined;
  const { invoice } = read;
  if (typeof invoice !== 'string' || invoice === '')
    return remember(t, { skip: `the shipped order ${orderNo} shows no invoice_no to look its videos up by` });
  const param = videosOp.parameters.find((p) => p.in === 'path')!;
  const ex = await t.call(videosOp, { path: { [param.name]: invoice } });
  const success = t.contract.successStatus(videosOp);
  const notFound = t.contract.responseFor(videosOp, 404);
  if (
    !t.expect(ex, videosOp, {
      status: notFound ? [success, 404] : success,
      code: notFound?.errorCodes ?? [],
      why: `the invoice ${invoice} of the shipped order ${orderNo}: its videos, or none`,
    })
  )
    return undefined;
  if (ex.response.status !== success) return remember(t, { invoice, orderNo, videos: 0 });
  const videos = dataOf<unknown[]>(ex) ?? [];
  // An invoice without video is the documented 404, never an empty success.
  if (
    !t.assert(
      Array.isArray(videos) && videos.length > 0,
      'expected_outcome',
      `at least one video (an invoice without video is HTTP 404 ${notFound?.errorCodes.join(' or ') ?? ''})`.trim(),
      `${Array.isArray(videos) ? videos.length : 'no'} videos`,
      ex,
      videosOp,
    )
  )
    return undefined;
  return remember(t, { invoice, orderNo, videos: videos.length });
}

/**
 * The invoice number of the order `orderNo`, read by its number (a list may show less of an order than its read: the
 * manager area's list has no `invoice_no`): on an area the run's JWT reads where one does, which spends no quota.
 * Undefined when the read is not answered as the contract says (that answer is the calling case's failure).
 */
async function readInvoiceNo(t: CaseContext, orderNo: string): Promise<{ invoice: unknown } | undefined> {
  const get = jwtRead(t, t.op('getWmsOrder')) ?? t.op('getWmsOrder');
  const ex = await t.call(get, { path: { order_no: orderNo } });
  if (!t.expect(ex, get, { status: t.contract.successStatus(get) })) return undefined;
  return { invoice: dataOf<Row>(ex)?.invoice_no };
}

function remember(t: CaseContext, lookup: InvoiceLookup): InvoiceLookup {
  t.env.shared.set('invoice_videos', lookup);
  return lookup;
}
