// The partner's data: one environment per run, a live key read-only unless --allow-live-writes, every invented
// identifier under the run's prefix, the records the run left listed with where they are, returns withdrawn after
// the run, and credentials the server refuses stopped before any case (exit 2).
import { operations, loadSpec } from '@cls-api/spec';
import { afterEach, describe, expect, test } from 'vitest';
import { formatSummary, runContractTests } from '../src/index.js';
import { Contract } from '../src/contract/contract.js';
import { UsageError } from '../src/plan/credentials.js';
import { LIVE_READ_ONLY } from '../src/plan/environment.js';
import { RECORD_PREFIX_ROOT } from '../src/run/records.js';
import { startFake, type FakeServer } from './support/fake-server.js';
import { describeFailures, kitOptions, runKit } from './support/run.js';

let fake: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const publicPaths = new Set(
  operations(loadSpec())
    .filter((o) => o.security.length === 0)
    .map((o) => o.path),
);

function liveOptions(f: FakeServer) {
  return {
    apiKeys: Object.values(f.liveKeys.primary),
    otherApiKeys: Object.values(f.liveKeys.other),
    clientId: f.liveClient.id,
    clientSecret: f.liveClient.secret,
  };
}

describe('environments', () => {
  test('a live key is read-only: no request but GET (and the public token requests), the writing cases listed', async () => {
    fake = await startFake({ gateway: 'off' });
    const report = await runKit(fake, liveOptions(fake));
    const writes = fake.log.filter((l) => l.method !== 'GET');
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
    expect([...fake.accounts.primary.products.keys()]).toEqual(['SEED-01']);
    expect(fake.accounts.primaryLive.products.size).toBe(0);
  });

  test('with --allow-live-writes the writing cases run, in the live world only', async () => {
    fake = await startFake({ gateway: 'off' });
    const report = await runKit(fake, { ...liveOptions(fake), allowLiveWrites: true, phases: ['workflows'] });
    expect(fake.log.some((l) => l.method === 'POST' && !publicPaths.has(l.path))).toBe(true);
    expect(report.cases.some((c) => c.skipReason === LIVE_READ_ONLY)).toBe(false);
    expect(report.environment).toEqual({ name: 'live', writes: true });
    expect(fake.accounts.primaryLive.products.size).toBeGreaterThan(0);
    expect(fake.accounts.primaryLive.orders.length).toBeGreaterThan(0);
    expect([...fake.accounts.primary.products.keys()]).toEqual(['SEED-01']);
    expect(report.records?.environment).toBe('live');
    expect(formatSummary(report)).toMatch(/Records: left \d+ records \(live environment/);
  });

  test('credentials of different environments are a usage error naming each, never a secret', async () => {
    fake = await startFake({ gateway: 'off' });
    const run = runContractTests(
      kitOptions(fake, { clientId: fake.liveClient.id, clientSecret: fake.liveClient.secret }),
    );
    await expect(run).rejects.toThrow(UsageError);
    const message = await run.catch((err: Error) => err.message);
    expect(message).toContain('$CLS_CLIENT_ID (cli_live_…)');
    expect(message).toContain('$CLS_API_KEY_WMS (wms_test_…)');
    expect(message).toContain('$CLS_OTHER_API_KEY_CAM (cam_test_…)');
    for (const secret of [fake.liveClient.id, fake.liveClient.secret, ...Object.values(fake.keys.primary)])
      expect(message).not.toContain(secret);
    const otherLive = runContractTests(kitOptions(fake, { otherApiKeys: Object.values(fake.liveKeys.other) }));
    await expect(otherLive).rejects.toThrow(/different environments/);
    expect(fake.requests).toBe(0);
  });
});

describe('records', () => {
  test('every identifier the kit chose starts with the run prefix, and the summary lists what was left and where', async () => {
    fake = await startFake({ gateway: 'off' });
    const report = await runKit(fake);
    expect(describeFailures(report)).toBe('');
    const records = report.records!;
    expect(records.prefix).toMatch(new RegExp(`^${RECORD_PREFIX_ROOT}[A-Z0-9]+-$`));
    const acc = fake.accounts.primary;
    // The isolation check leaves one product and one order in the other seller's test world too.
    const other = fake.accounts.other;
    const products = [...acc.products.keys(), ...other.products.keys()].filter((c) => c !== 'SEED-01');
    const mallOrderNos = [...acc.orders, ...other.orders]
      .filter((o) => o.order_no !== 'ORD-SEED-0001')
      .map((o) => String(o.mall_order_no));
    const draftNos = [...acc.drafts.values()].map((d) => String(d.mall_order_no));
    const optionCodes = [...acc.options.values()].flatMap((m) => [...m.keys()]);
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
    const withdrawn = [...acc.returns.values()].filter((r) => r.status === 'withdrawn').length;
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

  test('a return the run registered is withdrawn after the run', async () => {
    fake = await startFake({ gateway: 'off' });
    // The server holds the order the request example names, so the example registers a return.
    fake.accounts.primary.orders.push({ ...fake.accounts.primary.orders[0]!, order_no: exampleOrderNo() });
    const report = await runKit(fake, { operations: ['registerReturn'], phases: ['examples'] });
    const returns = [...fake.accounts.primary.returns.values()];
    expect(returns.length).toBe(1);
    expect(returns[0]!.status).toBe('withdrawn');
    const kind = report.records!.kinds.find((k) => k.kind === 'returns');
    expect(kind).toMatchObject({ removal: 'cancelReturn', created: 1, removed: 1, left: 0 });
    expect(formatSummary(report)).toContain('removed 1: returns 1 (cancelReturn)');
  });

  test('a return the server will not let go stays, listed with the reason', async () => {
    fake = await startFake({ gateway: 'off', returnWindowClosed: true });
    fake.accounts.primary.orders.push({ ...fake.accounts.primary.orders[0]!, order_no: exampleOrderNo() });
    const report = await runKit(fake, { operations: ['registerReturn'], phases: ['examples'] });
    expect([...fake.accounts.primary.returns.values()][0]!.status).toBe('requested');
    const kind = report.records!.kinds.find((k) => k.kind === 'returns');
    expect(kind).toMatchObject({ left: 1, removed: 0, why: 'cancelReturn answered 400 RETURN_CANCEL_EXPIRED' });
    expect(formatSummary(report)).toContain('returns 1 (wms, registerReturn)');
  });

  test('against a mock (--examples-only) nothing is noted or removed: its answers are the examples', async () => {
    fake = await startFake({ gateway: 'off' });
    fake.accounts.primary.orders.push({ ...fake.accounts.primary.orders[0]!, order_no: exampleOrderNo() });
    const report = await runKit(fake, { operations: ['registerReturn'], examplesOnly: true });
    expect([...fake.accounts.primary.returns.values()].map((r) => r.status)).toEqual(['requested']);
    expect(fake.log.some((l) => l.path.endsWith('/cancel'))).toBe(false);
    expect(report.records?.created).toBe(0);
    expect(formatSummary(report)).not.toContain('Records:');
  });
});

describe('credentials the server refuses', () => {
  test('a wrong key: exit 2 before any case, naming the key by its variable', async () => {
    fake = await startFake({ gateway: 'off' });
    const wrong = 'wms_test_wrongwrongwrongwrong';
    const report = await runKit(fake, { apiKeys: [wrong, fake.keys.primary.manager!, fake.keys.primary.cam!] });
    expect(report.exitCode).toBe(2);
    expect(report.stoppedBy).toBe('credentials');
    expect(report.cases).toEqual([]);
    expect(report.error).toContain('$CLS_API_KEY_WMS (wms_test_…)');
    expect(report.error).toContain('answered 401 AUTH_INVALID_TOKEN');
    expect(report.error).not.toContain('$CLS_API_KEY_MANAGER');
    expect(JSON.stringify(report)).not.toContain(wrong);
    // A known test key was checked where it costs no quota: a 403 on another area.
    expect(fake.accounts.primary.used).toBe(0);
  });

  test('wrong client credentials: exit 2, naming them, never the secret', async () => {
    fake = await startFake({ gateway: 'off' });
    const secret = 'wrongsecretwrongsecret';
    const report = await runKit(fake, { clientSecret: secret });
    expect(report.exitCode).toBe(2);
    expect(report.error).toContain('$CLS_CLIENT_ID / $CLS_CLIENT_SECRET');
    expect(report.error).not.toContain(secret);
  });

  test('live keys of an account whose subscription ended (403 on their own area): exit 2', async () => {
    fake = await startFake({ gateway: 'off', subscriptionEnded: true });
    const report = await runKit(fake, { ...liveOptions(fake), clientId: undefined, clientSecret: undefined });
    expect(report.exitCode).toBe(2);
    expect(report.error).toContain('$CLS_API_KEY_WMS (wms_live_…): GET /v3/wms/');
    expect(report.error).toContain('403 AUTH_FORBIDDEN');
  });

  test('the keys a server takes pass the check without spending any quota', async () => {
    fake = await startFake({ gateway: 'off' });
    const report = await runKit(fake, { phases: ['paging'], tags: ['WMS suppliers'] });
    expect(report.exitCode).toBe(0);
    const checks = fake.log.slice(0, 8);
    expect(checks.filter((l) => l.status === 403).length).toBe(6);
  });
});
