// Facts the kit reads from the contract model follow a copy of the contract: a third gateway limit is paced under,
// probed, and failed when a server does not hold it; the shipped order statuses are the ones the kit looks for.
import { afterEach, expect, test } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import { Contract } from '../src/index.js';
import { describeFailures, runKit } from './support/run.js';
import { referenceServers, registerOrder, type TestServer } from './support/servers.js';
import { onVirtualTime } from './support/virtual-time.js';

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function withWmsLimit() {
  const spec = loadSpec();
  (spec.info['x-limits'] as Record<string, unknown>).gateway_wms = {
    description: 'A tighter limit on the WMS area.',
    scope: 'source_ip',
    applies_to: '/v3/wms/',
    rate_per_second: 4,
    burst: 6,
  };
  return spec;
}

test('a third gateway limit in a copy of the contract: the kit paces under it and probes it', async () => {
  const spec = withWmsLimit();
  expect(new Contract(spec).gatewayScopes('/v3/wms/suppliers').map((g) => g.name)).toEqual(['gateway_wms', 'gateway']);
  // The reference holds the bundled contract's two limits; the proxy holds the third beside them. Each run meets fresh
  // buckets (a server's buckets keep the last run's virtual time).
  const third = new Contract(spec).limits.gateway.filter((g) => g.name === 'gateway_wms');
  const run = async (overrides: Parameters<typeof runKit>[1]) => {
    await server?.close();
    server = await servers.start({ gateway: 'contract', gatewayLimits: third });
    return onVirtualTime(() => runKit(server!, { spec, paceFraction: 0.5, backoffBaseMs: 1000, ...overrides }));
  };
  // Many calls on /v3/wms/ in a row: paced at half of 4 a second there, none meets the third limit.
  const paced = await run({ phases: ['negative'], operations: ['listSuppliers'] });
  expect(describeFailures(paced)).toBe('');
  expect(paced.requests.sent).toBeGreaterThan(2 * 6);
  expect(paced.requests.gatewayRetries).toBe(0);
  const probed = await run({ phases: ['probes'], probeLimits: true });
  expect(describeFailures(probed)).toBe('');
  expect(probed.cases.find((c) => c.id === 'probes/gateway_wms_burst')?.status).toBe('passed');
});

test("a server that holds only the bundled contract's limits fails the third limit's probe", async () => {
  const spec = withWmsLimit();
  server = await servers.start({ gateway: 'contract' });
  const report = await onVirtualTime(() =>
    runKit(server!, { spec, phases: ['probes'], probeLimits: true, paceFraction: 0.5, backoffBaseMs: 1000 }),
  );
  const probe = report.cases.find((c) => c.id === 'probes/gateway_wms_burst');
  expect(
    probe?.failures.map((f) => f.check),
    describeFailures(report),
  ).toContain('rate_limit_probe');
  expect(report.cases.filter((c) => c.id !== 'probes/gateway_wms_burst' && c.failures.length > 0)).toEqual([]);
});

test('the shipped order statuses are those of OrderStatusCode: a copy that lists only 40 finds no order shipped at 30', async () => {
  const run = async (spec: ReturnType<typeof loadSpec>) => {
    await server?.close();
    // One order, shipped: status 30.
    server = await servers.start({ demo: false });
    await server.ship(await registerOrder(server));
    const report = await runKit(server, { spec, phases: ['workflows'], operations: ['updateWmsOrder'] });
    return report.cases.find((c) => c.id === 'workflows/shipped_order_unmodifiable');
  };
  expect((await run(loadSpec()))?.status).toBe('passed');
  const spec = loadSpec();
  (spec.components!.schemas!.OrderStatusCode as Record<string, unknown>)['x-shipped-values'] = [40];
  const shippedAt40 = await run(spec);
  expect(shippedAt40?.status).toBe('skipped');
  expect(shippedAt40?.skipReason).toContain('no order with order_status_code 40');
});
