// The reference server (apps/reference) in the test's own process: `runCli(['serve'])`, the command its bin runs, on
// a temporary SQLite file, with a clock the test holds. In-process, because its clock is then the test's: under the
// virtual clock (virtual-time.ts) the gateway's buckets refill by the same Date the kit paces by, whatever the
// machine's speed; a test can pin the service time, or set it apart from the kit's. Sellers are provisioned, their
// demo data loaded and their monthly usage read through the running server's own stores, so each test gets sellers
// of its own in milliseconds instead of one server each.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseUrlOf, runCli, type CliIo } from '@cls-api/reference';
import { monthKey } from '@cls-api/spec';
import { Contract } from '../../src/index.js';

type App = Parameters<NonNullable<CliIo['onServe']>>[0];
type Area = 'wms' | 'manager' | 'cam';
export type Environment = 'test' | 'live';

const AREAS: readonly Area[] = ['wms', 'manager', 'cam'];

/**
 * `contract`: the contract's gateway limits. `unlimited`: limits far above anything a test sends, for a server whose
 * gateway a test does not exercise (the kit's tests run unpaced) or replaces (a planted gateway, fault-proxy.ts).
 */
export type GatewayMode = 'contract' | 'unlimited';

export interface Seller {
  account: string;
  keys: Record<Environment, Record<Area, string>>;
  clients: Record<Environment, { id: string; secret: string }>;
}

export interface Sellers {
  primary: Seller;
  other: Seller;
}

export interface Owner {
  accountId: string;
  environment: Environment;
}

export interface ServerClock {
  offsetMs: number;
  at: (() => Date) | undefined;
  pinned: Date | undefined;
  now: () => Date;
}

export interface ReferenceInProcess {
  /** The server's own address: a test reaches it through the fault proxy, which forwards here. */
  url: string;
  gateway: GatewayMode;
  /**
   * The server's clock, read once per request: the test's Date (the virtual one when a test fakes it) moved by
   * `offsetMs`, or `at` when a test sets it, or `pinned` while a fault holds it.
   */
  clock: ServerClock;
  /**
   * Two sellers of this test: the primary with the demo data set's rich set in its test world (unless `demo: false`),
   * the other with nothing; test and live keys of every area and client credentials of both environments each.
   * Their live worlds are empty.
   */
  /** `demo: 'both'`: the other seller holds its small demo set too, which shares a product code with the rich one. */
  sellers(options?: { demo?: boolean | 'both' }): Promise<Sellers>;
  /** Test-key calls counted this month (the service's own counter, read without a call). */
  used(account: string): Promise<number>;
  /** Counts `calls` more test-key calls this month (negative: gives them back, as the service does for a 500). */
  charge(account: string, calls: number): Promise<void>;
  /** The paid subscription on or off (live keys need it, DECISIONS.md G19). */
  setPaid(account: string, paid: boolean): Promise<void>;
  /** Hands an order to the carrier (status 30, an invoice, its packing video), as `admin order ship` does. */
  ship(orderNo: string): Promise<void>;
  /** The owner's data as the server stores it, read without a call (no quota, nothing in a log). */
  store: ReadStore;
  close(): Promise<void>;
}

type ReadStore = App['storage']['domain'];

const HUGE = '1000000000';

/** Starts the server, listening on a loopback port of its own. */
export async function startReferenceInProcess(gateway: GatewayMode = 'unlimited'): Promise<ReferenceInProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'cls-reference-'));
  const contract = new Contract();
  const env: Record<string, string> = {
    DATABASE: join(dir, 'reference.db'),
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    // The kit may sit idle longer than the default 5 s on a busy machine; a POST sent on a connection the server is
    // just closing is an ECONNRESET the kit rightly does not repeat.
    KEEP_ALIVE_TIMEOUT_MS: '600000',
    // The fault proxy names a client address of its own per test (X-Forwarded-For): each test meets fresh gateway
    // buckets, whatever earlier tests (on another virtual clock) left in theirs.
    TRUSTED_PROXIES: '127.0.0.1',
  };
  if (gateway === 'unlimited')
    for (const limit of contract.limits.gateway) {
      const setting = limit.name === 'gateway' ? 'GATEWAY' : limit.name.replace(/^gateway_/, '').toUpperCase();
      env[`${setting}_RATE_PER_SECOND`] = HUGE;
      env[`${setting}_BURST`] = HUGE;
    }

  const clock: ServerClock = {
    offsetMs: 0,
    at: undefined,
    pinned: undefined,
    now: () => clock.pinned ?? clock.at?.() ?? new Date(Date.now() + clock.offsetMs),
  };
  let app: App | undefined;
  const errors: string[] = [];
  const code = await runCli(['serve', '--json'], {
    env,
    stdout: () => undefined,
    stderr: (text) => errors.push(text),
    clock: () => clock.now(),
    handleSignals: false,
    onServe: (served) => {
      app = served;
    },
  });
  if (code !== 0 || !app) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`cls-reference serve failed (${code}): ${errors.join('\n')}`);
  }
  const server = app;
  const url = baseUrlOf(server);
  const month = () => monthKey(clock.now(), contract.time.timeZone);

  const seller = async (name: string): Promise<Seller> => {
    const now = clock.now();
    const { account_id: account } = await server.accounts.createAccount({ name, paid: true, link: AREAS }, now);
    const keys = { test: {}, live: {} } as Seller['keys'];
    const clients = {} as Seller['clients'];
    for (const environment of ['test', 'live'] as const) {
      for (const area of AREAS)
        keys[environment][area] = (await server.accounts.createApiKey(account, area, environment, now)).api_key;
      const client = await server.accounts.createClient(account, environment, now);
      clients[environment] = { id: client.client_id, secret: client.client_secret };
    }
    return { account, keys, clients };
  };

  return {
    url,
    gateway,
    clock,
    async sellers({ demo = true } = {}) {
      const primary = await seller('Contract kit seller');
      const other = await seller('Contract kit other seller');
      // The primary seller's test world only: the other seller's small set shares a product code with the rich one
      // (on purpose), and a --read-only run reads the seller's own codes with the other seller's credential.
      if (demo)
        await server.domain.seedDemo({
          owners: [
            { accountId: primary.account, environment: 'test' },
            ...(demo === 'both' ? [{ accountId: other.account, environment: 'test' as const }] : []),
          ],
          now: clock.now(),
        });
      return { primary, other };
    },
    used: (account) => server.usageCounters.usage(account, month(), 'test'),
    async charge(account, calls) {
      if (calls > 0) await server.usageCounters.addUsage(account, month(), 'test', calls);
      for (let i = 0; i < -calls; i++) await server.usageCounters.returnTestCall(account, month());
    },
    async setPaid(account, paid) {
      await server.accounts.setPaid(account, paid);
    },
    async ship(orderNo) {
      await server.domain.shipOrder(null, orderNo, clock.now());
    },
    store: server.storage.domain,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
