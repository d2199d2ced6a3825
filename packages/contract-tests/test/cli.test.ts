// The command a partner runs: exit codes, reports written, failures with curl lines that use environment variable
// references (never literal keys), and credentials taken from the environment.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { EXIT_CODES } from '../src/report/exit-codes.js';
import { cli, runCli as run } from './support/command.js';
import { closedPort } from './support/ports.js';
import { kitVariables, referenceServers, type TestServer } from './support/servers.js';

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A proxy to `target` that answers nothing to the first POST to `path` (the rest it passes on), and resolves
 * `holding` when that request arrives: a run of the kit through it is stopped half-way until the proxy closes.
 */
async function holdingProxy(
  target: string,
  path: string,
): Promise<{ url: string; holding: Promise<void>; close(): Promise<void> }> {
  let hold!: () => void;
  const holding = new Promise<void>((done) => (hold = done));
  let held = false;
  const proxy = createServer((req, res) => {
    if (!held && req.method === 'POST' && req.url?.split('?')[0] === path) {
      held = true;
      hold();
      return;
    }
    const url = new URL(req.url ?? '/', target);
    const upstream = httpRequest(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    holding,
    close: () =>
      new Promise<void>((done) => {
        proxy.close(() => done());
        proxy.closeAllConnections();
      }),
  };
}

describe('usage', () => {
  test('--help prints the options and every exit code, exit 0', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--base-url',
      '--api-key',
      '--other-api-key',
      '--client-id',
      '--client-secret',
      '--seed',
      '--read-only',
      '--allow-live-writes',
      '--probe-limits',
      '--tag',
      '--operation',
      '--max-requests',
      '--max-quota',
      '--junit',
      '--json',
      '--examples-only',
      '--strict-provisional',
      '--profile',
      '--target',
      '--no-credentials',
    ]) {
      expect(r.stdout).toContain(flag);
    }
    // Each code once, with its meaning (exit-codes.ts).
    for (const { code, meaning } of EXIT_CODES) expect(r.stdout).toContain(`  ${code}  ${meaning}`);
  });

  test('no base URL, a malformed key, an unknown flag: exit 2 with the reason', async () => {
    expect((await run([])).code).toBe(2);
    const badKey = await run(['--base-url', 'http://127.0.0.1:9', '--api-key', 'not-a-key']);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('{area}_{env}_{random}');
    expect((await run(['--base-url', 'http://127.0.0.1:9', '--frobnicate'])).code).toBe(2);
  });

  test('an unreachable server: exit 3', async () => {
    const r = await run(['--base-url', `http://127.0.0.1:${await closedPort()}`, '--quiet', '--no-credentials']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/Stopped: .*(ECONNREFUSED|fetch failed)/);
  });

  test('a budget spent before the first case: exit 3, nothing sent', async () => {
    server = await servers.start();
    const r = await run(['--max-requests', '0', '--quiet'], kitVariables(server));
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout).toMatch(/Stopped: the budget ran out before the first case: .*--max-requests 0/);
    expect(server.requests).toBe(0);
  });

  test('a base URL that is not the API (a 404 page): exit 2, a usage error', async () => {
    const server = createServer((_, res) => {
      res.writeHead(404, { 'Content-Type': 'text/html' });
      res.end('<h1>Not Found</h1>');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const r = await run([
        '--base-url',
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
        '--quiet',
        '--no-credentials',
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stdout).toMatch(/Stopped: .*is --base-url the API's base address/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  test('no credential at all (empty CI secrets): exit 2 naming the variables, nothing sent; --no-credentials runs', async () => {
    server = await servers.start();
    const empty = { CLS_BASE_URL: server.url, CLS_API_KEYS: '', CLS_CLIENT_ID: '', CLS_CLIENT_SECRET: '' };
    const r = await run(['--quiet'], empty);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/no credential given: set CLS_API_KEYS .*CLS_CLIENT_ID.*--no-credentials/);
    expect(server.requests).toBe(0);
    const smoke = await run(
      ['--quiet', '--no-credentials', '--phase', 'negative', '--operation', 'listSuppliers'],
      empty,
    );
    expect(smoke.code, smoke.stdout + smoke.stderr).toBe(0);
    expect(server.requests).toBeGreaterThan(0);
  });

  test('a base URL ending in a version segment: exit 2 with the likely cause, nothing sent', async () => {
    server = await servers.start();
    const r = await run(['--quiet', '--base-url', `${server.url}/v3`], kitVariables(server));
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(`--base-url ends in the version segment /v3: give the API's base address without it`);
    expect(server.requests).toBe(0);
  });

  test('a base URL whose every pre-check answers 404 NOT_FOUND (JSON): exit 2, not a page of failures', async () => {
    server = await servers.start();
    const r = await run(['--quiet', '--base-url', `${server.url}/api`], kitVariables(server));
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(
      /Stopped: .*answered 404 NOT_FOUND: is --base-url the API's base address \(without \/v3\)\? Its path part may not belong there/,
    );
    expect(r.stdout).toContain('0 passed, 0 failed');
  });

  test('a key the server refuses: exit 2, the key named by its variable, never shown', async () => {
    server = await servers.start();
    const wrong = 'manager_test_revokedrevokedrevoked';
    const r = await run(['--quiet'], { ...kitVariables(server), CLS_API_KEYS: `${server.keys.primary.wms},${wrong}` });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(
      /Stopped: the server refused a credential given: \$CLS_API_KEY_MANAGER \(manager_test_…\): GET \S+ answered 401 AUTH_INVALID_TOKEN/,
    );
    expect(r.stdout + r.stderr).not.toContain(wrong);
  });

  test('credentials of different environments: exit 2 before any request, each named', async () => {
    server = await servers.start();
    const live = server.liveKeys.primary.cam!;
    const r = await run(['--quiet'], { ...kitVariables(server), CLS_API_KEYS: `${server.keys.primary.wms},${live}` });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /different environments \(test: \$CLS_API_KEY_WMS \(wms_test_…\).*; live: \$CLS_API_KEY_CAM \(cam_live_…\)/,
    );
    expect(r.stdout + r.stderr).not.toContain(live);
    expect(server.requests).toBe(0);
  });

  test('contract failures: exit 1 (and a pass is 0, below)', async () => {
    server = await servers.start({ faults: ['accepts_any_key'] });
    const r = await run(['--phase', 'negative', '--operation', 'listSuppliers', '--quiet'], kitVariables(server));
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('this server does not authenticate');
  });
});

describe('against a server', () => {
  test('a conforming server: exit 0, JUnit and JSON written, credentials only from the environment', async () => {
    server = await servers.start();
    const dir = mkdtempSync(join(tmpdir(), 'cls-cli-'));
    const junit = join(dir, 'junit.xml');
    const json = join(dir, 'report.json');
    const r = await run(
      [
        '--phase',
        'negative',
        '--phase',
        'paging',
        '--tag',
        'WMS suppliers',
        '--tag',
        'Payment deposits',
        '--junit',
        junit,
        '--json',
        json,
        '--seed',
        '42',
        '--save-token',
        join(dir, 'cache', 'token'),
      ],
      kitVariables(server),
    );
    expect(r.stderr).toBe('');
    // The run's access token, kept for the next run's CLS_EXPIRED_TOKEN, readable by its owner only, never printed.
    const token = readFileSync(join(dir, 'cache', 'token'), 'utf8').trim();
    expect(token.split('.')).toHaveLength(3);
    expect(statSync(join(dir, 'cache', 'token')).mode & 0o777).toBe(0o600);
    expect(r.stdout).not.toContain(token);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/✓ negative\/listSuppliers\/missing_credential/);
    expect(r.stdout).toMatch(/Summary by phase/);
    expect(r.stdout).toMatch(/calls spent: \d+/);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.seed).toBe(42);
    expect(report.exitCode).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    expect(xml.startsWith('<?xml')).toBe(true);
    expect((xml.match(/<testcase /g) ?? []).length).toBe(report.totals.cases);
    expect(xml).toContain('<testsuite name="negative"');
  });

  test('long request bodies go beside the reports, the curl lines read them there; nothing is left in the temp folder', async () => {
    server = await servers.start({ faults: ['bulk_limit_off_by_one'] });
    const dir = mkdtempSync(join(tmpdir(), 'cls-cli-'));
    const temp = mkdtempSync(join(tmpdir(), 'cls-cli-tmp-'));
    const json = join(dir, 'reports', 'contract.json');
    const args = ['--phase', 'bulk', '--operation', 'registerDraftOrders', '--strict-provisional', '--quiet'];
    const r = await run([...args, '--json', json], { ...kitVariables(server), TMPDIR: temp });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    const curls: string[] = report.cases.flatMap((c: { failures: Array<{ curl?: string }> }) =>
      c.failures.flatMap((f) => (f.curl ? [f.curl] : [])),
    );
    const files = curls.flatMap((c) => [...c.matchAll(/--data-binary @(\S+)/g)].map((m) => m[1]!));
    expect(files.length, curls.join('\n')).toBeGreaterThan(0);
    for (const file of files) {
      expect(file.startsWith(join(dir, 'reports', 'requests'))).toBe(true);
      expect(JSON.parse(readFileSync(file, 'utf8')).orders.length).toBeGreaterThanOrEqual(1000);
    }
    expect(readdirSync(temp)).toEqual([]);
    // Interrupted half-way, with one of its bulk requests unanswered: still nothing in the temp folder. The request
    // is held until the Ctrl-C, so the run cannot have ended first, however slowly this test reacts.
    const held = await holdingProxy(server.url, '/v3/wms/orders/draft');
    try {
      const child = spawn(process.execPath, [cli, ...args, '--json', join(dir, 'interrupted', 'contract.json')], {
        env: { PATH: process.env.PATH ?? '', ...kitVariables({ ...server, url: held.url }), TMPDIR: temp },
      });
      const closed = new Promise<NodeJS.Signals | null>((done) => child.once('close', (_, signal) => done(signal)));
      await Promise.race([held.holding, closed]);
      child.kill('SIGINT');
      expect(await closed, 'the run ended by itself: it was never held on a bulk request').toBe('SIGINT');
    } finally {
      await held.close();
    }
    expect(readdirSync(temp)).toEqual([]);
  });

  test('a faulty server: exit 1, each failure with its check, operation and a curl line without secrets', async () => {
    server = await servers.start({ faults: ['error_code_undocumented'] });
    const dir = mkdtempSync(join(tmpdir(), 'cls-cli-'));
    const junit = join(dir, 'junit.xml');
    const r = await run(['--phase', 'negative', '--operation', 'getWmsOrder', '--junit', junit], kitVariables(server));
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\[error_code_documented\] getWmsOrder/);
    expect(r.stdout).toMatch(/expected: error\.code one of ORDER_NOT_FOUND on 404/);
    expect(r.stdout).toMatch(/seen: +NOT_FOUND/);
    const curl = r.stdout.split('\n').find((l) => l.includes('reproduce: curl'))!;
    expect(curl).toContain('"X-API-Key: $CLS_API_KEY_WMS"');
    for (const key of Object.values(server.keys.primary))
      expect(r.stdout + readFileSync(junit, 'utf8')).not.toContain(key);
    expect(readFileSync(junit, 'utf8')).toMatch(/<failure type="error_code_documented"/);
  });

  test('a server departing from a design: exit 0 with the departures in the console, JSON and JUnit; --strict-provisional: exit 1', async () => {
    server = await servers.start({ draftStatus: 'confirmed' });
    const dir = mkdtempSync(join(tmpdir(), 'cls-cli-'));
    const junit = join(dir, 'junit.xml');
    const json = join(dir, 'report.json');
    const args = [
      '--phase',
      'workflows',
      '--operation',
      'registerDraftOrders',
      '--quiet',
      '--junit',
      junit,
      '--json',
      json,
    ];
    const lenient = await run(args, kitVariables(server));
    expect(lenient.code, lenient.stdout + lenient.stderr).toBe(0);
    expect(lenient.stdout).toMatch(/Provisional \(\d+ departures? from our designs/);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.totals.departures).toBeGreaterThan(0);
    expect(report.departures.length).toBe(report.totals.departures);
    expect(report.departures[0]).toMatchObject({ check: 'schema_valid', operation: 'registerDraftOrders' });
    expect(report.options.strictProvisional).toBe(false);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuite name="provisional" tests="\d+" failures="0" skipped="\d+"/);
    expect(xml).not.toContain('<failure');

    const strict = await run([...args, '--strict-provisional'], kitVariables(server));
    expect(strict.code, strict.stdout).toBe(1);
    expect(strict.stdout).toMatch(/\[schema_valid\] registerDraftOrders/);
    expect(JSON.parse(readFileSync(json, 'utf8')).options.strictProvisional).toBe(true);
  });

  const hasCurl = spawnSync('curl', ['--version']).status === 0;
  test.skipIf(!hasCurl)(
    'the printed curl line reproduces the failure when the key is in the environment (needs curl)',
    async () => {
      server = await servers.start({ faults: ['error_code_undocumented'] });
      const r = await run(['--phase', 'negative', '--operation', 'getWmsOrder', '--quiet'], kitVariables(server));
      const line = r.stdout
        .split('\n')
        .find((l) => l.includes('reproduce: curl'))!
        .replace(/^\s*reproduce: /, '');
      // Asynchronous: the server answers from this very process.
      const replay = await new Promise<string>((done) => {
        const child = spawn('bash', ['--noprofile', '--norc', '-c', line], {
          env: { PATH: process.env.PATH ?? '', CLS_API_KEY_WMS: server!.keys.primary.wms! },
        });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('close', () => done(out));
      });
      expect(replay).toMatch(/HTTP\/1\.1 404/);
      expect(replay).toContain('"code":"NOT_FOUND"');
    },
  );
});

test('the package exposes the command as its bin, which runs the built CLI through the package exports', () => {
  const root = resolve(import.meta.dirname, '..');
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
  expect(new Set(Object.values(pkg.bin))).toEqual(new Set(['./bin/cls-contract.js']));
  const bin = readFileSync(resolve(root, 'bin', 'cls-contract.js'), 'utf8');
  expect(bin.startsWith('#!/usr/bin/env node')).toBe(true);
  expect(bin).toContain("import '@cls-api/contract-tests/cli'");
  expect(existsSync(cli)).toBe(true);
});
