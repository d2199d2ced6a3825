// What an operator meets running `cls-reference cluster` with its own PostgreSQL and Redis (nothing given): the
// admin line it prints works, nginx's own refusals are the contract's envelopes with its limits taken from the
// instances', a Redis restart keeps every count, and a killed instance is reported and restarted, a bounded number
// of times within a window. The command runs on the test's clock, which stands still unless the test moves it: the
// window counts the kills as far apart as the test says, however long each restart takes on the machine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sparePort, startNginx } from '@cls-api/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterServers } from '../../src/cli.js';
import { type Cluster, proxyLimits, RESTARTS } from '../../src/cluster.js';
import { contract } from '../../src/contract-facts.js';
import { MAX_HEADER_BYTES } from '../../src/server.js';
import { type ClusterTopology, type StartedCluster, startCluster, testKey } from '../support/cluster.js';
import { expectEnvelope, RawConnection, rawRequest } from '../support/raw.js';

const cli = resolve(import.meta.dirname, '../../dist/cli.js');
const spec = contract();

let started: StartedCluster;
let cluster: Cluster;
let own: ClusterServers;
let topology: ClusterTopology;
let reported: string[];
let dataDir: string;
const startedAt = Date.now();
/** How far the test has moved the command's clock. */
let moved = 0;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cls-cluster-ops-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'warn', DATA_DIR: dataDir };
  delete env.DATABASE;
  delete env.REDIS_URL;
  started = await startCluster(1, env, () => new Date(startedAt + moved));
  ({ cluster, own, topology, reported } = started);
}, 600_000);

afterAll(async () => {
  await started?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const key = (n: number) => testKey(topology, 'wms', n);
const port = () => Number(new URL(topology.base_url).port);

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms:\n${reported.join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the admin line the cluster prints', () => {
  it('is DATABASE=… REDIS_URL=… pnpm reference admin account list, and the same values are in DATA_DIR/cluster.env', () => {
    const match = /^DATABASE=(\S+) REDIS_URL=(\S+) pnpm reference admin account list$/.exec(topology.admin);
    expect(match, topology.admin).not.toBeNull();
    const [, database, redisUrl] = match!;
    expect(readFileSync(topology.env_file, 'utf8')).toContain(`DATABASE=${database}\nREDIS_URL=${redisUrl}\n`);
    expect(topology.env_file).toBe(join(dataDir, 'cluster.env'));
    // `pnpm reference` is the built CLI run from the root: run it directly with the printed values.
    const listed = JSON.parse(
      execFileSync(process.execPath, [cli, 'admin', 'account', 'list', '--json'], {
        env: { ...process.env, DATABASE: database, REDIS_URL: redisUrl, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      }),
    ) as { accounts: Array<{ account_id: string }> };
    expect(listed.accounts.map((a) => a.account_id).sort()).toEqual(topology.accounts.map((a) => a.account_id).sort());
  });
});

describe("nginx's own refusals", () => {
  const refused = async (head: string) => {
    const connection = await RawConnection.open(port());
    connection.write(head);
    const answer = await connection.next();
    connection.destroy();
    return answer;
  };

  it('a body over the largest any operation takes (17 MB announced): 400 INVALID_PARAMETER in the envelope', async () => {
    const answer = await refused(
      `POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key(0)}\r\nContent-Type: application/json\r\nContent-Length: 17000000\r\n\r\n`,
    );
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
    expect(answer!.body.error.message).toContain(`${spec.maxRequestBodyBytes} bytes`);
  });

  it('a 7 MB token request: 400 in the envelope, at the token operation’s own limit', async () => {
    const answer = await refused(
      'POST /v3/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7000000\r\n\r\n',
    );
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
    expect(answer!.body.error.message).toContain(
      `${spec.operationBodyLimits.get('createAccessToken')} bytes, the most this operation takes`,
    );
  });

  it('a request line or a header line longer than the servers accept: 400 in the envelope, never 414 or HTML', async () => {
    const long = 'a'.repeat(MAX_HEADER_BYTES + 100);
    expectEnvelope(await refused(`GET /v3/wms/${long} HTTP/1.1\r\nHost: x\r\n\r\n`), 400, 'INVALID_PARAMETER');
    expectEnvelope(
      await refused(`GET /v3/wms/suppliers HTTP/1.1\r\nHost: x\r\nX-Big: ${long}\r\n\r\n`),
      400,
      'INVALID_PARAMETER',
    );
  });

  // Refusals nginx makes before it knows the request's location (a request line it cannot read, a version, a method
  // or a transfer coding it refuses): its own pages were HTML with 500, 505, 405 and 501.
  it.each([
    ['a request line with a word after the version', 'GET /v3/wms/suppliers HTTP/1.1 x'],
    ['a path without its leading slash', 'GET v3/wms/suppliers HTTP/1.1'],
    ['a method in lower case', 'get /v3/wms/suppliers HTTP/1.1'],
    ['a control character for a method', '\x01 /v3/wms/suppliers HTTP/1.1'],
    ['a version that is not a number', 'GET /v3/wms/suppliers HTTP/1.x'],
    ['a method alone', 'GET'],
  ])('%s: 400 INVALID_PARAMETER in the envelope, never 500 or HTML', async (_, line) => {
    expectEnvelope(await refused(`${line}\r\nHost: x\r\n\r\n`), 400, 'INVALID_PARAMETER');
  });

  it.each([
    ['a bad Host', 'GET /v3/wms/suppliers HTTP/1.1\r\nHost: a/b\r\n\r\n'],
    ['no Host in HTTP/1.1', 'GET /v3/wms/suppliers HTTP/1.1\r\n\r\n'],
    [
      'Content-Length with Transfer-Encoding: chunked',
      'POST /v3/auth/token HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['a bad chunk size', 'POST /v3/auth/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n'],
  ])('%s: 400 INVALID_PARAMETER in the envelope', async (_, head) => {
    expectEnvelope(await refused(head), 400, 'INVALID_PARAMETER');
  });

  it.each([
    ['a request line of HTTP/2.0', 'GET /v3/wms/suppliers HTTP/2.0\r\nHost: x\r\n\r\n', 'HTTP version'],
    ["HTTP/2's connection preface", 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'malformed'],
    [
      'Transfer-Encoding: gzip',
      'POST /v3/wms/orders/draft HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n',
      'Transfer-Encoding',
    ],
  ])('%s: 400 INVALID_PARAMETER in the envelope, never 505 or 501', async (_, head, words) => {
    const answer = await refused(head);
    expectEnvelope(answer, 400, 'INVALID_PARAMETER');
    expect(answer!.body.error.message).toContain(words);
  });

  it('TRACE: 404 NOT_FOUND in the envelope, as an instance answers a method no operation takes, never 405', async () => {
    const head = 'TRACE /v3/wms/suppliers HTTP/1.1\r\nHost: x\r\n\r\n';
    const answer = await refused(head);
    expectEnvelope(answer, 404, 'NOT_FOUND');
    expect(answer!.body.error.message).toContain('TRACE');
    expectEnvelope(await rawRequest(Number(new URL(topology.instances[0]!).port), head), 404, 'NOT_FOUND');
  });

  it("the proxy's own pages asked for by path: 404 NOT_FOUND in the envelope", async () => {
    for (const path of ['/.malformed', '/.uri-too-long', '/.not-found']) {
      expectEnvelope(await refused(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`), 404, 'NOT_FOUND');
    }
  });

  it('a request line without a version (HTTP/0.9): a refusal is the envelope alone, a GET gets nothing', async () => {
    // HTTP/0.9 has no status line and no headers: nginx writes at most a body, then closes (README, "nginx's own
    // refusals").
    const everything = async (line: string) => {
      const connection = await RawConnection.open(port());
      const bytes: Buffer[] = [];
      connection.socket.on('data', (chunk: Buffer) => bytes.push(chunk));
      connection.write(line);
      await connection.closed;
      return Buffer.concat(bytes).toString('utf8');
    };
    const refusal = await everything('POST /v3/auth/token\r\n');
    expect(refusal).not.toMatch(/^HTTP\//);
    expect(JSON.parse(refusal)).toMatchObject({ success: false, error: { code: 'INVALID_PARAMETER' } });
    expect(await everything('GET /v3/wms/suppliers\r\n')).toBe('');
  });

  it('no instance reachable: 500 INTERNAL_ERROR in the envelope, never 502, on any location', async () => {
    // The same configuration in front of a port nobody listens on.
    const alone = await startNginx({ upstreams: [await sparePort()], ...proxyLimits(process.env), log: () => {} });
    try {
      for (const head of [
        'GET /v3/wms/suppliers HTTP/1.1\r\nHost: x\r\n\r\n',
        'POST /v3/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      ]) {
        expectEnvelope(await rawRequest(Number(new URL(alone.url).port), head), 500, 'INTERNAL_ERROR');
      }
    } finally {
      await alone.stop();
    }
  });

  it('what the instances accept passes: a 12 KB header is served, a 9 KB URL reaches the instance (its 404 envelope)', async () => {
    const withHeader = await fetch(`${topology.base_url}/v3/wms/suppliers`, {
      headers: { 'X-API-Key': key(0), 'X-Big': 'b'.repeat(12 * 1024) },
    });
    expect(withHeader.status).toBe(200);
    const longUrl = await fetch(`${topology.base_url}/v3/wms/${'c'.repeat(9 * 1024)}`, {
      headers: { 'X-API-Key': key(0) },
    });
    expect(longUrl.status).toBe(404);
    expect(((await longUrl.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
});

describe("the cluster's Redis stopped and started again", () => {
  it('keeps every count: the account has exactly as many calls left as before, minus the next one', async () => {
    const get = () => fetch(`${topology.base_url}/v3/wms/suppliers`, { headers: { 'X-API-Key': key(1) } });
    let remaining = Number.NaN;
    for (let i = 0; i < 5; i++) {
      const r = await get();
      expect(r.status).toBe(200);
      remaining = Number(r.headers.get('x-ratelimit-remaining'));
    }
    expect(own.redis).toBeDefined();
    await own.redis!.restart();
    let r = await get();
    await until('a call served after the restart', async () => {
      if (r.status === 200) return true;
      r = await get();
      return false;
    });
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
  });
});

describe('an instance killed', () => {
  it(`is reported and restarted on its port; exits older than ${RESTARTS.withinMs / 1000} s are forgotten, and after ${RESTARTS.max} restarts within them the cluster gives up`, {
    timeout: 300_000,
  }, async () => {
    const url = cluster.instances[0]!.url;
    /** Kills instance 1 and waits for it to serve again, reported as restart `n`. */
    const killAndRestart = async (n: number) => {
      const victim = cluster.instances[0]!;
      const pid = victim.process.pid;
      await victim.kill();
      await until(`restart ${n}`, () =>
        reported.some((l) => l.includes(`instance 1 is serving again`) && cluster.instances[0]!.process.pid !== pid),
      );
      expect(reported.join('\n')).toContain(
        `instance 1 (pid ${pid}, ${url}) was killed by SIGKILL; restarting it on the same port (restart ${n} of at most ${RESTARTS.max} within 60 s)`,
      );
      expect(cluster.instances[0]!.url).toBe(url);
      expect((await fetch(`${url}/health`)).status).toBe(200);
      // Through nginx too.
      expect((await fetch(`${topology.base_url}/v3/wms/suppliers`, { headers: { 'X-API-Key': key(0) } })).status).toBe(
        200,
      );
    };
    for (let n = 1; n < RESTARTS.max; n++) await killAndRestart(n);
    // A window later, the exits before are forgotten: the count starts again.
    moved += RESTARTS.withinMs;
    for (let n = 1; n <= RESTARTS.max; n++) await killAndRestart(n);
    const last = cluster.instances[0]!;
    await last.kill();
    const reason = await cluster.failed;
    expect(reason).toContain(
      `instance 1 (pid ${last.process.pid}, ${url}) was killed by SIGKILL, its ${RESTARTS.max + 1}th exit within 60 s: not restarted again`,
    );
  });
});
