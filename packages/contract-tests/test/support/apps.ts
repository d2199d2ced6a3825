// The repository's own servers, driven through their public interfaces: the reference server through its CLI
// (`serve --json` on an ephemeral port with a temporary SQLite file, `admin … --json` to operate it) and its store
// (`@cls-api/reference/store`, to provision sellers before it starts), the mock through `startMock`. Both are
// devDependencies of this package, reached only through their exports.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Upstream } from './fault-proxy.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

/** Where an export of a package lies, or undefined when it does not resolve (the package absent or not built). */
function located(specifier: string): string | undefined {
  try {
    const file = require.resolve(specifier);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** The reference server's CLI (`cls-reference`), exported as `@cls-api/reference/cli`. */
export const referenceCli = '@cls-api/reference/cli';
/** The mock's entry (`startMock`), exported as `@cls-api/mock`. */
export const mockEntry = '@cls-api/mock';
/** The mock's command (`pnpm mock`), exported as `@cls-api/mock/cli`. */
export const mockCli = '@cls-api/mock/cli';

/** Why an app cannot be used: not installed beside this package (skip), or installed but not built (fail). */
export function appState(specifier: string): 'absent' | 'unbuilt' | 'ready' {
  const name = specifier.split('/').slice(0, 2).join('/');
  if (located(`${name}/package.json`) === undefined) return 'absent';
  return located(specifier) === undefined ? 'unbuilt' : 'ready';
}

/** The file of `specifier`'s export, for a command line: it must be built (appState is 'ready'). */
function fileOf(specifier: string): string {
  const file = located(specifier);
  if (file === undefined) throw new Error(`${specifier} does not resolve: build it first`);
  return file;
}

/** Two sellers of a reference server, each with test keys of every area. */
export interface SellerPair {
  keys: { primary: Record<string, string>; other: Record<string, string> };
  accounts: { primary: string; other: string };
  client: { id: string; secret: string };
  otherClient: { id: string; secret: string };
}

/** The server and its first pair of sellers; `pairs` holds every pair asked for, the first included. */
export interface ReferenceServer extends SellerPair {
  url: string;
  database: string;
  /** The serving process. */
  pid: number;
  pairs: SellerPair[];
  /**
   * Whether the serving process still runs (on the first line), its Node.js and the last of what it printed: for the
   * message of a failed test.
   */
  state: () => string;
  /** Runs `cls-reference admin … --json` on the server's database, in a process of its own. */
  admin: (args: string[]) => Promise<Record<string, unknown>>;
  stop: () => Promise<void>;
}

export interface ReferenceOptions {
  /**
   * Pairs of sellers to provision (default 1): runs that overlap each need their own, as each spends its sellers'
   * monthly quota and lists what they hold.
   */
  sellerPairs?: number;
  /** The Node.js that runs the server and its admin commands (default: this process's). */
  node?: string;
  /** Its `DATABASE`: a `postgres://…` URL (default: a SQLite file in a temporary folder). */
  database?: string;
}

/** The areas of each seller's test keys: every area, so that another seller's read is asked on each. */
const AREAS = ['wms', 'manager', 'cam'] as const;

/**
 * How long opening a PostgreSQL connection may take, here and in the servers started here: as long as a test's own
 * limit. With three Node.js runtimes installing and four starting beside other suites, opening one took over the
 * server's 10 s default (DB_CONNECT_TIMEOUT_MS) in CI.
 */
const CONNECT_TIMEOUT_MS = 600_000;

/**
 * Provisions the sellers in the server's database before it starts, through its store as `admin account create`,
 * `key create` and `client create` do: a pair in milliseconds, where those commands take a Node process each (nine
 * a pair, seconds of a core).
 */
async function provision(database: string, pairs: number): Promise<SellerPair[]> {
  const { openStorage, parseDatabaseTarget } = await import('@cls-api/reference/store');
  const storage = await openStorage(parseDatabaseTarget(database), { connectTimeoutMs: CONNECT_TIMEOUT_MS });
  try {
    const { accounts } = storage;
    const seller = async (name: string, areas: readonly ('wms' | 'manager' | 'cam')[]) => {
      const now = new Date();
      // Linked to every area, as `admin account create` without --link does.
      const { account_id: account } = await accounts.createAccount({ name, paid: false, link: AREAS }, now);
      const keys: Record<string, string> = {};
      for (const area of areas) keys[area] = (await accounts.createApiKey(account, area, 'test', now)).api_key;
      const client = await accounts.createClient(account, 'test', now);
      return { account, keys, client: { id: client.client_id, secret: client.client_secret } };
    };
    const out: SellerPair[] = [];
    for (let i = 0; i < pairs; i++) {
      const suffix = i === 0 ? '' : ` ${i + 1}`;
      const primary = await seller(`Contract kit seller${suffix}`, AREAS);
      const other = await seller(`Contract kit other seller${suffix}`, AREAS);
      out.push({
        keys: { primary: primary.keys, other: other.keys },
        accounts: { primary: primary.account, other: other.account },
        client: primary.client,
        otherClient: other.client,
      });
    }
    return out;
  } finally {
    await storage.close();
  }
}

/** How much of what a reference server printed is kept for a failure's message: its last characters. */
const PRINTED_KEPT = 8_000;

export async function startReference(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cls-reference-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    DATABASE: options.database ?? join(dir, 'reference.db'),
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    // Idle connections stay open for the run: with the default 5 s a busy machine can leave the kit idle that long,
    // and a POST sent on a connection the server is just closing is an ECONNRESET the kit rightly does not repeat.
    KEEP_ALIVE_TIMEOUT_MS: '600000',
    DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
  };
  const cli = fileOf(referenceCli);
  const node = options.node ?? process.execPath;
  // Asynchronous: overlapping runs in this process keep going while a command runs.
  const admin = (args: string[]): Promise<Record<string, unknown>> =>
    new Promise((done, fail) => {
      const command = spawn(node, [cli, 'admin', ...args, '--json'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      command.stdout.on('data', (d) => (out += d));
      command.stderr.on('data', (d) => (err += d));
      command.on('error', fail);
      command.on('close', (code) => {
        if (code !== 0) fail(new Error(`cls-reference admin ${args.join(' ')} failed (${code}): ${err}`));
        else done(JSON.parse(out) as Record<string, unknown>);
      });
    });
  const pairs = await provision(env.DATABASE, options.sellerPairs ?? 1);

  const child: ChildProcess = spawn(node, [cli, 'serve', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // What it prints for as long as it runs, its last lines kept: a crash's stack goes to stderr whatever LOG_LEVEL says.
  let printed = '';
  const keep = (d: Buffer) => {
    printed = (printed + d.toString('utf8')).slice(-PRINTED_KEPT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    // Until it prints its address or exits: the calling hook's limit is the safety net, not a guess at its speed.
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"base_url"'));
      if (line) {
        done(String((JSON.parse(line) as { base_url: string }).base_url));
      }
    });
    child.on('exit', (code) => fail(new Error(`the reference server exited (${code}): ${printed}`)));
  });
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  // Its first line short, for a failure's one-line summary; the rest on the lines after.
  const state = () =>
    [
      `the reference server (pid ${child.pid}) ${ended() ? `has exited (${child.exitCode ?? child.signalCode})` : 'still runs'}`,
      `its Node.js: ${node}`,
      `it printed: ${printed.trim() || 'nothing'}`,
    ].join('\n');
  return {
    url,
    database: env.DATABASE,
    pid: child.pid!,
    ...pairs[0]!,
    pairs,
    admin,
    state,
    stop: async () => {
      await new Promise<void>((done) => {
        // A server killed by a signal has no exit code, only the signal.
        if (ended()) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A shipped order for the shipped-order rule (and the Arazzo workflow that looks for one): a product and an order
 * through the API, shipped by the operator. Made again after each run whose sandbox reset emptied the account.
 */
export async function shipAnOrder(server: ReferenceServer): Promise<void> {
  const headers = { 'X-API-Key': server.keys.primary.wms!, 'Content-Type': 'application/json' };
  // A request that gets no answer at all names what became of the server: fetch's own error says only "fetch failed"
  // (why is in its cause, which the failure's summary line adds), and the server, started silent, may have printed a
  // crash.
  const post = async (path: string, body: unknown): Promise<Response> => {
    try {
      return await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    } catch (err) {
      throw new Error(`POST ${path} for a shipped order got no answer; ${server.state()}`, { cause: err });
    }
  };
  const product = await post('/v3/wms/products', {
    product_code: 'KIT-SHIPPED-01',
    product_name: 'Shipped order product',
    price: 1000,
    stock_quantity: 5,
  });
  if (product.status !== 200)
    throw new Error(`the product for a shipped order: ${product.status} ${await product.text()}`);
  const order = await post('/v3/wms/orders', {
    orders: [
      {
        mall_order_no: 'KIT-SHIPPED-1',
        mall_product_name: 'Shipped order product',
        product_code: 'KIT-SHIPPED-01',
        quantity: 1,
        receiver_name: 'Kim Minji',
        receiver_phone: '010-1234-5678',
        receiver_address: '12 Teheran-ro, Seoul',
      },
    ],
  });
  const orderNo = ((await order.json()) as { data: { results: Array<{ order_no: string }> } }).data.results[0]!
    .order_no;
  await server.admin(['order', 'ship', orderNo]);
}

/** The kit's credentials for a reference server: a pair of sellers' keys and client credentials (the first pair). */
export function sellersOf(server: ReferenceServer, pair: SellerPair = server) {
  return {
    baseUrl: server.url,
    apiKeys: Object.values(pair.keys.primary),
    otherApiKeys: Object.values(pair.keys.other),
    clientId: pair.client.id,
    clientSecret: pair.client.secret,
    otherClientId: pair.otherClient.id,
    otherClientSecret: pair.otherClient.secret,
  };
}

/**
 * The reference server as the fault proxy reaches it: a pair of sellers' accounts, test keys and clients (the first
 * pair), and the loopback address the proxy connects from, if one of its own (`Upstream.sourceAddress`).
 */
export function upstreamOf(server: ReferenceServer, pair: SellerPair = server, sourceAddress?: string): Upstream {
  const seller = (who: 'primary' | 'other') => ({
    account: pair.accounts[who],
    keys: { test: pair.keys[who] },
    clients: { test: who === 'primary' ? pair.client : pair.otherClient },
  });
  return {
    url: server.url,
    sellers: { primary: seller('primary'), other: seller('other') },
    ...(sourceAddress ? { sourceAddress } : {}),
  };
}

export interface MockServer {
  url: string;
  close: () => Promise<void>;
}

/** The mock served by its command on `node`, as `pnpm mock` serves it; `prism` is the Prism process it started. */
export interface MockProcess extends MockServer {
  pid: number;
  prism: number;
}

export async function startMockProcess(node: string, port: number): Promise<MockProcess> {
  const child = spawn(node, [fileOf(mockCli), '--quiet'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const { url, prism } = await new Promise<{ url: string; prism: number }>((done, fail) => {
    let err = '';
    // Until it says where it listens or exits: the calling test's limit is the safety net.
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const listening = /Mock listening on (\S+)/.exec(out);
      const spawned = /Prism \(process (\d+)\)/.exec(out);
      if (listening && spawned) done({ url: listening[1]!, prism: Number(spawned[1]) });
    });
    child.on('exit', (code) => fail(new Error(`the mock exited (${code}): ${out}${err}`)));
  });
  return {
    url,
    pid: child.pid!,
    prism,
    close: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      const code = await exited;
      if (code !== 0) throw new Error(`the mock exited ${code} on Ctrl-C: ${out}`);
    },
  };
}

export async function startMockServer(): Promise<MockServer> {
  const { startMock } = await import('@cls-api/mock');
  return startMock({ port: 0 });
}
