// A default full run against the real reference server with one fault planted at a time (support/fault-proxy.ts):
// each fault is a server wrong in one operation only, and the run must go red on the rule it breaks, there; the
// fault-free server stays green, also with CPU-heavy work on the machine's cores beside it.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatSummary, runContractTests, type Report } from '../src/index.js';
import {
  appState,
  referenceCli,
  sellersOf,
  startReference,
  upstreamOf,
  type ReferenceServer,
  type SellerPair,
} from './support/apps.js';
import { PLANTED, startFaultProxy, type Planted } from './support/fault-proxy.js';
import { describeFailures } from './support/run.js';

const state = appState(referenceCli);

/** The failure each fault must show: its check, on its operation. */
const CAUGHT_AS: Record<Planted, { check: string; operation: string }> = {
  leak_order_to_other_key: { check: 'seller_isolation', operation: 'listManagerOrders' },
  leak_order_to_other_jwt: { check: 'seller_isolation', operation: 'listManagerOrders' },
  mcp_call_bad_json_500: { check: 'no_server_error', operation: 'callMcpTool' },
  order_update_bad_json_200: { check: 'expected_outcome', operation: 'updateWmsOrder' },
  unknown_wms_order_200: { check: 'expected_outcome', operation: 'getWmsOrder' },
  wms_list_ignores_page_bounds: { check: 'expected_outcome', operation: 'listWmsOrders' },
  page_0_as_page_1: { check: 'expected_outcome', operation: 'listWmsProducts' },
};

/**
 * The runs of the file, each with a pair of sellers and a loopback address of its own: all but the last overlap, since
 * a run waits on its own pace far more than it works, and none meets another's gateway bucket, quota or records.
 */
const RUNS = [...PLANTED, 'none', 'none with CPU-heavy work'] as const;
type Run = (typeof RUNS)[number];

describe.skipIf(state === 'absent')('a default full run against the reference server with one planted fault', () => {
  let server: ReferenceServer;
  /** Per run: its sellers, and the primary seller's order registered before any run. */
  const prepared = new Map<Run, { pair: SellerPair; leakOrderNo: string; sourceAddress: string }>();

  beforeAll(async () => {
    if (state === 'unbuilt') throw new Error(`${referenceCli} is missing: build the reference server first`);
    server = await startReference({ sellerPairs: RUNS.length });
    await Promise.all(
      RUNS.map(async (run, i) => {
        const pair = server.pairs[i]!;
        // An order of the seller registered before the run: the kit knows it only from what the seller's list shows.
        const headers = { 'X-API-Key': pair.keys.primary.wms!, 'Content-Type': 'application/json' };
        const product = await fetch(`${server.url}/v3/wms/products`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ product_code: 'PLANTED-01', product_name: 'Planted', price: 1000, stock_quantity: 5 }),
        });
        expect(product.status).toBe(200);
        const order = await fetch(`${server.url}/v3/wms/orders`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            orders: [
              {
                mall_order_no: 'PLANTED-ORDER-1',
                mall_product_name: 'Planted order',
                product_code: 'PLANTED-01',
                quantity: 1,
                receiver_name: 'Kim Minji',
                receiver_phone: '010-1234-5678',
                receiver_address: '12 Teheran-ro, Seoul',
              },
            ],
          }),
        });
        const leakOrderNo = ((await order.json()) as { data: { results: Array<{ order_no: string }> } }).data
          .results[0]!.order_no;
        // Each run starts with both sellers' whole allowance, the two calls above given back.
        for (const account of Object.values(pair.accounts))
          await server.admin(['quota', 'reset', '--account', account]);
        // 127.0.0.1 is the server's own and this file's direct calls'; each run's proxy connects from the next ones.
        prepared.set(run, { pair, leakOrderNo, sourceAddress: `127.0.0.${i + 2}` });
      }),
    );
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function fullRun(run: Run, fault: Planted | undefined): Promise<{ report: Report; hits: number }> {
    const { pair, leakOrderNo, sourceAddress } = prepared.get(run)!;
    const proxy = await startFaultProxy(upstreamOf(server, pair, sourceAddress), {
      faults: fault ? [fault] : [],
      leakOrderNo,
    });
    try {
      const report = await runContractTests({
        ...sellersOf(server, pair),
        baseUrl: proxy.url,
        seed: 20261202,
      });
      return { report, hits: proxy.hits };
    } finally {
      await proxy.close();
    }
  }

  // Concurrent: every run at once (the package's maxConcurrency holds them all), each still its own test.
  test.concurrent.for(PLANTED)(
    '%s turns the run red on its rule, there',
    { timeout: 600_000 },
    async (fault, { expect }) => {
      const { report, hits } = await fullRun(fault, fault);
      expect(hits, `the run never met the planted fault ${fault}`).toBeGreaterThan(0);
      expect(report.exitCode, formatSummary(report)).toBe(1);
      const want = CAUGHT_AS[fault];
      const failures = report.cases.flatMap((c) => c.failures);
      expect(
        failures.some((f) => f.check === want.check && f.operation === want.operation),
        describeFailures(report),
      ).toBe(true);
    },
  );

  test.concurrent('the server without a fault passes the same run', async ({ expect }) => {
    const { report } = await fullRun('none', undefined);
    expect(describeFailures(report)).toBe('');
    expect(report.exitCode, formatSummary(report)).toBe(0);
  }, 600_000);

  // After the others, alone: loops on every core for as long as the overlapping runs take would slow every other
  // test file of the package's run for that long too.
  test('the server without a fault passes with CPU-heavy work on every core beside it', async () => {
    const busy: ChildProcess[] = [];
    for (let i = 0; i < availableParallelism(); i++)
      busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    try {
      const { report } = await fullRun('none with CPU-heavy work', undefined);
      expect(describeFailures(report)).toBe('');
      expect(report.exitCode, formatSummary(report)).toBe(0);
    } finally {
      for (const child of busy) child.kill('SIGKILL');
    }
  }, 900_000);
});
