// The partner's data: one environment per run, a live key read-only unless --allow-live-writes, every invented
// identifier under the run's prefix, the records the run left listed with where they are, returns withdrawn after
// the run, and credentials the server refuses stopped before any case (exit 2).
import { operations, loadSpec } from '@cls-api/spec';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { formatSummary, runContractTests } from '../src/index.js';
import { Contract } from '../src/contract/contract.js';
import { UsageError } from '../src/plan/credentials.js';
import { LIVE_READ_ONLY } from '../src/plan/environment.js';
import { RECORD_PREFIX_ROOT } from '../src/run/records.js';
import { describeFailures, kitOptions, runKit } from './support/run.js';
import { holdOrder, referenceServers, type TestServer } from './support/servers.js';

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

// What the service holds, read from its store (no call, nothing in the proxy's log).
type Who = 'primary' | 'other';
const all = { offset: 0, limit: 1000 };
const productCodesOf = async (s: TestServer, who: Who, env: 'test' | 'live' = 'test') =>
  (await s.store.listProducts(s.owner(who, env), {}, all)).items.map((p) => p.product_code);
const mallOrderNosOf = async (s: TestServer, who: Who, env: 'test' | 'live' = 'test') =>
  (await s.store.listOrders(s.owner(who, env), {}, all)).items.map((o) => o.mall_order_no);
const optionCodesOf = async (s: TestServer, who: Who) => {
  const codes: string[] = [];
  for (const product of await productCodesOf(s, who))
    codes.push(...(await s.store.listOptions(s.owner(who), product, all)).items.map((o) => o.option_code));
  return codes;
};
/** What the service answered it registered, as the proxy logged it: the successful rows of each answer. */
const answered = (s: TestServer, path: string, rows: (data: Record<string, unknown>) => unknown[]) =>
  s.log
    .filter((l) => l.method === 'POST' && l.path === path && l.status === 200)
    .flatMap((l) => rows((l.json as { data: Record<string, unknown> }).data));
/** The returns the run registered, each `requested` or `withdrawn` as the service holds it now. */
const returnStatuses = async (s: TestServer) => {
  const numbers = answered(s, '/v3/wms/returns', (d) => [d.return_no]);
  const statuses: string[] = [];
  for (const no of numbers) {
    const found = await s.store.findReturn(s.owner('primary'), String(no));
    statuses.push(found?.withdrawn_at === null ? 'requested' : 'withdrawn');
  }
  return statuses;
};

const publicPaths = new Set(
  operations(loadSpec())
    .filter((o) => o.security.length === 0)
    .map((o) => o.path),
);

function liveOptions(f: TestServer) {
  return {
    apiKeys: Object.values(f.liveKeys.primary),
    otherApiKeys: Object.values(f.liveKeys.other),
    clientId: f.liveClient.id,
    clientSecret: f.liveClient.secret,
  };
}

describe('environments', () => {
  test('a live key is read-only: no request but GET (and the public token requests), the writing cases listed', async () => {
    server = await servers.start();
    const testWorld = await productCodesOf(server, 'primary');
    const report = await runKit(server, liveOptions(server));
    const writes = server.log.filter((l) => l.method !== 'GET');
    expect(
      writes.every((l) => publicPaths.has(l.path)),
      JSON.stringify(writes),
    ).toBe(true);
    const skipped = report.cases.filter((c) => c.skipReason === LIVE_READ_ONLY).map((c) => c.id);
    expect(skipped.length).toBeGreaterThan(10);
    expect(report.environment).toEqual({ name: 'live', writes: false, leftOutAsLive: skipped });
    expect(report.records?.created).toBe(0);
    expect(describeFailures(report)).toBe('');
    const summary = formatSummary(report);
    expect(summary).toContain(`${skipped.length} × ${LIVE_READ_ONLY}`);
    expect(summary).toContain(`live environment, read-only: ${skipped.length} writing cases left out`);
    // Nothing reached the test world either.
    expect(await productCodesOf(server, 'primary')).toEqual(testWorld);
    expect(await productCodesOf(server, 'primary', 'live')).toEqual([]);
  });

  test('with --allow-live-writes the writing cases run, in the live world only', async () => {
    server = await servers.start();
    const testWorld = await productCodesOf(server, 'primary');
    const report = await runKit(server, { ...liveOptions(server), allowLiveWrites: true, phases: ['workflows'] });
    expect(server.log.some((l) => l.method === 'POST' && !publicPaths.has(l.path))).toBe(true);
    expect(report.cases.some((c) => c.skipReason === LIVE_READ_ONLY)).toBe(false);
    expect(report.environment).toEqual({ name: 'live', writes: true });
    expect((await productCodesOf(server, 'primary', 'live')).length).toBeGreaterThan(0);
    expect((await mallOrderNosOf(server, 'primary', 'live')).length).toBeGreaterThan(0);
    expect(await productCodesOf(server, 'primary')).toEqual(testWorld);
    expect(report.records?.environment).toBe('live');
    expect(formatSummary(report)).toMatch(/Records: left \d+ records \(live environment/);
  });

  test('credentials of different environments are a usage error naming each, never a secret', async () => {
    server = await servers.start();
    const run = runContractTests(
      kitOptions(server, { clientId: server.liveClient.id, clientSecret: server.liveClient.secret }),
    );
    await expect(run).rejects.toThrow(UsageError);
    const message = await run.catch((err: Error) => err.message);
    expect(message).toContain('$CLS_CLIENT_ID (cli_live_…)');
    expect(message).toContain('$CLS_API_KEY_WMS (wms_test_…)');
    expect(message).toContain('$CLS_OTHER_API_KEY_CAM (cam_test_…)');
    for (const secret of [server.liveClient.id, server.liveClient.secret, ...Object.values(server.keys.primary)])
      expect(message).not.toContain(secret);
    const otherLive = runContractTests(kitOptions(server, { otherApiKeys: Object.values(server.liveKeys.other) }));
    await expect(otherLive).rejects.toThrow(/different environments/);
    expect(server.requests).toBe(0);
  });
});

describe('records', () => {
  test('every identifier the kit chose starts with the run prefix, and the summary lists what was left and where', async () => {
    server = await servers.start();
    // What the sellers held before the run (the demo data set): the run's records are the rest.
    const held = async () => ({
      products: [...(await productCodesOf(server!, 'primary')), ...(await productCodesOf(server!, 'other'))],
      orders: [...(await mallOrderNosOf(server!, 'primary')), ...(await mallOrderNosOf(server!, 'other'))],
      options: await optionCodesOf(server!, 'primary'),
    });
    const before = await held();
    const report = await runKit(server);
    expect(describeFailures(report)).toBe('');
    const records = report.records!;
    expect(records.prefix).toMatch(new RegExp(`^${RECORD_PREFIX_ROOT}[A-Z0-9]+-$`));
    const after = await held();
    const added = (k: 'products' | 'orders' | 'options') => after[k].filter((id) => !before[k].includes(id));
    // The isolation check leaves one product and one order in the other seller's test world too.
    const products = added('products');
    const mallOrderNos = added('orders');
    // Drafts have no list: those the service answered it registered, each found where it said.
    const draftNos = answered(server, '/v3/wms/orders/draft', (d) =>
      (d.drafts as Array<{ success: boolean; mall_order_no: string }>)
        .filter((r) => r.success)
        .map((r) => r.mall_order_no),
    ) as string[];
    expect((await server.store.draftMallOrderNos(server.owner('primary'), draftNos)).size).toBe(draftNos.length);
    const optionCodes = added('options');
    for (const list of [products, mallOrderNos, draftNos, optionCodes]) {
      expect(list.length).toBeGreaterThan(0);
      for (const id of list) expect(id.startsWith(records.prefix), id).toBe(true);
    }
    // What the server holds is what the report says the run left.
    const kind = (k: string) => records.kinds.find((x) => x.kind === k);
    expect(new Set(kind('products')?.ids)).toEqual(new Set(products));
    expect(kind('products')).toMatchObject({ area: 'wms', operation: 'createProduct', left: products.length });
    expect(kind('orders')?.left).toBe(mallOrderNos.length);
    expect(kind('draft orders')?.left).toBe(draftNos.length);
    expect(kind('options')?.left).toBe(optionCodes.length);
    expect(kind('draft orders')?.why).toBe('the contract has no operation that removes draft orders');
    // Only returns can be removed (withdrawn, cancelReturn); every other kind the run created is still there.
    expect(records.left + records.removed).toBe(records.created);
    for (const k of records.kinds) if (k.kind !== 'returns') expect(k.removed, k.kind).toBe(0);
    const withdrawn = (await returnStatuses(server)).filter((status) => status === 'withdrawn').length;
    expect(kind('returns')?.removed ?? 0).toBe(records.removed);
    expect(records.removed).toBeLessThanOrEqual(withdrawn);
    // Almost nothing: the row-limit and bad-row bodies repeat a stored row (refused at the storage stage), so the
    // whole run leaves a handful of records, not thousands.
    expect(records.left).toBeLessThanOrEqual(25);
    expect(products.length + mallOrderNos.length + draftNos.length + optionCodes.length).toBeLessThanOrEqual(25);
    const summary = formatSummary(report);
    expect(summary).toContain(`Records: left ${records.left} records (test environment`);
    expect(summary).toContain(`products ${products.length} (wms, createProduct)`);
    expect(summary).toContain(`draft orders ${draftNos.length} (wms, registerDraftOrders)`);
  });

  const exampleOrderNo = () => {
    const op = new Contract().operation('registerReturn');
    return String((Object.values(op.requestBody!.examples)[0]!.value as { order_no: string }).order_no);
  };

  /** A server of the test's own that holds the order the request example names, so the example registers a return. */
  const holdingTheExample = async (options: Parameters<typeof servers.start>[0] = {}) => {
    const started = await servers.start({ ...options, own: true, demo: false });
    await holdOrder(started, exampleOrderNo());
    return started;
  };

  test('a return the run registered is withdrawn after the run', async () => {
    server = await holdingTheExample();
    const report = await runKit(server, { operations: ['registerReturn'], phases: ['examples'] });
    expect(await returnStatuses(server)).toEqual(['withdrawn']);
    const kind = report.records!.kinds.find((k) => k.kind === 'returns');
    expect(kind).toMatchObject({ removal: 'cancelReturn', created: 1, removed: 1, left: 0 });
    expect(formatSummary(report)).toContain('removed 1: returns 1 (cancelReturn)');
  });

  test('a return the server will not let go stays, listed with the reason', async () => {
    // Mid-month, so that the withdrawal, at the window's end, is counted in the same month as the rest of the run.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-24T01:00:00Z'), shouldAdvanceTime: true });
    server = await holdingTheExample({ returnWindowClosed: true });
    const report = await runKit(server, { operations: ['registerReturn'], phases: ['examples'] });
    expect(await returnStatuses(server)).toEqual(['requested']);
    const kind = report.records!.kinds.find((k) => k.kind === 'returns');
    expect(kind).toMatchObject({ left: 1, removed: 0, why: 'cancelReturn answered 400 RETURN_CANCEL_EXPIRED' });
    expect(formatSummary(report)).toContain('returns 1 (wms, registerReturn)');
  });

  test('against a mock (--examples-only) nothing is noted or removed: its answers are the examples', async () => {
    server = await holdingTheExample();
    const report = await runKit(server, { operations: ['registerReturn'], examplesOnly: true });
    expect(await returnStatuses(server)).toEqual(['requested']);
    expect(server.log.some((l) => l.path.endsWith('/cancel'))).toBe(false);
    expect(report.records?.created).toBe(0);
    expect(formatSummary(report)).not.toContain('Records:');
  });
});

describe('credentials the server refuses', () => {
  test('a wrong key: exit 2 before any case, naming the key by its variable', async () => {
    server = await servers.start();
    const wrong = 'wms_test_wrongwrongwrongwrong';
    const report = await runKit(server, { apiKeys: [wrong, server.keys.primary.manager!, server.keys.primary.cam!] });
    expect(report.exitCode).toBe(2);
    expect(report.stoppedBy).toBe('credentials');
    expect(report.cases).toEqual([]);
    expect(report.error).toContain('$CLS_API_KEY_WMS (wms_test_…)');
    expect(report.error).toContain('answered 401 AUTH_INVALID_TOKEN');
    expect(report.error).not.toContain('$CLS_API_KEY_MANAGER');
    expect(JSON.stringify(report)).not.toContain(wrong);
    // A known test key was checked where it costs no quota: a 403 on another area.
    expect(await server.used()).toBe(0);
  });

  test('wrong client credentials: exit 2, naming them, never the secret', async () => {
    server = await servers.start();
    const secret = 'wrongsecretwrongsecret';
    const report = await runKit(server, { clientSecret: secret });
    expect(report.exitCode).toBe(2);
    expect(report.error).toContain('$CLS_CLIENT_ID / $CLS_CLIENT_SECRET');
    expect(report.error).not.toContain(secret);
  });

  test('live keys of an account whose subscription ended (403 on their own area): exit 2', async () => {
    server = await servers.start({ subscriptionEnded: true });
    const report = await runKit(server, { ...liveOptions(server), clientId: undefined, clientSecret: undefined });
    expect(report.exitCode).toBe(2);
    expect(report.error).toContain('$CLS_API_KEY_WMS (wms_live_…): GET /v3/wms/');
    expect(report.error).toContain('403 AUTH_FORBIDDEN');
  });

  test('the keys a server takes pass the check without spending any quota', async () => {
    server = await servers.start();
    const report = await runKit(server, { phases: ['paging'], tags: ['WMS suppliers'] });
    expect(report.exitCode).toBe(0);
    const checks = server.log.slice(0, 8);
    expect(checks.filter((l) => l.status === 403).length).toBe(6);
  });
});
