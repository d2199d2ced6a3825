// SIGTERM, SIGINT or SIGHUP (a closed terminal) on the real `serve` process (dist/cli.js, which the test task builds
// first): new connections are refused, every request in flight completes with 200 and `Connection: close`, and the
// process exits 128 + the signal's number (143, 130, 129), as `cluster` does and as a shell reports a stopped command.
// The requests are held in flight deterministically: each sends its head with `Expect: 100-continue`, and its body
// only after the server has answered `100 Continue` (it is processing the request) and has stopped accepting.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { exitCodeOf } from '../../src/cli.js';
import { afterEach, describe, expect, it } from 'vitest';
import { RawConnection } from '../support/raw.js';
import { TEST_JWT_SECRET } from '../support/server.js';

const cli = resolve(import.meta.dirname, '../../dist/cli.js');

let dir: string | undefined;
let child: ChildProcess | undefined;
afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
  child = undefined;
  dir = undefined;
});

interface Served {
  port: number;
  wmsKey: string;
  exited: Promise<number | null>;
}

async function serve(env: Record<string, string> = {}): Promise<Served> {
  if (!existsSync(cli))
    throw new Error(`${cli} is missing: build the package first (pnpm --filter @cls-api/reference build)`);
  dir = mkdtempSync(join(tmpdir(), 'cls-reference-shutdown-'));
  child = spawn(process.execPath, [cli, 'serve', '--demo', '--json'], {
    env: {
      ...process.env,
      DATABASE: join(dir, 'reference.db'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      JWT_SECRET: TEST_JWT_SECRET,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group of its own, as a shell gives a job: a terminal's Ctrl-C or hang-up goes to the whole group.
    detached: true,
  });
  const exited = new Promise<number | null>((done) => child!.once('exit', (code) => done(code)));
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const printed = await new Promise<string>((done, fail) => {
    child!.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const line = out.split('\n').find((l) => l.startsWith('{') && l.endsWith('}'));
      if (line) done(line);
    });
    void exited.then((code) => fail(new Error(`serve exited (${code}): ${err}`)));
  });
  const json = JSON.parse(printed) as {
    base_url: string;
    accounts: Array<{ api_keys: Array<{ area: string; env: string; api_key: string }> }>;
  };
  const wmsKey = json.accounts[0]!.api_keys.find((k) => k.area === 'wms' && k.env === 'test')!.api_key;
  return { port: Number(new URL(json.base_url).port), wmsKey, exited };
}

/** Resolves once the server refuses new connections (it has begun to close). */
async function refusesConnections(port: number): Promise<void> {
  for (;;) {
    try {
      const probe = await RawConnection.open(port);
      probe.destroy();
    } catch {
      return;
    }
    await sleep(5);
  }
}

const rows = (prefix: string, n: number) =>
  JSON.stringify({
    orders: Array.from({ length: n }, (_, i) => ({
      mall_order_no: `${prefix}-${i}`,
      mall_product_name: 'Shutdown',
      product_code: 'NONE',
      quantity: 1,
      receiver_name: 'Kim Minji',
      receiver_phone: '010-1234-5678',
      receiver_address: '12 Teheran-ro, Seoul',
    })),
  });

describe('graceful shutdown of the serve process', () => {
  it('SIGTERM: in-flight requests complete with 200 and Connection: close, new connections are refused, exit 143', async () => {
    // The grace period must not be what ends this run, however slowly the machine registers 2,500 drafts: with the
    // default 20 s a starved machine would cut them and exit 1. The longest the configuration allows (config.ts).
    const served = await serve({ SHUTDOWN_GRACE_MS: '600000' });
    const bodies = ['A', 'B', 'C', 'D'].map((p, i) => rows(p, 250 * (i + 1)));
    const connections = await Promise.all(bodies.map(() => RawConnection.open(served.port)));
    for (const [i, body] of bodies.entries()) {
      connections[i]!.write(
        `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: ${served.wmsKey}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
      );
    }
    for (const c of connections) expect((await c.next())?.status).toBe(100);

    child!.kill('SIGTERM');
    await refusesConnections(served.port);
    for (const [i, body] of bodies.entries()) connections[i]!.write(body);
    for (const [i, c] of connections.entries()) {
      const answer = await c.next();
      expect(answer?.status).toBe(200);
      expect(answer?.headers.connection).toBe('close');
      expect(answer?.body.data.drafts).toHaveLength(250 * (i + 1));
      await c.closed;
    }
    expect(await served.exited).toBe(exitCodeOf('SIGTERM'));
    expect(exitCodeOf('SIGTERM')).toBe(143);
  });

  it.each([
    ['SIGINT', 'Ctrl-C'],
    ['SIGHUP', 'a closed terminal'],
  ] as const)(
    '%s to its process group (%s): the request in flight completes, then exit 128 + its number',
    async (signal, _how) => {
      const served = await serve({ SHUTDOWN_GRACE_MS: '600000' });
      const body = rows('G', 1);
      const connection = await RawConnection.open(served.port);
      connection.write(
        `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: ${served.wmsKey}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
      );
      expect((await connection.next())?.status).toBe(100);
      process.kill(-child!.pid!, signal);
      await refusesConnections(served.port);
      connection.write(body);
      const answer = await connection.next();
      expect(answer?.status).toBe(200);
      expect(answer?.headers.connection).toBe('close');
      expect(await served.exited).toBe(exitCodeOf(signal));
      expect(exitCodeOf(signal)).toBe(signal === 'SIGINT' ? 130 : 129);
    },
  );

  it('a request still running after SHUTDOWN_GRACE_MS has its connection cut, and the exit code says so (1)', async () => {
    const served = await serve({ SHUTDOWN_GRACE_MS: '200' });
    const stuck = await RawConnection.open(served.port);
    stuck.write(
      `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: ${served.wmsKey}\r\nContent-Type: application/json\r\nContent-Length: 50\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect((await stuck.next())?.status).toBe(100);
    child!.kill('SIGTERM');
    // The body never comes: the grace period ends it.
    await stuck.closed;
    expect(await served.exited).toBe(1);
  });

  it('a second signal while requests are still running exits 1 at once, without waiting for the grace period', async () => {
    const served = await serve({ SHUTDOWN_GRACE_MS: '600000' });
    const stuck = await RawConnection.open(served.port);
    stuck.write(
      `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: ${served.wmsKey}\r\nContent-Type: application/json\r\nContent-Length: 50\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect((await stuck.next())?.status).toBe(100);
    child!.kill('SIGTERM');
    await refusesConnections(served.port);
    // The body never comes and the grace period is ten minutes: only the second signal can end the process now.
    child!.kill('SIGINT');
    expect(await served.exited).toBe(1);
  });
});
