// The server a kit test runs against: the reference server in this process (one per gateway mode per test file,
// support/reference.ts), two sellers of the test's own, and the fault proxy in front (support/fault-proxy.ts) with
// the test's planted faults, benign variants and gateway. A test holds what a partner would: the proxy's address,
// the sellers' keys and client credentials, an expired token; and, to look behind the answers, the proxy's log and
// the service's own records.
import { afterAll } from 'vitest';
import type { GatewayLimit } from '@cls-api/spec';
import { Contract } from '../../src/index.js';
import {
  startFaultProxy,
  type Fault,
  type LogEntry,
  type ProxyOptions,
  type Service,
  type Variant,
} from './fault-proxy.js';
import {
  startReferenceInProcess,
  type Environment,
  type GatewayMode,
  type Owner,
  type ReferenceInProcess,
  type Sellers,
} from './reference.js';

type Who = 'primary' | 'other';

export interface ServerOptions {
  faults?: Fault[];
  variants?: Variant[];
  /**
   * The contract's gateway, none (the default: the kit's tests run unpaced), or `{ every: n }`: a gateway 429 for
   * every n-th request, whatever the clock, for tests that must see 429s on a machine of any speed.
   */
  gateway?: 'contract' | 'off' | { every: number };
  /** Limits a copy of the contract adds, held by the proxy beside the server's own. */
  gatewayLimits?: GatewayLimit[];
  /** Test-key calls each seller has used this month when the test starts. */
  quotaUsedAtStart?: number;
  /** The sellers' paid subscription has ended: live credentials are refused with 403 AUTH_FORBIDDEN (G19). */
  subscriptionEnded?: boolean;
  /** The demo data set in the primary seller's test world (default); without it the seller holds nothing. */
  demo?: boolean | 'both';
  /**
   * A server of the test's own (a new database, closed with the test): for a test that needs the service's
   * numbering as it starts, such as an order number a request example names (`holdOrder`).
   */
  own?: boolean;
  latencyMs?: ProxyOptions['latencyMs'];
  quotaPerCall?: ProxyOptions['quotaPerCall'];
  draftStatus?: ProxyOptions['draftStatus'];
  returnWindowClosed?: ProxyOptions['returnWindowClosed'];
  longerIdentifiers?: ProxyOptions['longerIdentifiers'];
  /** The reference sandbox's helpers, passed through (default: answered 404, a server without them). */
  sandbox?: ProxyOptions['sandbox'];
}

export interface TestServer {
  /** Where the kit is pointed: the proxy. */
  url: string;
  /** The server itself, for what a test does around the run (not in the proxy's log). */
  serviceUrl: string;
  keys: Record<Who, Record<string, string>>;
  /** Live keys of the same two sellers: they reach the sellers' live data, kept apart from the test data. */
  liveKeys: Record<Who, Record<string, string>>;
  client: { id: string; secret: string };
  otherClient: { id: string; secret: string };
  liveClient: { id: string; secret: string };
  /** An access token of the primary seller whose life has ended: answered 401 AUTH_EXPIRED_TOKEN. */
  expiredToken: string;
  accounts: Record<Who, string>;
  /** Requests the proxy received. */
  readonly requests: number;
  log: LogEntry[];
  readonly hits: number;
  /** The seller's test-key calls counted this month, as the service counts them. */
  used(who?: Who): Promise<number>;
  /** The owner of one seller's data in one environment, for `store`. */
  owner(who: Who, environment?: Environment): Owner;
  store: ReferenceInProcess['store'];
  ship(orderNo: string): Promise<void>;
  /** The service's clock (its `at` may be set apart from the test's). */
  clock: ReferenceInProcess['clock'];
  /** Closes the proxy; the server stays for the file's next test (unless it is the test's own). */
  close(): Promise<void>;
}

/** Faults that replace the server's gateway with the proxy's (or with none): the server then runs without its own. */
const GATEWAY_FAULTS: readonly Fault[] = [
  'no_gateway_limit',
  'gateway_burst_small',
  'gateway_rate_slow',
  'gateway_throttles',
];

/** Proxies started in this file: each names a client address of its own to the server (fresh gateway buckets). */
let proxies = 0;

/**
 * The file's reference servers, started when first needed and closed after its last test. Call once at the top of
 * a test file.
 */
export function referenceServers(): { start(options?: ServerOptions): Promise<TestServer> } {
  const started = new Map<GatewayMode, Promise<ReferenceInProcess>>();
  afterAll(async () => {
    for (const server of started.values()) await (await server).close();
  });
  const reference = (mode: GatewayMode) => {
    let server = started.get(mode);
    if (!server) {
      server = startReferenceInProcess(mode);
      started.set(mode, server);
    }
    return server;
  };

  return {
    async start(options: ServerOptions = {}) {
      const faults = options.faults ?? [];
      const contractGateway = options.gateway === 'contract' && !faults.some((f) => GATEWAY_FAULTS.includes(f));
      const mode: GatewayMode = contractGateway ? 'contract' : 'unlimited';
      const ref = options.own ? await startReferenceInProcess(mode) : await reference(mode);
      const sellers = await ref.sellers({ demo: options.demo ?? true });
      for (const seller of Object.values(sellers)) {
        if (options.quotaUsedAtStart) await ref.charge(seller.account, options.quotaUsedAtStart);
        if (options.subscriptionEnded) await ref.setPaid(seller.account, false);
      }
      const expiredToken = await expiredTokenOf(ref, sellers);
      const service: Service = {
        charge: (account, calls) => ref.charge(account, calls),
        used: (account) => ref.used(account),
        returnDeadline: async (owner, returnNo) => {
          const found = await ref.store.findReturn(owner, returnNo);
          return found ? new Date(found.cancellable_until * 1000) : undefined;
        },
        now: () => ref.clock.now(),
        pin: (at) => {
          ref.clock.pinned = at;
        },
      };
      proxies += 1;
      const proxy = await startFaultProxy(
        {
          url: ref.url,
          sellers,
          service,
          clientAddress: `10.${(proxies >> 16) & 255}.${(proxies >> 8) & 255}.${proxies & 255}`,
        },
        {
          faults,
          ...(options.variants ? { variants: options.variants } : {}),
          ...(typeof options.gateway === 'object' ? { gatewayEvery: options.gateway.every } : {}),
          ...(options.gatewayLimits ? { gatewayLimits: options.gatewayLimits } : {}),
          ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
          ...(options.quotaPerCall !== undefined ? { quotaPerCall: options.quotaPerCall } : {}),
          ...(options.draftStatus !== undefined ? { draftStatus: options.draftStatus } : {}),
          ...(options.returnWindowClosed ? { returnWindowClosed: true } : {}),
          ...(options.longerIdentifiers ? { longerIdentifiers: true } : {}),
          ...(options.sandbox ? { sandbox: true } : {}),
        },
      );
      const owner = (who: Who, environment: Environment = 'test'): Owner => ({
        accountId: sellers[who].account,
        environment,
      });
      return {
        url: proxy.url,
        serviceUrl: ref.url,
        keys: { primary: sellers.primary.keys.test, other: sellers.other.keys.test },
        liveKeys: { primary: sellers.primary.keys.live, other: sellers.other.keys.live },
        client: sellers.primary.clients.test,
        otherClient: sellers.other.clients.test,
        liveClient: sellers.primary.clients.live,
        expiredToken,
        accounts: { primary: sellers.primary.account, other: sellers.other.account },
        get requests() {
          return proxy.requests;
        },
        log: proxy.log,
        get hits() {
          return proxy.hits;
        },
        used: (who = 'primary') => ref.used(sellers[who].account),
        owner,
        store: ref.store,
        ship: (orderNo) => ref.ship(orderNo),
        clock: ref.clock,
        async close() {
          await proxy.close();
          Object.assign(ref.clock, { offsetMs: 0, at: undefined, pinned: undefined });
          if (options.own) await ref.close();
        },
      };
    },
  };
}

/** A token of the primary seller issued with the service's clock set back past a token's life: expired now. */
async function expiredTokenOf(ref: ReferenceInProcess, sellers: Sellers): Promise<string> {
  const client = sellers.primary.clients.test;
  ref.clock.offsetMs = -2 * 3600_000;
  try {
    const res = await fetch(`${ref.url}/v3/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_id: client.id, client_secret: client.secret }),
    });
    const body = (await res.json()) as { data?: { access_token?: string; expires_in?: number } };
    if (!body.data?.access_token || (body.data.expires_in ?? 0) >= 2 * 3600)
      throw new Error(`no token to let expire: ${res.status} ${JSON.stringify(body)}`);
    return body.data.access_token;
  } finally {
    ref.clock.offsetMs = 0;
  }
}

/** The kit's environment variables for a server, as a partner's CI would set them (`README.md`). */
export function kitVariables(
  server: Pick<TestServer, 'url' | 'keys' | 'client' | 'otherClient'>,
): Record<string, string> {
  return {
    CLS_BASE_URL: server.url,
    CLS_API_KEYS: Object.values(server.keys.primary).join(','),
    CLS_OTHER_API_KEYS: Object.values(server.keys.other).join(','),
    CLS_CLIENT_ID: server.client.id,
    CLS_CLIENT_SECRET: server.client.secret,
    CLS_OTHER_CLIENT_ID: server.otherClient.id,
    CLS_OTHER_CLIENT_SECRET: server.otherClient.secret,
  };
}

/**
 * A product and one order of it, registered for the primary seller through the API (two test-key calls): the order
 * number. Neither is shipped.
 */
export async function registerOrder(server: TestServer, code = 'KIT-ORDERED-01'): Promise<string> {
  const headers = { 'X-API-Key': server.keys.primary.wms!, 'Content-Type': 'application/json' };
  const product = await fetch(`${server.serviceUrl}/v3/wms/products`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      product_code: code,
      product_name: 'Ordered before the run',
      price: 1000,
      stock_quantity: 5,
    }),
  });
  if (product.status !== 200) throw new Error(`product ${code}: ${product.status} ${await product.text()}`);
  const order = await fetch(`${server.serviceUrl}/v3/wms/orders`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      orders: [
        {
          mall_order_no: `${code}-1`,
          mall_product_name: 'Ordered before the run',
          product_code: code,
          quantity: 1,
          receiver_name: 'Kim Minji',
          receiver_phone: '010-1234-5678',
          receiver_address: '12 Teheran-ro, Seoul',
        },
      ],
    }),
  });
  const body = (await order.json()) as { data?: { results?: Array<{ order_no?: string }> } };
  const orderNo = body.data?.results?.[0]?.order_no;
  if (order.status !== 200 || !orderNo) throw new Error(`order of ${code}: ${order.status} ${JSON.stringify(body)}`);
  return orderNo;
}

/**
 * Has the primary seller hold the order `ORD-YYYYMMDD-NNNN` that a request example names: orders registered on that
 * day of the service's clock until the service's own numbering reaches it. On a server of the test's own (`own`),
 * where no other seller took that day's numbers.
 */
export async function holdOrder(server: TestServer, orderNo: string): Promise<void> {
  const m = /^ORD-(\d{4})(\d{2})(\d{2})-(\d+)$/.exec(orderNo);
  if (!m) throw new Error(`${orderNo} is not a service order number`);
  const time = new Contract().time;
  const at = time.parseDateTime(`${m[1]}-${m[2]}-${m[3]} 12:00:00`)!;
  const target = Number(m[4]);
  const headers = { 'X-API-Key': server.keys.primary.wms!, 'Content-Type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.serviceUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: { results: Array<{ order_no: string }> } };
  };
  const row = (n: number) => ({
    mall_order_no: `HELD-${n}`,
    mall_product_name: 'Held for a request example',
    product_code: 'HELD-01',
    quantity: 1,
    receiver_name: 'Kim Minji',
    receiver_phone: '010-1234-5678',
    receiver_address: '12 Teheran-ro, Seoul',
  });
  server.clock.pinned = new Date(at * 1000);
  try {
    await post('/v3/wms/products', {
      product_code: 'HELD-01',
      product_name: 'Held',
      price: 1000,
      stock_quantity: target + 1,
    });
    const first = Number((await post('/v3/wms/orders', { orders: [row(0)] })).data.results[0]!.order_no.slice(-4));
    if (first > target) throw new Error(`${orderNo} is taken: the service numbered ${first} that day already`);
    if (first < target) {
      const rows = Array.from({ length: target - first }, (_, i) => row(i + 1));
      const last = (await post('/v3/wms/orders', { orders: rows })).data.results.at(-1)!.order_no;
      if (last !== orderNo) throw new Error(`the service numbered ${last}, not ${orderNo}`);
    }
  } finally {
    server.clock.pinned = undefined;
  }
}
