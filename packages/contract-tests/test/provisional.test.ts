// Provisional departures: a server that is right where one of our designs guessed otherwise (an `x-provisional`
// bound, a value outside `x-known-values`) passes, and the kit lists what it did apart from failures, in every
// report; `strictProvisional` turns them into failures. What the source shows stays a failure.
import { afterEach, describe, expect, test } from 'vitest';
import { Contract, formatSummary, toJUnit } from '../src/index.js';
import { describeDepartures, describeFailures, failedChecks, runKit } from './support/run.js';
import { referenceServers, type TestServer } from './support/servers.js';

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a draft row with a status the contract does not know ("confirmed")', () => {
  const run = { phases: ['workflows' as const], operations: ['registerDraftOrders'] };

  test('passes (exit 0) and is listed as a schema_valid departure, in the console, JSON and JUnit', async () => {
    server = await servers.start({ draftStatus: 'confirmed' });
    const report = await runKit(server, run);
    expect(describeFailures(report)).toBe('');
    expect(report.exitCode).toBe(0);
    const departure = report.departures.find(
      (d) => d.check === 'schema_valid' && d.operation === 'registerDraftOrders',
    );
    expect(departure, describeDepartures(report)).toBeDefined();
    expect(departure!.seen).toContain("status 'confirmed' is not a known value ('open', '')");
    expect(departure!.curl).toMatch(/^curl /);
    expect(report.totals.departures).toBe(report.departures.length);
    expect(report.checks.find((c) => c.name === 'schema_valid')!.departed).toBe(report.totals.departures);

    const summary = formatSummary(report);
    expect(summary).toMatch(
      /Provisional \(\d+ departures? from our designs, not failures; --strict-provisional counts them\)/,
    );
    expect(summary).toMatch(/\[schema_valid\] registerDraftOrders · \d+×/);
    expect(summary).toContain("is not a known value ('open', '')");

    const xml = toJUnit(report);
    const suite = /<testsuite name="provisional"[^>]*>([\s\S]*?)<\/testsuite>/.exec(xml);
    expect(suite, xml).not.toBeNull();
    expect(suite![0]).toMatch(/tests="\d+" failures="0" skipped="\d+"/);
    expect(suite![1]).toContain(
      '<testcase classname="provisional.schema_valid" name="schema_valid · registerDraftOrders"',
    );
    expect(suite![1]).toMatch(/<skipped message="\d+× only a design of ours refuses it/);
    expect(suite![1]).toContain(`<property name="departures" value="${report.totals.departures}"/>`);
    expect(suite![1]).not.toContain('<failure');
    expect(xml).not.toContain('<failure');
  });

  test('fails (exit 1) with strictProvisional: the departure is a schema_valid failure', async () => {
    server = await servers.start({ draftStatus: 'confirmed' });
    const report = await runKit(server, { ...run, strictProvisional: true });
    expect(report.exitCode).toBe(1);
    expect([...failedChecks(report)]).toEqual(['schema_valid']);
    expect(describeFailures(report)).toContain('--strict-provisional');
    expect(report.departures.length).toBeGreaterThan(0);
    expect(formatSummary(report)).toContain('counted as failures: --strict-provisional');
  });

  test('the same row shapes the source states stay failures: a success with an empty draft_id fails schema_valid', async () => {
    server = await servers.start({ faults: ['draft_row_shapes_mixed'] });
    const report = await runKit(server, run);
    expect(report.exitCode).toBe(1);
    expect(failedChecks(report).has('schema_valid'), describeFailures(report)).toBe(true);
    expect(describeFailures(report)).toContain('draft_id must NOT have fewer than 1 characters');
  });
});

describe('identifiers as sellers write them', () => {
  test('a server that takes an over-long product code passes; taking it is a departure, not a failure', async () => {
    // Its identifiers may be 1,000 characters long: right, where our 100 is a guess (Identifier.yaml).
    server = await servers.start({ longerIdentifiers: true });
    const report = await runKit(server, {
      phases: ['generated', 'negative'],
      operations: ['getWmsProduct', 'getManagerProduct'],
    });
    expect(describeFailures(report)).toBe('');
    expect(report.exitCode).toBe(0);
    const tooLong = report.departures.find((d) => d.case === 'generated/getWmsProduct/invalid');
    expect(tooLong, describeDepartures(report)).toBeDefined();
    expect(tooLong!.check).toBe('expected_outcome');
    expect(tooLong!.expected).toContain('path product_code: too long');
    expect(tooLong!.seen).toBe('HTTP 404 PRODUCT_NOT_FOUND');
    expect(tooLong!.reason).toContain('relaxed contract');
  });

  test('the same over-long code refused by a server that follows our design passes with no departure', async () => {
    server = await servers.start();
    const report = await runKit(server, {
      phases: ['generated', 'negative'],
      operations: ['getWmsProduct', 'getManagerProduct'],
    });
    expect(describeFailures(report)).toBe('');
    expect(describeDepartures(report)).toBe('');
  });

  test('unknown product codes with a dot, Hangul, a space or a slash are looked up: 404 PRODUCT_NOT_FOUND, never 400', async () => {
    server = await servers.start();
    const report = await runKit(server, { phases: ['negative'], tags: ['WMS products', 'Manager products'] });
    expect(describeFailures(report)).toBe('');
    const lookups = report.cases.filter((c) => c.id.endsWith('/unknown_resource'));
    expect(lookups.length).toBeGreaterThan(2);
    // Each names an identifier spelled as sellers spell theirs, and each got the not-found answer.
    const sent = server.log.filter((l) => l.status === 404).map((l) => decodeURIComponent(l.path));
    expect(
      sent.some((p) => /\/products\/(SKU\.|셔츠-|A B |A\/B )/.test(p)),
      sent.join('\n'),
    ).toBe(true);
    expect(server.log.filter((l) => l.status === 400 && /\/products\/[^/]*(%2F|%20|\.|%EC)/.test(l.path))).toEqual([]);
  });
});

describe('integer query parameters written other than in decimal digits (query_integer_syntax)', () => {
  test('1e1, Infinity, 1e309 … are sent and refused with 400 by a server that follows the syntax', async () => {
    server = await servers.start();
    const report = await runKit(server, { phases: ['generated'], operations: ['listSuppliers'], runs: 40 });
    expect(describeFailures(report)).toBe('');
    expect(describeDepartures(report)).toBe('');
    const notes = report.cases.flatMap((c) => c.notes).join('\n');
    for (const spelling of ['1e1', 'Infinity', '1e309', ' 10', '+10'])
      expect(notes).toContain(`${JSON.stringify(spelling)} is not written in decimal digits`);
  });

  test('a server that answers them with a 500 fails no_server_error', async () => {
    server = await servers.start({ faults: ['server_error_on_invalid_query'] });
    const report = await runKit(server, { phases: ['generated'], operations: ['listSuppliers'], runs: 40 });
    const failures = report.cases.flatMap((c) => c.failures).filter((f) => f.check === 'no_server_error');
    expect(
      failures.some((f) => /1e309|Infinity/.test(decodeURIComponent(f.curl ?? ''))),
      describeFailures(report),
    ).toBe(true);
  });
});

describe('inputs only a design refuses', () => {
  test('page and size out of their designed range, accepted by the server: departures of expected_outcome', async () => {
    server = await servers.start({ faults: ['size_unbounded'] });
    const report = await runKit(server, { phases: ['negative'], operations: ['listSuppliers'] });
    expect(report.exitCode, describeFailures(report)).toBe(0);
    const d = report.departures.find((x) => x.expected.includes('size=101'));
    expect(d, describeDepartures(report)).toBeDefined();
    expect(d!.reason).toContain('query parameter size is x-provisional');
  });

  test('which broken inputs are designs only is read from the marks, per input', () => {
    const contract = new Contract();
    const body = contract.operation('registerOrders').requestBody!.schema!;
    const row = {
      mall_order_no: 'M-1',
      mall_product_name: 'Shirt',
      product_code: 'SKU.001',
      quantity: 1,
      receiver_name: 'Kim',
      receiver_phone: '010-1234-5678',
      receiver_address: 'Seoul',
    };
    const withRow = (r: Record<string, unknown>) => ({ orders: [r] });
    expect(contract.validate(body, withRow(row))).toEqual([]);
    // Designed: Quantity's minimum, OrderRow's required list, Identifier's length.
    expect(contract.provisionalInput(body, withRow({ ...row, quantity: 0 }))).toBe(true);
    const { receiver_name: _dropped, ...missing } = row;
    expect(contract.provisionalInput(body, withRow(missing))).toBe(true);
    expect(contract.provisionalInput(body, withRow({ ...row, product_code: 'P'.repeat(101) }))).toBe(true);
    // The source's: a type.
    expect(contract.provisionalInput(body, withRow({ ...row, quantity: 'x' }))).toBe(false);
    expect(contract.provisionalInput(body, { orders: 'all of them' })).toBe(false);
    // A parameter marked x-provisional makes every value of it a design.
    const size = contract.operation('listSuppliers').parameters.find((p) => p.name === 'size')!;
    expect(contract.provisionalInput(size.schema, 'not-a-number', size)).toBe(true);
  });
});
