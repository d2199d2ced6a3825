// The core proof of the kit: for every check, a server that breaks exactly that rule is caught by that check, and
// the same run against the server without the fault passes. The server is the reference server, and each fault is
// planted in front of it at one place (support/fault-proxy.ts). A fault that breaks only a design of ours (an
// `x-provisional` constraint) is a provisional departure of that check: the run passes and lists it; under
// --strict-provisional the check fails.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { CHECKS, type ExitCode, type Phase, type RunOptions } from '../src/index.js';
import { FAULTS, type Fault } from './support/fault-proxy.js';
import { describeDepartures, describeFailures, failedChecks, runKit } from './support/run.js';
import { referenceServers, type ServerOptions, type TestServer } from './support/servers.js';
import { onVirtualTime } from './support/virtual-time.js';

interface FaultCase {
  /** The check that must catch the fault. */
  check: string;
  /** Other checks the same fault may also trip (a consequence of the one broken rule). */
  alsoAllowed?: string[];
  /** The smallest run that exercises the rule. */
  run: Partial<RunOptions> & { phases?: Phase[] };
  server?: Omit<ServerOptions, 'faults'>;
  /** The rule is a design in the contract (`x-provisional`): a departure, failed only by --strict-provisional. */
  provisional?: true;
  /**
   * The exit code of the correct server's run when not 0: a quota used up before the run leaves every case skipped,
   * which is exit 3 (the budget ran out before the first case, src/report/exit-codes.ts).
   */
  correctExitCode?: ExitCode;
  /**
   * The instant both the kit and the server take as now (their Date only; timers stay real and the clock runs on),
   * for a rule that depends on the service time of day.
   */
  at?: string;
}

/** The usual case: the rule is met by one phase's cases about one operation. */
function on(check: string, operation: string, phase: Phase, more: Omit<FaultCase, 'check' | 'run'> = {}): FaultCase {
  return { check, run: { operations: [operation], phases: [phase] }, ...more };
}

/** The gateway probes against the contract's own gateway, on the virtual clock. */
function probe(check: string): FaultCase {
  return { check, run: { phases: ['probes'], probeLimits: true, paceFraction: 0.5 }, server: { gateway: 'contract' } };
}

/** A body the server cannot read, sent to a public operation and a keyed one: the 500 shows in any of these checks. */
function badBody(): FaultCase {
  return {
    check: 'no_server_error',
    alsoAllowed: [
      'status_documented',
      'error_code_documented',
      'expected_outcome',
      'error_message_for_users',
      'schema_valid',
    ],
    run: { phases: ['negative'], operations: ['createAccessToken', 'createProduct'] },
  };
}

/** The seller's orders in its test world, as the service holds them. */
async function ordersOf(s: TestServer, who: 'primary' | 'other'): Promise<number> {
  return (await s.store.listOrders(s.owner(who), {}, { offset: 0, limit: 1 })).total;
}

const CASES: Record<Fault, FaultCase> = {
  status_undocumented: {
    check: 'status_documented',
    alsoAllowed: ['expected_outcome'],
    run: { operations: ['createProduct'], phases: ['workflows', 'generated'] },
  },
  content_type_text: on('content_type_json', 'getWmsOrder', 'negative'),
  // Order is designed, additionalProperties included (spec/components/schemas/Order.yaml).
  schema_extra_field: on('schema_valid', 'getWmsOrder', 'workflows', { provisional: true }),
  schema_wrong_type: on('schema_valid', 'getWmsOrder', 'workflows'),
  // The supplier list's shared parameters are proven by the product list before it: its own success must still be
  // asked for and judged.
  supplier_list_data_object: {
    check: 'schema_valid',
    run: { operations: ['listWmsProducts', 'listSuppliers'], phases: ['generated'] },
  },
  // No case but the order raised beyond stock has an order of its own to change.
  order_update_ignored: on('expected_outcome', 'updateWmsOrder', 'workflows'),
  // No case but the return's withdrawal has a return to read (the read is one call of that case, run for cancelReturn).
  return_read_status_number: on('schema_valid', 'cancelReturn', 'workflows'),
  // Only a shipped order's invoice has videos the kit can ask for; no video is the source's 404, never an empty list.
  invoice_videos_empty: on('expected_outcome', 'listInvoiceVideos', 'workflows'),
  // The camera area's records are the seller's too: another seller's key never sees them (DECISIONS G9).
  videos_leak: on('seller_isolation', 'listInvoiceVideos', 'workflows'),
  // The tool call is designed (x-provisional on callMcpTool).
  mcp_tool_result_other_tool: on('tool_result_of_tool', 'callMcpTool', 'workflows', { provisional: true }),
  // A successful draft row with an empty draft_id: the two shapes are the source's (DraftResult.yaml).
  draft_row_shapes_mixed: on('schema_valid', 'registerDraftOrders', 'workflows'),
  envelope_not_first: on('envelope_first_field', 'listSuppliers', 'paging'),
  success_flag_wrong: on('success_matches_status', 'getWmsProduct', 'negative', { alsoAllowed: ['schema_valid'] }),
  error_code_undocumented: on('error_code_documented', 'getWmsOrder', 'negative', {
    alsoAllowed: ['expected_outcome'],
  }),
  ratelimit_placeholder: on('ratelimit_headers_integers', 'listSuppliers', 'paging'),
  quota_headers_on_401: on('headers_documented', 'listSuppliers', 'negative', {
    alsoAllowed: ['quota_headers_consistent'],
  }),
  // A JWT call has no monthly quota (the manager area takes one, spec/components/securitySchemes/BearerAuth.yaml).
  quota_headers_for_jwt: on('quota_headers_consistent', 'listManagerOrders', 'workflows'),
  quota_limit_wrong: on('quota_headers_consistent', 'listSuppliers', 'paging'),
  quota_429_remaining_nonzero: {
    check: 'quota_429_headers',
    run: { operations: ['listSuppliers'], phases: ['paging'] },
    server: { quotaUsedAtStart: 1000 },
    correctExitCode: 3,
  },
  gateway_429_with_headers: {
    check: 'gateway_429_headers',
    run: { operations: ['listSuppliers'], phases: ['paging', 'generated'] },
    // Every 3rd request is a gateway 429, on a machine of any speed (a time-based bucket met none when busy).
    server: { gateway: { every: 3 } },
  },
  pagination_has_next_wrong: on('pagination_consistent', 'listSuppliers', 'paging', {
    alsoAllowed: ['pagination_across_pages'],
  }),
  pagination_total_drift: on('pagination_across_pages', 'listSuppliers', 'paging', {
    alsoAllowed: ['pagination_consistent'],
  }),
  server_error_on_invalid_query: {
    check: 'no_server_error',
    alsoAllowed: ['expected_outcome'],
    run: { operations: ['listSuppliers'], phases: ['generated', 'negative'], runs: 8 },
  },
  // The example's quantity 0 breaks Quantity's designed minimum.
  invalid_example_accepted: on('expected_outcome', 'registerDraftOrders', 'examples', { provisional: true }),
  missing_credential_wrong_code: on('expected_outcome', 'listSuppliers', 'negative'),
  api_key_on_pay_accepted: on('expected_outcome', 'listDeposits', 'negative'),
  wrong_area_key_accepted: on('expected_outcome', 'listManagerOrders', 'negative'),
  // A valid key of another area answered 401: the credential check finds the key works on its own area.
  wrong_area_key_401: on('expected_outcome', 'listSuppliers', 'negative'),
  // Every metered call counted twice against the month.
  quota_counted_twice: on('quota_counted', 'listSuppliers', 'paging'),
  // A token past its life (CLS_EXPIRED_TOKEN) still taken.
  expired_token_accepted: on('expected_outcome', 'listDeposits', 'negative'),
  // A body that is not JSON, or JSON that is not an object: a 500 instead of 400, whatever the seed.
  server_error_on_bad_json: badBody(),
  server_error_on_json_array: badBody(),
  manager_jwt_refused: {
    check: 'expected_outcome',
    run: { operations: ['getManagerProduct'], phases: ['negative', 'workflows'] },
  },
  // The Size parameter is x-provisional: the source shows no bound.
  size_unbounded: on('expected_outcome', 'listSuppliers', 'negative', {
    provisional: true,
    alsoAllowed: ['schema_valid', 'pagination_consistent'],
  }),
  unknown_resource_200: on('expected_outcome', 'getWmsProduct', 'negative', { alsoAllowed: ['schema_valid'] }),
  // OrderBulkRequest's row limit is designed (the source states 1,000 rows for drafts only).
  bulk_limit_off_by_one: on('bulk_row_limit', 'registerOrders', 'bulk', {
    provisional: true,
    alsoAllowed: ['bulk_nothing_registered', 'schema_valid'],
  }),
  bulk_bad_row_registers_good_rows: on('bulk_nothing_registered', 'registerDraftOrders', 'bulk'),
  bulk_rows_reordered: on('bulk_rows_in_order', 'registerDraftOrders', 'workflows', { alsoAllowed: ['read_back'] }),
  bulk_counts_wrong: on('bulk_counts', 'registerDraftOrders', 'workflows'),
  read_back_mismatch: on('read_back', 'registerDraftOrders', 'workflows'),
  shipped_order_modifiable: on('shipped_order_unmodifiable', 'updateWmsOrder', 'workflows'),
  seller_leak: on('seller_isolation', 'listManagerOrders', 'workflows'),
  // Read-only (a live key): the workflow that registers an order is left out, and the seller's own order is read.
  order_read_leak: {
    check: 'seller_isolation',
    run: { readOnly: true, operations: ['getWmsOrder'], phases: ['workflows'] },
  },
  // Only a JWT on the manager area sees another seller's orders: the keys keep them apart.
  seller_leak_jwt: on('seller_isolation', 'listManagerOrders', 'workflows', { alsoAllowed: ['expected_outcome'] }),
  // Both sellers have a product under one code (read-only: the run reads the seller's own codes): the other seller's
  // read answered with the seller's product is caught by its fields, not by a 404 the server need not give.
  shared_code_leak: {
    check: 'seller_isolation',
    run: { readOnly: true, operations: ['getWmsProduct'], phases: ['workflows'] },
    server: { demo: 'both' },
  },
  // A server that does not authenticate (a mock): the credential cases fail, explained once (authentication.test.ts).
  accepts_any_key: {
    check: 'expected_outcome',
    // The made-up key taken as a test key is metered like one.
    alsoAllowed: ['quota_headers_consistent'],
    run: { operations: ['listSuppliers', 'listDeposits'], phases: ['negative'] },
  },
  no_gateway_limit: probe('rate_limit_probe'),
  // A gateway that limits, but with a smaller burst allowance, or a slower rate, than the contract's.
  gateway_burst_small: probe('rate_limit_probe'),
  gateway_rate_slow: probe('rate_limit_probe'),
  // The product is written with the wms key and read with the manager key: two keys of one seller.
  quota_per_key: on('quota_one_allowance', 'getManagerProduct', 'workflows'),
  quota_reset_utc: on('quota_headers_consistent', 'listSuppliers', 'paging', { alsoAllowed: ['quota_429_headers'] }),
  gateway_429_held: {
    check: 'gateway_429_immediate',
    run: { operations: ['listSuppliers'], phases: ['paging'] },
    server: { gateway: { every: 3 } },
  },
  times_in_utc: on('service_time', 'createProduct', 'workflows'),
  // The draft row's echo of mall_product_name is the source's (DraftResult.yaml).
  echo_normalized: on('bulk_rows_in_order', 'registerDraftOrders', 'workflows'),
  error_message_stack: on('error_message_for_users', 'getWmsProduct', 'negative'),
  option_not_found_as_product: on('error_code_reached', 'getProductOption', 'workflows'),
  inventory_unchecked: on('error_code_reached', 'updateWmsOrder', 'workflows'),
  domain_code_wrong_status: on('error_code_reached', 'updateWmsOrder', 'workflows', {
    alsoAllowed: ['error_code_documented'],
  }),
  // ORDER_DRAFT_NOT_FOUND is a warehouse code (x-areas), answered here on the manager area.
  domain_code_wrong_area: on('error_code_documented', 'getManagerOrder', 'negative', {
    alsoAllowed: ['expected_outcome'],
  }),
  // Requests over the limit held until the bucket refills: never a 429, so only their wait shows it.
  gateway_throttles: probe('gateway_429_immediate'),
  // Registered and withdrawn at 10:00 service time (01:00 UTC): the window is open until 18:00 by the source's rule.
  return_window_closed: on('expected_outcome', 'cancelReturn', 'workflows', { at: '2026-11-24T01:00:00Z' }),
  deposits_empty_404: on('expected_outcome', 'listDeposits', 'workflows', {
    alsoAllowed: ['status_documented', 'schema_valid'],
  }),
};

/** The faults whose check caught them in this file's run: the battery's `caught / planted`. */
const caught = new Set<Fault>();
const README = new URL('../README.md', import.meta.url);

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runWith(faults: Fault[], c: FaultCase) {
  if (c.at && c.server?.gateway === 'contract')
    throw new Error('a pinned service time and the virtual clock do not mix');
  if (c.at) vi.useFakeTimers({ toFake: ['Date'], now: new Date(c.at), shouldAdvanceTime: true });
  try {
    server = await servers.start({ ...c.server, faults });
    // The contract's gateway refills by the clock: on the virtual one, whatever the machine's speed (virtual-time.ts).
    const report =
      c.server?.gateway === 'contract'
        ? await onVirtualTime(() => runKit(server!, c.run))
        : await runKit(server, c.run);
    await server.close();
    server = undefined;
    return report;
  } finally {
    if (c.at) vi.useRealTimers();
  }
}

test('every planted fault has a case, and every response and case check is proven by one', () => {
  expect(Object.keys(CASES).sort()).toEqual([...FAULTS].sort());
  const proven = new Set(Object.values(CASES).map((c) => c.check));
  // Checks not proven by a fault here are proven elsewhere: mock_example_served in mock.test.ts.
  const unproven = CHECKS.map((c) => c.name).filter((name) => !proven.has(name) && name !== 'mock_example_served');
  expect(unproven).toEqual([]);
});

test("the kit README states the battery's figure: every planted fault caught", () => {
  const figure = /Fault battery: \*\*(\d+) caught \/ (\d+) planted\*\*/.exec(readFileSync(README, 'utf8'));
  expect(figure?.slice(1).map(Number)).toEqual([FAULTS.length, FAULTS.length]);
});

const provisional = (Object.entries(CASES) as Array<[Fault, FaultCase]>).filter(([, c]) => c.provisional);
describe.each(provisional)('fault %s, which breaks a design only', (fault, c) => {
  test(`is a ${c.check} departure: the run passes and lists it under provisional`, async () => {
    const report = await runWith([fault], c);
    expect(describeFailures(report)).toBe('');
    expect(report.exitCode).toBe(0);
    expect(
      report.departures.map((d) => d.check),
      describeDepartures(report),
    ).toContain(c.check);
    expect(report.checks.find((x) => x.name === c.check)?.departed ?? 0).toBeGreaterThan(0);
  });
});

describe.each(Object.entries(CASES) as Array<[Fault, FaultCase]>)('fault %s', (fault, c) => {
  test(`the correct server passes the same run, and ${c.check} is evaluated`, async () => {
    const report = await runWith([], c);
    expect(describeFailures(report)).toBe('');
    expect(describeDepartures(report)).toBe('');
    expect(report.exitCode).toBe(c.correctExitCode ?? 0);
    expect(report.checks.find((x) => x.name === c.check)?.evaluated ?? 0).toBeGreaterThan(0);
  });

  test(`${c.check} catches it${c.provisional ? ' under --strict-provisional' : ''}, and nothing unrelated fails`, async () => {
    const report = await runWith([fault], {
      ...c,
      run: { ...c.run, ...(c.provisional ? { strictProvisional: true } : {}) },
    });
    const checks = failedChecks(report);
    expect([...checks], describeFailures(report)).toContain(c.check);
    const allowed = new Set([c.check, ...(c.alsoAllowed ?? [])]);
    expect(
      [...checks].filter((x) => !allowed.has(x)),
      describeFailures(report),
    ).toEqual([]);
    expect(report.exitCode).toBe(1);
    // Every failure names its operation and, where a request was made, how to reproduce it.
    for (const f of report.cases.flatMap((x) => x.failures)) {
      expect(f.operation).not.toBe('');
      if (f.status !== undefined) expect(f.curl).toMatch(/^curl /);
    }
    caught.add(fault);
  });
});

test('a return registered after the deadline time and refused at once departs from our design only (G13)', async () => {
  // 19:00 service time (10:00 UTC): the source's window of the day has closed; the next day's is our design.
  const report = await runWith(['return_window_closed'], { ...CASES.return_window_closed, at: '2026-11-24T10:00:00Z' });
  expect(describeFailures(report)).toBe('');
  expect(report.exitCode).toBe(0);
  expect(report.departures.map((d) => `${d.check} ${d.operation}`)).toEqual(['expected_outcome cancelReturn']);
  // The run met the code: the report lists it as reached.
  expect(report.errorCodes.find((c) => c.code === 'RETURN_CANCEL_EXPIRED')?.reached).toMatchObject({
    status: 400,
    area: 'wms',
  });
});

test("a JWT that sees another seller's orders is caught with the other seller's JWT, registering nothing for it", async () => {
  // Given the other seller's client credentials, the kit reads the seller's order with the other seller's JWT instead
  // of registering an order with the other seller's keys (two metered calls) to read with the seller's JWT.
  server = await servers.start({ faults: ['seller_leak_jwt'] });
  const othersOrders = await ordersOf(server, 'other');
  const report = await runKit(server, {
    ...CASES.seller_leak_jwt.run,
    otherClientId: server.otherClient.id,
    otherClientSecret: server.otherClient.secret,
  });
  expect([...failedChecks(report)], describeFailures(report)).toContain('seller_isolation');
  expect(await ordersOf(server, 'other')).toBe(othersOrders);
});

// Runs last (tests of a file run in order): the figure the README states.
test('the fault battery catches every planted fault', () => {
  const missed = FAULTS.filter((f) => !caught.has(f));
  console.log(`fault battery: ${caught.size} caught / ${FAULTS.length} planted`);
  expect(missed).toEqual([]);
});

test("the return window is judged on the service's clock, not the kit's", async () => {
  // The kit's clock reads 17:57 service time; the server's reads 17:59:59 until the return is registered and
  // 18:00:01 from then on: the deadline passed in between on the service's clock, and the server rightly refuses the
  // withdrawal. Judged on the kit's clock (before 18:00), that refusal would be a failure.
  vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-24T08:57:00Z'), shouldAdvanceTime: true });
  try {
    const started = await servers.start();
    server = started;
    const registered = () =>
      started.log.some((l) => l.method === 'POST' && l.path === '/v3/wms/returns' && l.status === 200);
    started.clock.at = () => new Date(registered() ? '2026-11-24T09:00:01Z' : '2026-11-24T08:59:59Z');
    const report = await runKit(started, { operations: ['cancelReturn'], phases: ['workflows'] });
    expect(describeFailures(report)).toBe('');
    expect(describeDepartures(report)).toBe('');
    expect(report.exitCode).toBe(0);
    const withdrawal = report.cases.find((c) => c.id === 'workflows/codes/RETURN_CANCEL_EXPIRED/cancelReturn');
    expect(withdrawal?.notes.join('\n')).toMatch(
      /registered at 2026-11-24 17:59:59, withdrawn at once: the deadline 2026-11-24 18:00:00 passed in between; not judged/,
    );
  } finally {
    vi.useRealTimers();
  }
});
