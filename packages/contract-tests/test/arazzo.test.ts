// The Arazzo workflows of spec/arazzo/, run with `redocly respect`: they pass against a server that honours the
// contract and fail against one that breaks the rule a workflow describes.
import { afterEach, describe, expect, test } from 'vitest';
import type { Fault } from './support/fault-proxy.js';
import { redoclyBin, respect } from './support/respect.js';
import { referenceServers, type TestServer } from './support/servers.js';

const servers = referenceServers();
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runWorkflows(faults: Fault[] = [], workflows: string[] = []) {
  server = await servers.start({ faults });
  const runId = `RUN${Date.now().toString(36).toUpperCase()}`;
  return respect(
    ['--server', `cls=${server.url}`, '--input', `run_id=${runId}`, ...workflows.flatMap((w) => ['--workflow', w])],
    {
      CLS_API_KEY_WMS: server.keys.primary.wms!,
      CLS_API_KEY_MANAGER: server.keys.primary.manager!,
      CLS_OTHER_API_KEY_MANAGER: server.keys.other.manager!,
    },
  );
}

describe('redocly respect on spec/arazzo/contract-workflows.arazzo.yaml', () => {
  test('@redocly/cli is available (dev dependency of @cls-api/spec)', () => {
    expect(redoclyBin()).toBeDefined();
  });

  test('every workflow passes against a server that honours the contract', async () => {
    const { code, output } = await runWorkflows();
    expect(output).toMatch(/draftOrdersReadBack/);
    expect(output).toMatch(/sellerIsolation/);
    expect(code, output).toBe(0);
  });

  test.each([
    ['shipped_order_modifiable', 'shippedOrderCannotBeModified'],
    ['bulk_rows_reordered', 'mixedBulkRows'],
    ['bulk_counts_wrong', 'mixedBulkRows'],
    ['read_back_mismatch', 'draftOrdersReadBack'],
    ['seller_leak', 'sellerIsolation'],
  ] as Array<[Fault, string]>)('with fault %s, workflow %s fails', async (fault, workflow) => {
    const { code, output } = await runWorkflows([fault], [workflow]);
    expect(code, output).not.toBe(0);
    expect(server!.hits, `the workflow never met the planted fault ${fault}`).toBeGreaterThan(0);
  });
});
