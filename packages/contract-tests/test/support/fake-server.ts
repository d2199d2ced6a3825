// A small but honest implementation of the contract in plain node:http, for the kit's own tests. By default it
// follows every rule the kit checks, so the whole kit passes against it; each `Fault` breaks exactly one rule at
// one place, so a test can prove that the check for that rule catches it.
//
// It reads the contract like the kit does (routes, parameter and body schemas, error catalogue, documented
// headers, limits) and holds its data in memory.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { contractModel, ServiceTime, type JsonSchema, type OperationInfo } from '@cls-api/spec';
import { Contract } from '../../src/contract/contract.js';
import { parked } from './parking.js';

export const FAULTS = [
  'status_undocumented',
  'content_type_text',
  'schema_extra_field',
  'schema_wrong_type',
  'draft_row_shapes_mixed',
  'envelope_not_first',
  'success_flag_wrong',
  'error_code_undocumented',
  'ratelimit_placeholder',
  'quota_headers_on_401',
  'quota_headers_for_jwt',
  'quota_limit_wrong',
  'quota_429_remaining_nonzero',
  'gateway_429_with_headers',
  'pagination_has_next_wrong',
  'pagination_total_drift',
  'server_error_on_invalid_query',
  'invalid_example_accepted',
  'missing_credential_wrong_code',
  'api_key_on_pay_accepted',
  'wrong_area_key_accepted',
  'wrong_area_key_401',
  'quota_counted_twice',
  'expired_token_accepted',
  'server_error_on_bad_json',
  'server_error_on_json_array',
  'gateway_burst_small',
  'gateway_rate_slow',
  'seller_leak_jwt',
  'manager_jwt_refused',
  'size_unbounded',
  'unknown_resource_200',
  'bulk_limit_off_by_one',
  'bulk_bad_row_registers_good_rows',
  'bulk_rows_reordered',
  'bulk_counts_wrong',
  'read_back_mismatch',
  'shipped_order_modifiable',
  'seller_leak',
  'no_gateway_limit',
  'accepts_any_key',
  'quota_per_key',
  'quota_reset_utc',
  'gateway_429_held',
  'times_in_utc',
  'echo_normalized',
  'error_message_stack',
  'option_not_found_as_product',
  'inventory_unchecked',
  'domain_code_wrong_status',
  'domain_code_wrong_area',
  'deposits_empty_404',
  'gateway_throttles',
  'return_window_closed',
] as const;
export type Fault = (typeof FAULTS)[number];

/**
 * What a correct server may do and the kit must not hold against it: JSON pretty-printed (with a leading newline),
 * the members after `success` in another order (nested objects too), a `charset` parameter on the Content-Type,
 * header names in upper case, a compressed body (when the request accepts it). Each is benign: a full kit run
 * against the fake with any of them must pass.
 */
export const VARIANTS = ['pretty', 'members_reordered', 'charset', 'header_case', 'gzip', 'br'] as const;
export type Variant = (typeof VARIANTS)[number];

export interface FakeOptions {
  faults?: Fault[];
  /** Benign ways of writing a correct response (see VARIANTS). */
  variants?: Variant[];
  /**
   * Gateway buckets: the contract's (default), none, given numbers (per scope name), or `{ every: n }`: a gateway
   * 429 for every n-th request, whatever the clock says, for tests that must see 429s on a machine of any speed.
   */
  gateway?: 'contract' | 'off' | { every: number } | Record<string, { ratePerSecond: number; burst: number }>;
  /** Monthly calls already used by each account's test keys when the server starts. */
  quotaUsedAtStart?: number;
  /**
   * The contract the server holds requests to (default: the bundled one). A copy with a design changed makes a
   * server that is right where our design guessed wrong (longer identifiers, say): the kit, on the bundled
   * contract, must report that as a provisional departure, not a failure.
   */
  contract?: Contract;
  /** Calls of the monthly quota each metered request counts (default 1): a service that counts apart from the kit. */
  quotaPerCall?: number;
  /** Every answer is held this long (ms): a server slow to refuse, for the request budget's tests. */
  latencyMs?: number;
  /** The `status` of a successful draft (default `open`, the one value the source shows; the set is open). */
  draftStatus?: string;
  /** Every return's withdrawal window has passed: withdrawing one is 400 RETURN_CANCEL_EXPIRED. */
  returnWindowClosed?: boolean;
  /**
   * The server's own clock (ms since the epoch), when it is not the test process's: it stamps records, decides the
   * return window and writes each answer's `Date` header.
   */
  clock?: () => number;
  /** The accounts' paid subscription has ended: live keys are refused with 403 AUTH_FORBIDDEN (DECISIONS.md G19). */
  subscriptionEnded?: boolean;
}

type Row = Record<string, unknown>;

/** What an order or a draft keeps of the row it was registered from (OrderRow.yaml). */
const orderFields = (row: Row): Row => ({
  mall_order_no: row.mall_order_no,
  mall_product_name: row.mall_product_name,
  product_code: row.product_code,
  option_code: row.option_code ?? null,
  quantity: row.quantity,
  receiver_name: row.receiver_name,
  receiver_phone: row.receiver_phone,
  receiver_address: row.receiver_address,
  memo: row.memo ?? '',
});

interface Account {
  id: string;
  /** `test` or `live`: separate data (DECISIONS.md G20); only test keys are metered. */
  env: string;
  products: Map<string, Row>;
  options: Map<string, Map<string, Row>>;
  stock: Map<string, number>; // product_code or product_code/option_code
  orders: Row[];
  drafts: Map<string, Row>;
  returns: Map<string, Row>;
  deposits: Row[];
  videos: Map<string, Row[]>;
  used: number;
}

interface KeyInfo {
  account: Account;
  area: string;
  env: string;
}

class HttpError {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly message: string,
  ) {}
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export interface FakeServer {
  url: string;
  close: () => Promise<void>;
  keys: { primary: Record<string, string>; other: Record<string, string> };
  /** Live keys of the same two sellers: they reach the sellers' live data, kept apart from the test data. */
  liveKeys: { primary: Record<string, string>; other: Record<string, string> };
  client: { id: string; secret: string };
  /** Client credentials of the other seller (test environment). */
  otherClient: { id: string; secret: string };
  /** An access token of the primary seller that expired (its `exp` is past): answered 401 AUTH_EXPIRED_TOKEN. */
  expiredToken: string;
  /** Client credentials of the primary seller's live environment (`cli_live_…`). */
  liveClient: { id: string; secret: string };
  accounts: { primary: Account; other: Account; primaryLive: Account; otherLive: Account };
  /** Marks an order shipped (status 30 with an invoice), as the warehouse would. */
  ship: (orderNo: string) => void;
  requests: number;
  /** Every request answered: method, path, status and the Content-Encoding of the answer, if any. */
  log: Array<{ method: string; path: string; status: number; encoding?: string }>;
}

/** The kit's environment variables for a fake server, as a partner's CI would set them (`README.md`). */
export function kitVariables(f: FakeServer): Record<string, string> {
  return {
    CLS_BASE_URL: f.url,
    CLS_API_KEYS: Object.values(f.keys.primary).join(','),
    CLS_OTHER_API_KEYS: Object.values(f.keys.other).join(','),
    CLS_CLIENT_ID: f.client.id,
    CLS_CLIENT_SECRET: f.client.secret,
    CLS_OTHER_CLIENT_ID: f.otherClient.id,
    CLS_OTHER_CLIENT_SECRET: f.otherClient.secret,
  };
}

export async function startFake(options: FakeOptions = {}): Promise<FakeServer> {
  const contract = options.contract ?? new Contract();
  const faults = new Set(options.faults ?? []);
  const variants = new Set(options.variants ?? []);
  const quotaLimit = contract.limits.monthlyQuota.get('test') ?? 1000;

  // The service calendar of the contract model: the fake keeps time as the service does.
  const time = contract.time;
  // `times_in_utc`: the service's clock read in UTC instead of the service time zone.
  const clock = faults.has('times_in_utc') ? new ServiceTime('UTC') : time;
  const fmt = (atMs: number) => clock.format(ServiceTime.seconds(new Date(atMs)));
  const serverNow = options.clock ?? (() => Date.now());
  const now = () => fmt(serverNow());
  // A return can be withdrawn until the first deadline time after it was registered, that instant excluded: the
  // same day before it, the next day from it on (info.x-limits.return_withdrawal_deadline, DECISIONS.md G13).
  const deadline = contractModel(contract.doc).limits.returnWithdrawalDeadline;
  const withdrawalDeadline = (registered: string) =>
    time.format(time.nextTimeOfDay(time.parseDateTime(registered)!, deadline));
  let serial = 0;
  const nextId = (prefix: string) => `${prefix}-${now().slice(0, 10).replace(/-/g, '')}-${pad(++serial, 5)}`;

  const account = (id: string, env = 'test'): Account => ({
    id,
    env,
    products: new Map(),
    options: new Map(),
    stock: new Map(),
    orders: [],
    drafts: new Map(),
    returns: new Map(),
    deposits: [],
    videos: new Map(),
    used: options.quotaUsedAtStart ?? 0,
  });
  const primary = account('A');
  const other = account('B');
  const primaryLive = account('A', 'live');
  const otherLive = account('B', 'live');
  const keys = new Map<string, KeyInfo>();
  const keyNames = { primary: {} as Record<string, string>, other: {} as Record<string, string> };
  const liveKeyNames = { primary: {} as Record<string, string>, other: {} as Record<string, string> };
  for (const [acc, names] of [
    [primary, keyNames.primary],
    [other, keyNames.other],
    [primaryLive, liveKeyNames.primary],
    [otherLive, liveKeyNames.other],
  ] as const) {
    for (const area of ['wms', 'manager', 'cam']) {
      const key = `${area}_${acc.env}_${randomBytes(12).toString('hex')}`;
      keys.set(key, { account: acc, area, env: acc.env });
      names[area] = key;
    }
  }
  const client = { id: `cli_test_${randomBytes(6).toString('hex')}`, secret: randomBytes(16).toString('hex') };
  const liveClient = { id: `cli_live_${randomBytes(6).toString('hex')}`, secret: randomBytes(16).toString('hex') };
  const otherClient = { id: `cli_test_${randomBytes(6).toString('hex')}`, secret: randomBytes(16).toString('hex') };
  const tokens = new Map<string, Account>();
  const refreshTokens = new Map<string, { account: Account; used: boolean }>();

  // Seed: a shipped order, deposits, videos and suppliers, as a sandbox would hold.
  const seedTime = fmt(Date.now() - 3 * 86_400_000);
  primary.products.set('SEED-01', {
    product_code: 'SEED-01',
    product_name: 'Seed product',
    price: 1000,
    supplier_code: 'SUP-01',
    option_count: 0,
    created_at: seedTime,
    updated_at: seedTime,
  });
  primary.stock.set('SEED-01', 10);
  primary.orders.push({
    order_no: 'ORD-SEED-0001',
    mall_order_no: 'MALL-SEED-1',
    mall_product_name: 'Seed product',
    product_code: 'SEED-01',
    option_code: null,
    quantity: 1,
    receiver_name: 'Kim Minji',
    receiver_phone: '010-1234-5678',
    receiver_address: '12 Teheran-ro, Seoul',
    memo: '',
    order_status_code: 30,
    invoice_no: '612345678901',
    registered_date: seedTime,
    updated_at: seedTime,
  });
  primary.videos.set('612345678901', [
    {
      video_id: 'VID-1',
      invoice_no: '612345678901',
      recorded_at: seedTime,
      duration_seconds: 42,
      video_url: 'https://videos.example.com/VID-1.mp4',
    },
  ]);
  for (let i = 1; i <= 3; i++)
    primary.deposits.push({
      deposit_id: `DEP-${i}`,
      amount: 10000 * i,
      depositor_name: 'Kim Minji',
      deposited_at: fmt(Date.now() - i * 86_400_000),
    });
  const suppliers = Array.from({ length: 3 }, (_, i) => ({
    supplier_code: `SUP-0${i + 1}`,
    supplier_name: `Supplier ${i + 1}`,
    updated_at: seedTime,
  }));

  // Gateway buckets per scope.
  const buckets = new Map<string, { tokens: number; at: number; rate: number; burst: number; appliesTo: string }>();
  const every =
    typeof options.gateway === 'object' && typeof options.gateway.every === 'number'
      ? options.gateway.every
      : undefined;
  let counted = 0;
  if (every === undefined && options.gateway !== 'off' && !faults.has('no_gateway_limit')) {
    for (const scope of contract.limits.gateway) {
      const custom =
        typeof options.gateway === 'object'
          ? (options.gateway as Record<string, { ratePerSecond: number; burst: number }>)[scope.name]
          : undefined;
      // `gateway_burst_small`: a burst allowance of 40 % of the contract's; `gateway_rate_slow`: half its rate.
      const rate = (custom?.ratePerSecond ?? scope.ratePerSecond) * (faults.has('gateway_rate_slow') ? 0.5 : 1);
      const burst = Math.ceil((custom?.burst ?? scope.burst) * (faults.has('gateway_burst_small') ? 0.4 : 1));
      buckets.set(scope.name, { tokens: burst, at: Date.now(), rate, burst, appliesTo: scope.appliesTo });
    }
  }
  // `gateway_throttles`: over the limit, a request waits for the bucket to refill (its token taken in advance, so
  // that the waiting ones queue) instead of being refused. Returns how long to hold it, in ms.
  const gatewayHold = (path: string) => {
    const t = Date.now();
    const applicable = [...buckets.values()].filter((b) => path.startsWith(b.appliesTo));
    let wait = 0;
    for (const b of applicable) {
      b.tokens = Math.min(b.burst, b.tokens + ((t - b.at) / 1000) * b.rate);
      b.at = t;
      if (b.tokens < 1) wait = Math.max(wait, ((1 - b.tokens) / b.rate) * 1000);
      b.tokens -= 1;
    }
    return wait;
  };
  const gatewayAllows = (path: string) => {
    if (every !== undefined) return ++counted % every !== 0;
    const t = Date.now();
    const applicable = [...buckets.values()].filter((b) => path.startsWith(b.appliesTo));
    for (const b of applicable) {
      b.tokens = Math.min(b.burst, b.tokens + ((t - b.at) / 1000) * b.rate);
      b.at = t;
    }
    if (applicable.some((b) => b.tokens < 1)) return false;
    for (const b of applicable) b.tokens -= 1;
    return true;
  };

  const routes = contract.operations.map((op) => ({
    op,
    re: new RegExp(`^${op.path.replace(/\{([^}]+)\}/g, '(?<$1>[^/]+)')}$`),
  }));
  // Literal segments win over parameters (/v3/wms/orders/draft before /v3/wms/orders/{order_no}).
  routes.sort((a, b) => a.op.path.split('{').length - b.op.path.split('{').length);

  const resetClock = faults.has('quota_reset_utc') ? new ServiceTime('UTC') : time;
  const nextMonthReset = () => resetClock.startOfNextMonth(ServiceTime.seconds(new Date()));
  // `quota_per_key`: each key counted on its own, as if the allowance were per key, not per account.
  const perKey = new Map<string, { used: number }>();
  const meterOf = (key: string, acc: Account): { used: number } => {
    if (!faults.has('quota_per_key')) return acc;
    let m = perKey.get(key);
    if (!m) {
      m = { used: options.quotaUsedAtStart ?? 0 };
      perKey.set(key, m);
    }
    return m;
  };
  let held = false;

  const state = { requests: 0, log: [] as FakeServer['log'] };

  /** Members in reverse order at every level, `success` kept first at the top (variant `members_reordered`). */
  const reordered = (value: unknown, top = false): unknown => {
    if (Array.isArray(value)) return value.map((v) => reordered(v));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value).reverse();
    const first = top ? entries.filter(([k]) => k === 'success') : [];
    const rest = entries.filter(([k]) => !(top && k === 'success')).map(([k, v]) => [k, reordered(v)] as const);
    return Object.fromEntries([...first, ...rest]);
  };

  /** Every response of the fake goes out here, written as the variants say. */
  const writeJson = (
    res: ServerResponse,
    status: number,
    headers: Record<string, string>,
    body: Record<string, unknown>,
  ) => {
    let value: Record<string, unknown> = variants.has('members_reordered')
      ? (reordered(body, true) as Record<string, unknown>)
      : body;
    if (faults.has('envelope_not_first') && status === 200) {
      const { success, ...rest } = value;
      value = { ...rest, success };
    }
    const text = variants.has('pretty') ? `\n${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value);
    const out: Record<string, string> = { ...headers };
    if (variants.has('charset') && out['Content-Type'] === 'application/json')
      out['Content-Type'] = 'application/json; charset=UTF-8';
    let payload: Buffer = Buffer.from(text);
    const accepts = String(res.req?.headers['accept-encoding'] ?? '');
    if (variants.has('br') && /\bbr\b/.test(accepts)) {
      payload = brotliCompressSync(payload);
      out['Content-Encoding'] = 'br';
    } else if (variants.has('gzip') && /\bgzip\b/.test(accepts)) {
      payload = gzipSync(payload);
      out['Content-Encoding'] = 'gzip';
    }
    const named = variants.has('header_case')
      ? Object.fromEntries(Object.entries(out).map(([k, v]) => [k.toUpperCase(), v]))
      : out;
    // Set one by one, so that the request log can read the encoding back.
    for (const [name, value] of Object.entries(named)) res.setHeader(name, value);
    // The server's clock, which a test may pin (Node's own Date header reads the machine's, whatever a test fakes).
    res.setHeader('Date', new Date(serverNow()).toUTCString());
    res.writeHead(status);
    res.end(payload);
  };

  const send = (
    res: ServerResponse,
    op: OperationInfo | undefined,
    status: number,
    body: Record<string, unknown>,
    quota?: { used: number },
  ) => {
    const headers: Record<string, string> = {
      'Content-Type': faults.has('content_type_text') && status >= 400 ? 'text/plain' : 'application/json',
    };
    const documented = op ? contract.responseFor(op, status) : undefined;
    const declares = (h: string) => Object.keys(documented?.headers ?? {}).some((n) => n.toLowerCase() === h);
    if (quota && declares('x-ratelimit-remaining')) {
      headers['X-RateLimit-Limit'] = faults.has('quota_limit_wrong') ? String(quotaLimit / 2) : String(quotaLimit);
      headers['X-RateLimit-Remaining'] = faults.has('ratelimit_placeholder')
        ? '-1'
        : String(Math.max(0, quotaLimit - quota.used));
      headers['X-RateLimit-Reset'] = String(nextMonthReset());
    }
    if (faults.has('quota_headers_on_401') && status === 401) {
      headers['X-RateLimit-Limit'] = String(quotaLimit);
      headers['X-RateLimit-Remaining'] = String(quotaLimit);
      headers['X-RateLimit-Reset'] = String(nextMonthReset());
    }
    writeJson(res, status, headers, body);
  };
  const error = (code: string, message: string) => new HttpError(contract.statusOf(code), code, message);

  const paginate = (items: Row[], query: Record<string, unknown>) => {
    const page = Number(query.page ?? 1);
    const size = Number(query.size ?? 10);
    const total = items.length;
    const totalPages = Math.ceil(total / size);
    let start = (page - 1) * size;
    if (faults.has('pagination_total_drift') && page > 1) start -= 1;
    const data = items.slice(start, start + size);
    const pagination = {
      page,
      size,
      total: faults.has('pagination_total_drift') && page > 1 ? total + 1 : total,
      total_pages: totalPages,
      has_next: faults.has('pagination_has_next_wrong') ? true : page < totalPages,
    };
    return { data, pagination };
  };

  const productOf = (acc: Account, code: string) => {
    const p = acc.products.get(code);
    if (!p) throw error('PRODUCT_NOT_FOUND', `Product ${code} was not found.`);
    return p;
  };
  const orderOf = (acc: Account, no: string) => {
    const o = acc.orders.find((x) => x.order_no === no);
    if (!o) throw error('ORDER_NOT_FOUND', `Order ${no} was not found.`);
    return o;
  };

  const bulkRows = (
    rows: Row[],
    each: (row: Row, i: number) => { ok: true; fields: Row } | { ok: false; message: string },
    fields: (row: Row) => Row,
    empty: Row,
  ) => {
    const results = rows.map((row, i) => {
      const r = each(row, i);
      const echoed = fields(row);
      if (faults.has('echo_normalized')) {
        for (const [k, v] of Object.entries(echoed))
          if (typeof v === 'string') echoed[k] = v.trim().replace(/\s+/g, ' ').normalize('NFC');
      }
      return r.ok
        ? { ...echoed, ...r.fields, success: true, result_message: '' }
        : { ...echoed, ...empty, success: false, result_message: r.message };
    });
    if (faults.has('bulk_rows_reordered')) results.sort((a, b) => Number(b.success) - Number(a.success));
    return results;
  };
  const counts = (results: Row[], successName: string) => {
    const ok = results.filter((r) => r.success).length;
    return { [successName]: ok, failed_count: faults.has('bulk_counts_wrong') ? 0 : results.length - ok };
  };

  const handlers: Record<
    string,
    (ctx: {
      acc: Account;
      params: Record<string, string>;
      query: Record<string, unknown>;
      body: Row;
      keyArea?: string;
      viaJwt?: boolean;
    }) => { data: unknown; pagination?: unknown }
  > = {
    listWmsOrders: ({ acc, query }) => paginate(filterOrders(acc.orders, query), query),
    getWmsOrder: ({ acc, params }) => ({ data: orderOf(acc, params.order_no!) }),
    getManagerOrder: ({ acc, params, viaJwt }) => {
      // `seller_leak_jwt`: with a JWT (not with a key), any seller's order is found.
      const leaked =
        faults.has('seller_leak') || (faults.has('seller_leak_jwt') && viaJwt)
          ? [primary, other].find((a) => a.orders.some((o) => o.order_no === params.order_no))
          : undefined;
      if (faults.has('domain_code_wrong_area') && !(leaked ?? acc).orders.some((o) => o.order_no === params.order_no))
        throw error('ORDER_DRAFT_NOT_FOUND', `Order ${params.order_no} was not found.`);
      return { data: orderOf(leaked ?? acc, params.order_no!) };
    },
    listManagerOrders: ({ acc, query, viaJwt }) => {
      const source =
        faults.has('seller_leak') || (faults.has('seller_leak_jwt') && viaJwt)
          ? [...primary.orders, ...other.orders]
          : acc.orders;
      const items = filterOrders(source, query).map((o) => ({
        order_no: o.order_no,
        mall_product_name: o.mall_product_name,
        order_status_code: o.order_status_code,
        registered_date: o.registered_date,
      }));
      return paginate(items, query);
    },
    updateWmsOrder: ({ acc, params, body }) => {
      const order = orderOf(acc, params.order_no!);
      const status = order.order_status_code as number;
      if ((status === 30 || status === 40) && !faults.has('shipped_order_modifiable'))
        throw error('ORDER_ALREADY_SHIPPED', `Order ${order.order_no} has shipped and cannot be modified.`);
      if (status === 90) throw error('INVALID_PARAMETER', 'A cancelled order cannot be modified.');
      if (typeof body.quantity === 'number' && body.quantity > (order.quantity as number)) {
        const key = order.option_code ? `${order.product_code}/${order.option_code}` : String(order.product_code);
        const more = body.quantity - (order.quantity as number);
        if ((acc.stock.get(key) ?? 0) < more && !faults.has('inventory_unchecked')) {
          if (faults.has('domain_code_wrong_status'))
            throw new HttpError(409, 'INVENTORY_INSUFFICIENT', 'Not enough stock for the new quantity.');
          throw error('INVENTORY_INSUFFICIENT', 'Not enough stock for the new quantity.');
        }
        acc.stock.set(key, (acc.stock.get(key) ?? 0) - more);
      }
      Object.assign(order, body, { updated_at: now() });
      return { data: order };
    },
    registerOrders: ({ acc, body }) => {
      const rows = body.orders as Row[];
      const results = bulkRows(
        rows,
        (row) => {
          if (!acc.products.has(String(row.product_code)))
            return { ok: false, message: `Product ${row.product_code} was not found.` };
          if (row.option_code && !acc.options.get(String(row.product_code))?.has(String(row.option_code)))
            return { ok: false, message: `Option ${row.option_code} was not found.` };
          if (acc.orders.some((o) => o.mall_order_no === row.mall_order_no))
            return { ok: false, message: `An order with mall_order_no ${row.mall_order_no} already exists.` };
          const key = row.option_code ? `${row.product_code}/${row.option_code}` : String(row.product_code);
          if ((acc.stock.get(key) ?? 0) < (row.quantity as number)) return { ok: false, message: 'Not enough stock.' };
          acc.stock.set(key, (acc.stock.get(key) ?? 0) - (row.quantity as number));
          const t = now();
          const order = {
            order_no: nextId('ORD'),
            ...orderFields(row),
            order_status_code: 10,
            invoice_no: null,
            registered_date: t,
            updated_at: t,
          };
          acc.orders.unshift(order);
          return { ok: true, fields: { order_no: order.order_no, created_at: t } };
        },
        (row) => ({ mall_order_no: row.mall_order_no, mall_product_name: row.mall_product_name }),
        { order_no: '', created_at: '' },
      );
      return { data: { ...counts(results, 'created_count'), results } };
    },
    registerDraftOrders: ({ acc, body }) => {
      const rows = body.orders as Row[];
      const results = bulkRows(
        rows,
        (row) => {
          if ([...acc.drafts.values()].some((d) => d.mall_order_no === row.mall_order_no))
            return { ok: false, message: `A draft with mall_order_no ${row.mall_order_no} already exists.` };
          const t = now();
          const draft = {
            draft_id: nextId('DRF'),
            status: options.draftStatus ?? 'open',
            ...orderFields(row),
            created_at: t,
          };
          acc.drafts.set(draft.draft_id, draft);
          if (faults.has('draft_row_shapes_mixed'))
            return { ok: true, fields: { draft_id: '', status: draft.status, created_at: t } };
          return { ok: true, fields: { draft_id: draft.draft_id, status: draft.status, created_at: t } };
        },
        (row) => ({ mall_order_no: row.mall_order_no, mall_product_name: row.mall_product_name }),
        { draft_id: '', status: '', created_at: '' },
      );
      return { data: { ...counts(results, 'created_count'), drafts: results } };
    },
    getDraftOrder: ({ acc, params }) => {
      const d = acc.drafts.get(params.draft_id!);
      if (!d) throw error('ORDER_DRAFT_NOT_FOUND', `Draft ${params.draft_id} was not found.`);
      return { data: faults.has('read_back_mismatch') ? { ...d, quantity: (d.quantity as number) + 1 } : d };
    },
    listWmsProducts: ({ acc, query }) => paginate(filterUpdated([...acc.products.values()], query), query),
    listManagerProducts: ({ acc, query }) => paginate(filterUpdated([...acc.products.values()], query), query),
    createProduct: ({ acc, body }) => {
      if (acc.products.has(String(body.product_code)))
        throw error('DUPLICATE', `Product ${body.product_code} already exists.`);
      const t = now();
      const product = {
        product_code: body.product_code,
        product_name: body.product_name,
        price: body.price,
        supplier_code: body.supplier_code ?? null,
        option_count: 0,
        created_at: t,
        updated_at: t,
      };
      acc.products.set(String(body.product_code), product);
      acc.stock.set(String(body.product_code), (body.stock_quantity as number | undefined) ?? 0);
      return { data: product };
    },
    getWmsProduct: ({ acc, params }) => ({ data: productOf(acc, params.product_code!) }),
    getManagerProduct: ({ acc, params }) => ({ data: productOf(acc, params.product_code!) }),
    listProductOptions: ({ acc, params, query }) => {
      productOf(acc, params.product_code!);
      return paginate([...(acc.options.get(params.product_code!)?.values() ?? [])], query);
    },
    addProductOptions: ({ acc, params, body }) => {
      const product = productOf(acc, params.product_code!);
      const options = acc.options.get(params.product_code!) ?? new Map<string, Row>();
      acc.options.set(params.product_code!, options);
      const results = bulkRows(
        body.options as Row[],
        (row) => {
          if (options.has(String(row.option_code)))
            return { ok: false, message: `Option ${row.option_code} already exists.` };
          const t = now();
          options.set(String(row.option_code), {
            product_code: params.product_code,
            option_code: row.option_code,
            option_name: row.option_name,
            additional_price: row.additional_price ?? 0,
            created_at: t,
          });
          acc.stock.set(`${params.product_code}/${row.option_code}`, (row.stock_quantity as number | undefined) ?? 0);
          product.option_count = options.size;
          return { ok: true, fields: { created_at: t } };
        },
        (row) => ({ option_code: row.option_code, option_name: row.option_name }),
        { created_at: '' },
      );
      return { data: { ...counts(results, 'added_count'), options: results } };
    },
    getProductOption: ({ acc, params }) => optionOf(acc, params),
    getManagerProductOption: ({ acc, params }) => optionOf(acc, params),
    listInventory: ({ acc, query }) => {
      if (query.product_code !== undefined) productOf(acc, String(query.product_code));
      const items: Row[] = [];
      for (const [key, quantity] of acc.stock) {
        const [product, option] = key.split('/');
        if (query.product_code !== undefined && product !== query.product_code) continue;
        items.push({ product_code: product, option_code: option ?? null, quantity, updated_at: seedTime });
      }
      return paginate(items, query);
    },
    listSuppliers: ({ query }) => paginate(suppliers, query),
    registerReturn: ({ acc, body }) => {
      orderOf(acc, String(body.order_no));
      if ([...acc.returns.values()].some((r) => r.order_no === body.order_no && r.status === 'requested'))
        throw error('DUPLICATE', 'The order already has an open return.');
      const t = now();
      const ret = {
        return_no: nextId('RTN'),
        order_no: body.order_no,
        reason: body.reason,
        status: 'requested',
        registered_at: t,
        cancellable_until: withdrawalDeadline(t),
        withdrawn_at: null,
      };
      acc.returns.set(ret.return_no, ret);
      return { data: ret };
    },
    getReturn: ({ acc, params }) => ({ data: returnOf(acc, params.return_no!) }),
    cancelReturn: ({ acc, params }) => {
      const ret = returnOf(acc, params.return_no!);
      if (ret.status === 'withdrawn') return { data: ret };
      if (options.returnWindowClosed || faults.has('return_window_closed') || now() >= String(ret.cancellable_until))
        throw error('RETURN_CANCEL_EXPIRED', 'The withdrawal window (18:00) has passed.');
      Object.assign(ret, { status: 'withdrawn', withdrawn_at: now() });
      return { data: ret };
    },
    listDeposits: ({ acc, query }) => {
      if (String(query.date_to) < String(query.date_from))
        throw error('INVALID_PARAMETER', 'date_to is before date_from.');
      const items = acc.deposits.filter(
        (d) =>
          String(d.deposited_at).slice(0, 10) >= String(query.date_from) &&
          String(d.deposited_at).slice(0, 10) <= String(query.date_to),
      );
      if (items.length === 0 && faults.has('deposits_empty_404')) throw error('NOT_FOUND', 'No deposit matches.');
      return paginate(items, query);
    },
    listInvoiceVideos: ({ acc, params }) => {
      const videos = acc.videos.get(params.invoice_no!);
      if (!videos) throw error('CAM_INVOICE_NOT_FOUND', `No video for invoice ${params.invoice_no}.`);
      return { data: videos };
    },
    listMcpTools: () => ({
      data: contract.operations
        .filter((o) => o.mcpTool)
        .map((o) => ({
          name: o.mcpTool,
          description: String((o as unknown as { summary?: string }).summary ?? o.operationId),
          area: o.area,
          operation_id: o.operationId,
          input_schema: {
            type: 'object',
            properties: Object.fromEntries(o.parameters.map((p) => [p.name, { type: 'string' }])),
          },
        })),
    }),
  };

  function optionOf(acc: Account, params: Record<string, string>) {
    productOf(acc, params.product_code!);
    const o = acc.options.get(params.product_code!)?.get(params.option_code!);
    if (!o && faults.has('option_not_found_as_product'))
      throw error('PRODUCT_NOT_FOUND', `Product ${params.product_code} was not found.`);
    if (!o) throw error('OPTION_NOT_FOUND', `Option ${params.option_code} was not found.`);
    return { data: o };
  }
  function returnOf(acc: Account, no: string) {
    const r = acc.returns.get(no);
    if (!r) throw error('NOT_FOUND', `Return ${no} was not found.`);
    return r;
  }
  function filterOrders(orders: Row[], query: Record<string, unknown>) {
    return orders.filter(
      (o) =>
        (query.order_status_code === undefined || o.order_status_code === Number(query.order_status_code)) &&
        (query.date_from === undefined || String(o.registered_date).slice(0, 10) >= String(query.date_from)) &&
        (query.updated_after === undefined || String(o.updated_at) > String(query.updated_after)),
    );
  }
  function filterUpdated(items: Row[], query: Record<string, unknown>) {
    return items.filter((i) => query.updated_after === undefined || String(i.updated_at) > String(query.updated_after));
  }

  /** Query and path values coerced by their schemas, then validated: REQUIRED_PARAMETER or INVALID_PARAMETER. */
  const readParameters = (op: OperationInfo, url: URL, pathValues: Record<string, string>) => {
    const query: Record<string, unknown> = {};
    const params: Record<string, string> = {};
    for (const p of op.parameters) {
      const raw = p.in === 'path' ? pathValues[p.name] : (url.searchParams.get(p.name) ?? undefined);
      if (raw === undefined) {
        if (p.required) throw error('REQUIRED_PARAMETER', `${p.name} is required.`);
        const def = contract.resolve(p.schema).default;
        if (def !== undefined && p.in === 'query') query[p.name] = def;
        continue;
      }
      const schema = contract.resolve(p.schema);
      let value: unknown = raw;
      if (schema.type === 'integer' || (Array.isArray(schema.enum) && typeof schema.enum[0] === 'number')) {
        value = /^-?\d+$/.test(raw) ? Number(raw) : raw;
      }
      if (
        faults.has('server_error_on_invalid_query') &&
        p.in === 'query' &&
        typeof value === 'string' &&
        schema.type === 'integer'
      ) {
        throw new HttpError(500, 'INTERNAL_ERROR', 'parseInt failed');
      }
      // Any page size of at least 1 is taken: the bound is gone, not the meaning of a size.
      const unbounded = faults.has('size_unbounded') && p.name === 'size' && typeof value === 'number' && value >= 1;
      if (!unbounded && p.schema && contract.validate(p.schema, value).length > 0)
        throw error('INVALID_PARAMETER', `${p.name} is not valid.`);
      if (p.in === 'path') params[p.name] = String(value);
      else query[p.name] = value;
    }
    return { query, params };
  };

  const readBody = async (req: IncomingMessage, op: OperationInfo): Promise<Row> => {
    if (!op.requestBody) return {};
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (err) {
      // `server_error_on_bad_json`: the parser's exception escapes as a 500 with its stack.
      if (faults.has('server_error_on_bad_json'))
        throw new HttpError(500, 'INTERNAL_ERROR', String((err as Error).stack));
      throw error('INVALID_PARAMETER', 'The body is not JSON.');
    }
    // `server_error_on_json_array`: a JSON body that is not an object is read as one and breaks.
    if (faults.has('server_error_on_json_array') && (typeof body !== 'object' || body === null || Array.isArray(body)))
      throw new HttpError(500, 'INTERNAL_ERROR', "TypeError: Cannot read properties of undefined (reading 'orders')");
    const schema = op.requestBody.schema as JsonSchema;
    const validate = contract.validator(schema);
    if (!validate(body)) {
      const errors = validate.errors ?? [];
      const onlyLimit =
        faults.has('bulk_limit_off_by_one') &&
        errors.every((e) => e.keyword === 'maxItems') &&
        Array.isArray((body as Row)[Object.keys(body as Row)[0]!]) &&
        (body as Record<string, unknown[]>)[Object.keys(body as Row)[0]!]!.length ===
          (contract.bulk(op)?.maxRows ?? 0) + 1;
      if (faults.has('invalid_example_accepted') && op.operationId === 'registerDraftOrders') return body as Row;
      if (faults.has('bulk_bad_row_registers_good_rows') && contract.bulk(op)) {
        const shape = contract.bulk(op)!;
        const rows = (body as Record<string, unknown>)[shape.rowsProperty];
        if (Array.isArray(rows)) {
          const rowValidate = contract.validator(shape.rowSchema);
          const good = rows.filter((r) => rowValidate(r));
          if (good.length > 0 && good.length < rows.length)
            return { ...(body as Row), [shape.rowsProperty]: good, __then400: true };
        }
      }
      if (!onlyLimit) {
        // A missing required item, or no item at all where one is needed (an empty update, DECISIONS.md G27).
        const missing = errors.some((e) => e.keyword === 'required' || e.keyword === 'minProperties');
        throw error(
          missing ? 'REQUIRED_PARAMETER' : 'INVALID_PARAMETER',
          `Format error at ${errors[0]?.instancePath || 'body'}: ${errors[0]?.message ?? ''}. Nothing was registered.`,
        );
      }
    }
    return body as Row;
  };

  const server = createServer(async (req, res) => {
    state.requests += 1;
    if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    const url = new URL(req.url ?? '/', 'http://fake');
    res.on('finish', () => {
      const encoding = res.getHeader('content-encoding');
      state.log.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        status: res.statusCode,
        ...(typeof encoding === 'string' ? { encoding } : {}),
      });
    });
    let op: OperationInfo | undefined;
    let meteredAccount: { used: number } | undefined;
    try {
      const hold = faults.has('gateway_throttles') ? gatewayHold(url.pathname) : 0;
      if (hold > 0) await parked(new Promise((resolve) => setTimeout(resolve, hold)));
      if (!faults.has('gateway_throttles') && !gatewayAllows(url.pathname)) {
        // `gateway_429_held`: the first refused request of a case is held for a fixed 8 s before its 429, far beyond
        // any honest answer, on a machine of any speed. A key sent to its own area marks a case's request: the
        // kit's credential check reads with a key of another area, and its answers are no case's to judge.
        const ownArea = keys.get(String(req.headers['x-api-key']))?.area === url.pathname.split('/')[2];
        if (faults.has('gateway_429_held') && !held && ownArea) {
          held = true;
          await new Promise((resolve) => setTimeout(resolve, 8000));
        }
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (faults.has('gateway_429_with_headers')) headers['X-RateLimit-Remaining'] = '0';
        writeJson(res, 429, headers, {
          success: false,
          error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests. Slow down and retry with backoff.' },
        });
        return;
      }
      let pathValues: Record<string, string> = {};
      const method = (req.method ?? 'GET').toLowerCase();
      for (const r of routes) {
        if (r.op.method !== method) continue;
        const m = r.re.exec(url.pathname);
        if (m) {
          op = r.op;
          pathValues = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
          break;
        }
      }
      if (!op) throw error('NOT_FOUND', `No route ${req.method} ${url.pathname}.`);

      // Authentication.
      let acc: Account | undefined;
      let keyArea: string | undefined;
      let viaJwt = false;
      const apiKey = req.headers['x-api-key'] as string | undefined;
      const authorization = req.headers.authorization;
      const apiKeyOp = op.security.some((s) => contract.securityScheme(s)?.type === 'apiKey');
      const bearerOp = op.security.some((s) => contract.securityScheme(s)?.type === 'http');
      // Where both are accepted (the manager area) and both are sent, the key is used (DECISIONS.md G22).
      const jwtRefused = faults.has('manager_jwt_refused') && apiKeyOp;
      if (apiKeyOp && (apiKey || !authorization || !bearerOp || jwtRefused)) {
        if (!apiKey)
          throw error(
            faults.has('missing_credential_wrong_code') ? 'AUTH_INVALID_TOKEN' : 'AUTH_MISSING_TOKEN',
            'The X-API-Key header is missing.',
          );
        // Like a mock: a key is only looked for, never looked up (nor its area checked).
        const info = faults.has('accepts_any_key')
          ? { account: primary, area: op.area, env: 'test' }
          : keys.get(apiKey);
        if (!info) throw error('AUTH_INVALID_TOKEN', 'The API key is not valid.');
        if (options.subscriptionEnded && info.env === 'live')
          throw error('AUTH_FORBIDDEN', 'The paid subscription of this account has ended.');
        // `wrong_area_key_401`: a valid key of another area answered as if it were unknown.
        if (info.area !== op.area && op.area !== 'mcp' && faults.has('wrong_area_key_401'))
          throw error('AUTH_INVALID_TOKEN', 'The API key is not valid.');
        if (info.area !== op.area && op.area !== 'mcp' && !faults.has('wrong_area_key_accepted'))
          throw error('AUTH_FORBIDDEN', `A ${info.area} key cannot be used on /v3/${op.area}/.`);
        acc = info.account;
        keyArea = info.area;
        if (info.env === 'test') meteredAccount = meterOf(apiKey, acc);
      } else if (bearerOp) {
        viaJwt = true;
        if (!authorization) {
          if (apiKey && faults.has('accepts_any_key')) acc = primary;
          else if (apiKey && faults.has('api_key_on_pay_accepted') && keys.get(apiKey)) acc = keys.get(apiKey)!.account;
          else if (apiKey) throw error('AUTH_FORBIDDEN', 'This area accepts a JWT only.');
          else throw error('AUTH_MISSING_TOKEN', 'The Authorization header is missing.');
        } else {
          const token = authorization.replace(/^Bearer\s+/i, '');
          acc = faults.has('accepts_any_key') ? primary : tokens.get(token);
          // `expired_token_accepted`: a token past its life still taken.
          if (!acc && token === expiredToken) {
            if (!faults.has('expired_token_accepted')) throw error('AUTH_EXPIRED_TOKEN', 'The token has expired.');
            acc = primary;
          }
          if (!acc) throw error('AUTH_INVALID_TOKEN', 'The token is not valid.');
        }
      }

      // Monthly quota of test keys.
      if (meteredAccount) {
        if (meteredAccount.used >= quotaLimit) {
          const reset = nextMonthReset();
          writeJson(
            res,
            429,
            {
              'Content-Type': 'application/json',
              'Retry-After': String(Math.max(0, reset - Math.floor(Date.now() / 1000))),
              'X-RateLimit-Limit': String(quotaLimit),
              'X-RateLimit-Remaining': faults.has('quota_429_remaining_nonzero') ? '3' : '0',
              'X-RateLimit-Reset': String(reset),
            },
            {
              success: false,
              error: { code: 'RATE_LIMIT_EXCEEDED', message: 'The monthly quota of the test keys is used up.' },
            },
          );
          return;
        }
        meteredAccount.used += faults.has('quota_counted_twice') ? 2 : (options.quotaPerCall ?? 1);
      }

      const { query, params } = readParameters(op, url, pathValues);
      const body = await readBody(req, op);

      if (op.operationId === 'createAccessToken') {
        const issued = [
          { c: client, acc: primary },
          { c: liveClient, acc: primaryLive },
          { c: otherClient, acc: other },
        ].find(({ c }) => body.client_id === c.id && body.client_secret === c.secret);
        if (!issued) throw error('AUTH_INVALID_TOKEN', 'The client credentials are not valid.');
        return send(res, op, 200, { success: true, data: issueToken(issued.acc) });
      }
      if (op.operationId === 'refreshAccessToken') {
        const entry = refreshTokens.get(String(body.refresh_token));
        if (!entry || entry.used) throw error('AUTH_INVALID_TOKEN', 'The refresh token is not valid.');
        entry.used = true;
        return send(res, op, 200, { success: true, data: issueToken(entry.account) });
      }
      if (op.operationId === 'callMcpTool') {
        const target = contract.operations.find((o) => o.mcpTool === params.tool_name);
        if (!target) throw error('NOT_FOUND', `No tool ${params.tool_name}.`);
        if (target.area !== keyArea) throw error('AUTH_FORBIDDEN', `A ${keyArea} key cannot call ${params.tool_name}.`);
        const args = (body.arguments ?? {}) as Record<string, unknown>;
        const inner = new URL(`http://fake${target.path}`);
        const innerPath: Record<string, string> = {};
        for (const p of target.parameters) {
          if (args[p.name] === undefined) continue;
          if (p.in === 'path') innerPath[p.name] = String(args[p.name]);
          else inner.searchParams.set(p.name, String(args[p.name]));
        }
        const parsed = readParameters(target, inner, innerPath);
        const out = handlers[target.operationId]!({ acc: acc!, params: parsed.params, query: parsed.query, body: {} });
        return send(
          res,
          op,
          200,
          {
            success: true,
            data: {
              tool: params.tool_name,
              result: out.data,
              ...(out.pagination ? { pagination: out.pagination } : {}),
            },
          },
          meteredAccount,
        );
      }

      const handler = handlers[op.operationId];
      if (!handler) throw error('NOT_FOUND', `${op.operationId} is not implemented.`);
      const then400 = body.__then400 === true;
      delete body.__then400;
      const out = handler({ acc: acc!, params, query, body, viaJwt, ...(keyArea ? { keyArea } : {}) });
      if (then400) throw error('INVALID_PARAMETER', 'A row has a format error.');
      let data = out.data;
      if (faults.has('schema_extra_field') && op.operationId === 'getWmsOrder')
        data = { ...(data as Row), internal_id: 7 };
      if (faults.has('schema_wrong_type') && op.operationId === 'getWmsOrder')
        data = { ...(data as Row), order_status_code: String((data as Row).order_status_code) };
      if (faults.has('status_undocumented') && op.operationId === 'createProduct') {
        return send(res, op, 201, { success: true, data }, meteredAccount);
      }
      const quotaOf = faults.has('quota_headers_for_jwt') && viaJwt ? acc : meteredAccount;
      send(res, op, 200, { success: true, data, ...(out.pagination ? { pagination: out.pagination } : {}) }, quotaOf);
    } catch (err) {
      if (err instanceof HttpError) {
        let { status, code } = err;
        if (faults.has('error_code_undocumented') && code === 'ORDER_NOT_FOUND') code = 'NOT_FOUND';
        if (faults.has('unknown_resource_200') && status === 404 && op?.method === 'get') {
          return send(res, op, 200, { success: true, data: {} }, meteredAccount);
        }
        const message =
          faults.has('error_message_stack') && status === 404
            ? `TypeError: Cannot read properties of undefined (reading 'code')\n    at lookup (/srv/api/dist/handlers/products.js:42:11)`
            : err.message;
        const body = {
          success: !!(faults.has('success_flag_wrong') && status === 404),
          error: { code, message },
        };
        // Quota headers belong to responses that passed authentication (not 401/403).
        return send(res, op, status, body, status === 401 || status === 403 ? undefined : meteredAccount);
      }
      writeJson(
        res,
        500,
        { 'Content-Type': 'application/json' },
        { success: false, error: { code: 'INTERNAL_ERROR', message: String(err) } },
      );
    }
  });

  const b64url = (text: string) => Buffer.from(text).toString('base64url');
  // Issued an hour before the server started, for 15 minutes: expired.
  const expiredToken = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(JSON.stringify({ sub: 'A', exp: Math.floor(Date.now() / 1000) - 2700 }))}.${randomBytes(16).toString('base64url')}`;

  function issueToken(acc: Account) {
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    const exp = Math.floor(Date.now() / 1000) + 900;
    const access = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(JSON.stringify({ sub: acc.id, exp, n: randomBytes(4).toString('hex') }))}.${randomBytes(16).toString('base64url')}`;
    const refresh = randomBytes(24).toString('base64url');
    tokens.set(access, acc);
    refreshTokens.set(refresh, { account: acc, used: false });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: 900,
      refresh_token: refresh,
      refresh_token_expires_in: 86400,
      environment: acc.env,
    };
  }

  // Idle connections stay open until close(). With Node's default (5 s) a busy machine could leave the kit more than
  // that between two requests: the fake closed the idle connection just as the kit sent a POST on it, and the kit,
  // rightly not repeating a POST, reported ECONNRESET as a connection failure of the case.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    keys: keyNames,
    liveKeys: liveKeyNames,
    client,
    liveClient,
    otherClient,
    expiredToken,
    accounts: { primary, other, primaryLive, otherLive },
    ship: (orderNo: string) => {
      const order = primary.orders.find((o) => o.order_no === orderNo);
      if (order) Object.assign(order, { order_status_code: 30, invoice_no: '600000000001', updated_at: now() });
    },
    get requests() {
      return state.requests;
    },
    log: state.log,
  };
}
