// A partner's CI running its jobs in parallel: 1,200 calls at once, each on its own connection, to one instance (the
// built `serve`, in a process of its own as deployed: a server in the test's own process reads each request as soon
// as the test has written it, and never meets a burst). Requests the server has not read yet are queued, not
// stalled: every one is answered, and the monthly quota of the account's test key decides exactly (1,000 answered
// 200, 200 answered 429). Nothing here measures time: the test counts what each connection received.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type RunningServer, sparePort, startServer } from '@cls-api/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { contract } from '../../src/contract-facts.js';
import { burstCall, tally } from '../support/raw.js';
import { LIMITS_OFF } from '../support/server.js';

const QUOTA = contract().limits.testKeyMonthlyQuota;
const CALLS = 1_200;
/**
 * The calls come from 20 loopback addresses, 60 each: under the per-address cap (MAX_CONNECTIONS_PER_ADDRESS, 64) as
 * jobs on several runners would be, so that the bound on what stalled requests hold in total is what the burst meets.
 */
const ADDRESSES = 20;

const cli = resolve(import.meta.dirname, '../../dist/cli.js');
let dir: string;
let server: RunningServer | undefined;
let port: number;
let key: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cls-burst-'));
  const env = { DATABASE: join(dir, 'reference.db'), LOG_LEVEL: 'silent' };
  const admin = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli([...args, '--json'], { env, stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
    expect(code, err.join('')).toBe(0);
    return JSON.parse(out.join('')) as Record<string, string>;
  };
  const seller = (await admin('admin', 'account', 'create', '--name', 'Burst Seller')).account_id!;
  key = (await admin('admin', 'key', 'create', '--account', seller, '--area', 'wms', '--env', 'test')).api_key!;
  port = await sparePort();
  server = await startServer('the reference server', process.execPath, [cli, 'serve'], {
    port,
    log: () => undefined,
    // The gateway's speed limit is lifted (LIMITS_OFF): the burst is about what the server holds, not its rate.
    env: {
      ...process.env,
      ...env,
      ...LIMITS_OFF,
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: 'burst-test-secret-0123456789-abcdefghijklmnop',
    },
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a burst of calls to one instance', () => {
  it(`${CALLS} concurrent calls with one account's test key: every one answered, exactly ${QUOTA} x 200 and ${CALLS - QUOTA} x 429`, {
    timeout: 600_000,
  }, async () => {
    const outcomes = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => burstCall(port, `127.2.0.${(i % ADDRESSES) + 1}`, key)),
    );
    expect(tally(outcomes)).toEqual({ 200: QUOTA, 429: CALLS - QUOTA });
  });
});
