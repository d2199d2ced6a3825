import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { openDatabase } from '../../src/store/db.js';
import { startTestServer, TEST_JWT_SECRET, type TestServer } from '../support/server.js';

let dir: string;
let env: Record<string, string>;
let server: TestServer | undefined;
let served: FastifyInstance | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cls-reference-cli-'));
  env = { DATABASE: join(dir, 'data', 'reference.db'), LOG_LEVEL: 'silent', JWT_SECRET: TEST_JWT_SECRET };
});
afterEach(async () => {
  await server?.close();
  await served?.close();
  server = undefined;
  served = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string; json: any }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    env,
    stdout: (t) => (out += `${t}\n`),
    stderr: (t) => (err += `${t}\n`),
    handleSignals: false,
    onServe: (app) => (served = app),
  });
  let json: unknown;
  try {
    json = JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { code, out, err, json };
}

/** A server on the CLI's database file. */
async function serve(): Promise<TestServer> {
  const { DATABASE, ...rest } = env;
  server = await startTestServer({ db: openDatabase(DATABASE!), closeDb: true, env: rest });
  return server;
}

describe('admin commands with --json', () => {
  it('provision an account, keys and client credentials that work against the server', async () => {
    const account = await cli('admin', 'account', 'create', '--name', 'Acme Trading', '--json');
    expect(account.code).toBe(0);
    expect(account.json).toEqual({
      account_id: expect.stringMatching(/^acc_/),
      name: 'Acme Trading',
      paid: false,
      linked_areas: ['cam', 'manager', 'wms'],
    });
    const id = account.json.account_id as string;

    const key = await cli('admin', 'key', 'create', '--account', id, '--area', 'wms', '--env', 'test', '--json');
    expect(key.code).toBe(0);
    expect(key.json).toEqual({
      account_id: id,
      area: 'wms',
      env: 'test',
      api_key: expect.stringMatching(/^wms_test_[A-Za-z0-9]{32}$/),
    });

    const live = await cli('admin', 'key', 'create', '--account', id, '--area', 'wms', '--env', 'live', '--json');
    expect(live.code).toBe(1);
    expect(JSON.parse(live.err)).toEqual({ error: { message: expect.stringContaining('paid subscription') } });

    const client = await cli('admin', 'client', 'create', '--account', id, '--json');
    expect(client.json).toEqual({
      account_id: id,
      env: 'test',
      client_id: expect.stringMatching(/^cli_test_[A-Za-z0-9]{20}$/),
      client_secret: expect.stringMatching(/^sec_/),
    });
    // Live client credentials, like live keys, need the paid subscription (DECISIONS G21).
    const liveClient = await cli('admin', 'client', 'create', '--account', id, '--env', 'live', '--json');
    expect(liveClient.code).toBe(1);
    expect(JSON.parse(liveClient.err)).toEqual({ error: { message: expect.stringContaining('paid subscription') } });
    expect((await cli('admin', 'client', 'create', '--account', id, '--env', 'staging')).code).toBe(2);

    const s = await serve();
    expect((await s.get('/v3/wms/suppliers', { apiKey: key.json.api_key })).status).toBe(200);
    const token = await s.post('/v3/auth/token', {
      client_id: client.json.client_id,
      client_secret: client.json.client_secret,
    });
    expect(token.status).toBe(200);
    expect(token.body.data.environment).toBe('test');
  });

  it('client create --env live issues live client credentials for a paid account; their token reaches live data', async () => {
    const id = (await cli('admin', 'account', 'create', '--name', 'Paid shop', '--paid', '--json')).json
      .account_id as string;
    const live = await cli('admin', 'client', 'create', '--account', id, '--env', 'live', '--json');
    expect(live.json).toEqual({
      account_id: id,
      env: 'live',
      client_id: expect.stringMatching(/^cli_live_[A-Za-z0-9]{20}$/),
      client_secret: expect.stringMatching(/^sec_/),
    });
    const liveKey = (await cli('admin', 'key', 'create', '--account', id, '--area', 'wms', '--env', 'live', '--json'))
      .json.api_key as string;
    const s = await serve();
    await s.post(
      '/v3/wms/products',
      { product_code: 'LIVE-1', product_name: 'Live product', price: 1000 },
      { apiKey: liveKey },
    );
    const token = await s.post('/v3/auth/token', {
      client_id: live.json.client_id,
      client_secret: live.json.client_secret,
    });
    expect(token.body.data.environment).toBe('live');
    const products = await s.get('/v3/manager/products', { bearer: token.body.data.access_token });
    expect(products.body.data.map((p: { product_code: string }) => p.product_code)).toEqual(['LIVE-1']);
  });

  it('account update --paid enables live keys; --unpaid makes them 403', async () => {
    const id = (await cli('admin', 'account', 'create', '--name', 'Shop', '--json')).json.account_id as string;
    expect((await cli('admin', 'account', 'update', '--account', id, '--paid', '--json')).json.paid).toBe(true);
    const live = (await cli('admin', 'key', 'create', '--account', id, '--area', 'manager', '--env', 'live', '--json'))
      .json.api_key as string;
    expect(live).toMatch(/^manager_live_/);
    expect((await cli('admin', 'account', 'update', '--account', id, '--unpaid', '--json')).json.paid).toBe(false);
    const s = await serve();
    expect((await s.get('/v3/manager/orders', { apiKey: live })).status).toBe(403);
  });

  it("a key needs the area's linked service account", async () => {
    const id = (await cli('admin', 'account', 'create', '--name', 'Cam only', '--link', 'cam', '--json')).json
      .account_id as string;
    expect((await cli('admin', 'key', 'create', '--account', id, '--area', 'wms', '--env', 'test')).code).toBe(1);
    expect(
      (await cli('admin', 'account', 'link', '--account', id, '--area', 'wms', '--json')).json.linked_areas,
    ).toEqual(['cam', 'wms']);
    expect((await cli('admin', 'key', 'create', '--account', id, '--area', 'wms', '--env', 'test')).code).toBe(0);
  });

  it('quota reset gives back the allowance', async () => {
    const id = (await cli('admin', 'account', 'create', '--name', 'Q', '--json')).json.account_id as string;
    const key = (await cli('admin', 'key', 'create', '--account', id, '--area', 'cam', '--env', 'test', '--json')).json
      .api_key as string;
    env.TEST_KEY_MONTHLY_QUOTA = '1';
    const s = await serve();
    await s.get('/v3/cam/invoices/600000000001/videos', { apiKey: key });
    expect((await s.get('/v3/cam/invoices/600000000001/videos', { apiKey: key })).status).toBe(429);
    const reset = await cli('admin', 'quota', 'reset', '--account', id, '--json');
    expect(reset.json).toMatchObject({ account_id: id, limit: 1, remaining: 1 });
    expect((await s.get('/v3/cam/invoices/600000000001/videos', { apiKey: key })).status).not.toBe(429);
  });

  it('account list shows every account, its linked areas and the hints of its active keys (never a whole key)', async () => {
    expect((await cli('admin', 'account', 'list')).out).toContain('No accounts.');
    const a = (await cli('admin', 'account', 'create', '--name', 'Acme Trading', '--paid', '--json')).json
      .account_id as string;
    const b = (await cli('admin', 'account', 'create', '--name', 'Cam only', '--link', 'cam', '--json')).json
      .account_id as string;
    const key = (await cli('admin', 'key', 'create', '--account', a, '--area', 'wms', '--env', 'live', '--json')).json
      .api_key as string;
    const revoked = (await cli('admin', 'key', 'create', '--account', b, '--area', 'cam', '--env', 'test', '--json'))
      .json.api_key as string;
    await cli('admin', 'key', 'revoke', '--key', revoked);
    const listed = await cli('admin', 'account', 'list', '--json');
    expect(listed.code).toBe(0);
    // Oldest first; two made in the same second may come in either order.
    const byId = [...listed.json.accounts].sort(
      (x: { account_id: string }, y: { account_id: string }) =>
        [a, b].indexOf(x.account_id) - [a, b].indexOf(y.account_id),
    );
    expect(byId).toEqual([
      expect.objectContaining({
        account_id: a,
        name: 'Acme Trading',
        paid: true,
        linked_areas: ['cam', 'manager', 'wms'],
        api_keys: [expect.objectContaining({ area: 'wms', env: 'live', key_hint: expect.any(String) })],
      }),
      expect.objectContaining({ account_id: b, paid: false, linked_areas: ['cam'], api_keys: [] }),
    ]);
    expect(key.startsWith(byId[0].api_keys[0].key_hint)).toBe(true);
    const text = (await cli('admin', 'account', 'list')).out;
    expect(text).toContain(`${a}  Acme Trading  paid`);
    expect(text).not.toContain(key);
  });

  it('usage errors exit 2 with the usage text; unknown accounts exit 1', async () => {
    expect((await cli('admin', 'key', 'create', '--account', 'acc_x', '--area', 'pay', '--env', 'test')).code).toBe(2);
    expect((await cli('admin', 'frobnicate')).code).toBe(2);
    expect((await cli('admin', 'account', 'create', '--name', 'x', '--bogus')).code).toBe(2);
    // An unknown option is named in one line, before the usage, without Node's advice on positionals.
    const bogus = await cli('--bogus');
    expect(bogus.code).toBe(2);
    expect(bogus.err.split('\n\n')[0]).toBe("cls-reference: Unknown option '--bogus'");
    expect((await cli('nothing')).err).toContain('Usage: cls-reference');
    // No command at all is a usage error; asking for help is not.
    const none = await cli();
    expect([none.code, none.out]).toEqual([2, '']);
    expect(none.err).toContain('Usage: cls-reference');
    for (const flag of ['--help', '-h']) {
      const help = await cli(flag);
      expect([help.code, help.err]).toEqual([0, '']);
      expect(help.out).toMatch(/^Usage: cls-reference /);
    }
    expect((await cli('admin', 'client', 'create', '--account', 'acc_missing', '--json')).code).toBe(1);
  });

  it('invalid configuration exits 2 with the problems', async () => {
    env.SERVICE_TIME_ZONE = 'Nowhere/Never';
    const r = await cli('admin', 'account', 'create', '--name', 'x');
    expect(r.code).toBe(2);
    expect(r.err).toContain('SERVICE_TIME_ZONE');
  });
});

describe('seed and the demo', () => {
  it('seed loads the demo data into an empty database and prints working keys; a second seed is refused', async () => {
    const seed = await cli('seed', '--json');
    expect(seed.code).toBe(0);
    const accounts = seed.json.accounts as Array<{
      account_id: string;
      api_keys: Array<{ area: string; env: string; api_key: string }>;
      client_id: string;
      client_secret: string;
      order_nos?: string[];
    }>;
    expect(accounts.length).toBeGreaterThanOrEqual(2);
    const s = await serve();
    for (const a of accounts) {
      for (const k of a.api_keys) {
        const path =
          k.area === 'wms' ? '/v3/wms/orders' : k.area === 'manager' ? '/v3/manager/orders' : '/v3/mcp/tools';
        const r = await s.get(path, { apiKey: k.api_key });
        expect(r.status, `${k.area} ${k.env}`).toBe(200);
      }
      expect((await s.post('/v3/auth/token', { client_id: a.client_id, client_secret: a.client_secret })).status).toBe(
        200,
      );
    }
    const orders = await s.get('/v3/manager/orders', {
      apiKey: accounts[0]!.api_keys.find((k) => k.area === 'manager')!.api_key,
    });
    expect(orders.body.data.length).toBeGreaterThan(0);

    // Test and live are separate data (DECISIONS G20): both worlds of the paid seller are seeded, each with its own
    // records, and every printed client reaches its own world.
    const paid = seed.json.accounts.find((a: { paid: boolean }) => a.paid);
    const managerKey = (env: string) =>
      paid.api_keys.find((k: { area: string; env: string }) => k.area === 'manager' && k.env === env).api_key as string;
    const listed: Record<string, string[]> = {};
    for (const env of ['test', 'live']) {
      const r = await s.get('/v3/manager/orders?size=100', { apiKey: managerKey(env) });
      listed[env] = r.body.data.map((o: { order_no: string }) => o.order_no).sort();
      expect(listed[env]).toEqual([...paid.environments[env].order_nos].sort());
    }
    expect(listed.test!.length).toBeGreaterThan(0);
    expect(listed.live!.filter((n) => listed.test!.includes(n))).toEqual([]);
    expect(paid.clients.map((c: { env: string }) => c.env)).toEqual(['test', 'live']);
    for (const c of paid.clients as Array<{ env: string; client_id: string; client_secret: string }>) {
      const token = await s.post('/v3/auth/token', { client_id: c.client_id, client_secret: c.client_secret });
      expect(token.body.data.environment).toBe(c.env);
      const viaJwt = await s.get('/v3/manager/orders?size=100', { bearer: token.body.data.access_token });
      expect(viaJwt.body.data.map((o: { order_no: string }) => o.order_no).sort()).toEqual(listed[c.env]);
    }
    await server!.close();
    server = undefined;

    const again = await cli('seed', '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.err).error).toEqual({
      code: 'DATABASE_NOT_EMPTY',
      message: expect.stringMatching(/empty database/),
    });
  });

  it('admin order ship marks an order shipped with an invoice number; it can no longer be modified', async () => {
    const seed = (await cli('seed', '--json')).json;
    const first = seed.accounts[0];
    const wms = first.api_keys.find((k: { area: string; env: string }) => k.area === 'wms' && k.env === 'test')
      .api_key as string;
    let s = await serve();
    const open = (await s.get('/v3/wms/orders?order_status_code=10', { apiKey: wms })).body.data[0];
    expect(open).toBeDefined();
    // A test order ships at its account's test clock (the sandbox's), like every write of test data.
    const moved = await s.request('PUT', '/sandbox/clock', {
      apiKey: wms,
      body: { at: '2030-01-02 03:04:05', frozen: true },
    });
    expect(moved.status).toBe(200);
    await server!.close();
    server = undefined;

    const shipped = await cli('admin', 'order', 'ship', open.order_no, '--json');
    expect(shipped.code).toBe(0);
    expect(shipped.json).toEqual({ order_no: open.order_no, invoice_no: expect.stringMatching(/^\d{6,20}$/) });
    s = await serve();
    const order = (await s.get(`/v3/wms/orders/${open.order_no}`, { apiKey: wms })).body.data;
    expect(order).toMatchObject({
      order_status_code: 30,
      invoice_no: shipped.json.invoice_no,
      updated_at: '2030-01-02 03:04:05',
    });
    const patch = await s.request('PATCH', `/v3/wms/orders/${open.order_no}`, {
      apiKey: wms,
      body: { memo: 'late change' },
    });
    expect([patch.status, patch.body.error.code]).toEqual([409, 'ORDER_ALREADY_SHIPPED']);
    expect((await cli('admin', 'order', 'ship', 'NO-SUCH-ORDER')).code).toBe(1);
  });

  it('serve on a port another server holds is one line naming the port and the setting that moves it, exit 1', async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    try {
      const port = (holder.address() as AddressInfo).port;
      env.PORT = String(port);
      const r = await cli('serve');
      expect(r.code).toBe(1);
      expect(r.err).toBe(
        `error: 127.0.0.1:${port} is in use: stop what holds it, or set PORT to another port (0 picks a free one)\n`,
      );
    } finally {
      await new Promise((done) => holder.close(done));
    }
  });

  it('serve --demo loads the demo into an empty database, listens, and prints a working curl line', async () => {
    env.PORT = '0';
    const r = await cli('serve', '--demo');
    expect(r.code).toBe(0);
    const curl = /curl -sS "(http:\/\/127\.0\.0\.1:\d+)(\/v3\/manager\/orders[^"]*)" -H "X-API-Key: ([^"]+)"/.exec(
      r.out,
    );
    expect(curl, r.out).not.toBeNull();
    const [, base, path, key] = curl!;
    const res = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key! } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { success: boolean; data: unknown[] };
    expect(body.success).toBe(true);
    expect(body.data.length).toBeGreaterThan(0);
    await served!.close();
    served = undefined;

    // The credentials are kept where `pnpm start` finds them: demo-keys.json beside the database.
    const keysFile = join(dir, 'data', 'demo-keys.json');
    expect(r.out).toContain(`kept in ${keysFile}`);
    const keptKeys = JSON.parse(readFileSync(keysFile, 'utf8')) as { accounts: Array<{ account_id: string }> };
    expect(r.out).toContain(keptKeys.accounts[0]!.account_id);

    // Run again on the same (now not empty) database: it serves without loading anything, and shows them again.
    const again = await cli('serve', '--demo', '--json');
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({
      base_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      demo_loaded: false,
      accounts: keptKeys.accounts,
      demo_keys_file: keysFile,
    });
    await served!.close();
    served = undefined;
    const text = await cli('serve', '--demo');
    expect(text.out).toContain('The demo data is already loaded.');
    expect(text.out).toContain(`X-API-Key: ${key}`);
  });

  it('serve --demo on a database with other accounts and no kept credentials names commands a repository user can run', async () => {
    await cli('admin', 'account', 'create', '--name', 'Someone');
    env.PORT = '0';
    const r = await cli('serve', '--demo');
    expect(r.out).toContain('no demo credentials are kept for it');
    expect(r.out).toContain('pnpm reference admin account list');
    expect(r.out).toContain('pnpm reference admin key create --account ID --area wms --env test');
    expect(r.out).not.toContain('cls-reference admin');
  });

  it('DATA_DIR holds the demo credentials when set; a PostgreSQL URL gets a file of its own', async () => {
    const { demoKeysPath } = await import('../../src/demo-keys.js');
    expect(demoKeysPath({ DATABASE: '/srv/db/reference.db' })).toBe('/srv/db/demo-keys.json');
    expect(demoKeysPath({ DATABASE: '/srv/db/reference.db', DATA_DIR: '/keep' })).toBe('/keep/demo-keys.json');
    expect(demoKeysPath({ DATABASE: 'postgres://u:p@h/db' }, '/repo')).toMatch(
      /^\/repo\/data\/demo-keys-[0-9a-f]{12}\.json$/,
    );
    expect(demoKeysPath({ DATABASE: ':memory:' })).toBeUndefined();
  });
});

describe('the bin', () => {
  // dist/cli.js, which the test task builds first: what `cls-reference serve` loads.
  const bin = resolve(import.meta.dirname, '../../dist/cli.js');

  it('loading it for `serve` leaves the private test-servers package, and its exit handler, out', () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: build the package first`);
    const exitHandlers = (imports: string[]) =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const before = process.listenerCount('exit');
           for (const m of ${JSON.stringify(imports)}) await import(m);
           process.stdout.write(String(process.listenerCount('exit') - before));`,
        ],
        { cwd: resolve(import.meta.dirname, '../..'), encoding: 'utf8' },
      );
    expect(exitHandlers([bin])).toBe('0');
    // The measure sees the package when it is loaded, so the 0 above is not blind.
    expect(exitHandlers([bin, '@cls-api/test-servers'])).toBe('1');
  });

  it('answers --help, a wrong option and an admin command without loading the HTTP server or Redis', () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: build the package first`);
    // NODE_DEBUG=module names every CommonJS module Node loads: Fastify's and ioredis's are.
    const loaded = (args: string[]) => {
      const r = spawnSync(process.execPath, [bin, ...args], {
        encoding: 'utf8',
        env: { ...process.env, ...env, NODE_DEBUG: 'module' },
      });
      expect(r.stderr, args.join(' ')).toMatch(/MODULE/);
      return r;
    };
    for (const args of [['--help'], ['--bogus'], ['admin', 'account', 'list']]) {
      const r = loaded(args);
      expect(r.stderr, args.join(' ')).not.toMatch(/\/(fastify|ioredis)@/);
    }
    // The measure sees them when a command does load them, so the passes above are not blind.
    expect(loaded(['admin', 'quota', 'reset', '--account', 'none']).status).toBe(1);
    const withRedis = spawnSync(process.execPath, [bin, 'admin', 'quota', 'reset', '--account', 'none'], {
      encoding: 'utf8',
      env: { ...process.env, ...env, REDIS_URL: 'redis://127.0.0.1:1', NODE_DEBUG: 'module' },
    });
    expect(withRedis.stderr).toMatch(/\/ioredis@/);
  });
});
