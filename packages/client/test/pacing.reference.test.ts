// Default pacing against the reference server's own gateway limit (its token bucket per source address, at the
// contract's 30/s burst 50): a server of its own, so that no other test's traffic shares its bucket. A machine slow
// as a whole cannot make this fail: requests then leave later, and the gateway refills in the meantime. Speed cannot
// either: the pacer stays a margin under the limit (src/pacing.ts), so requests that leave exactly on schedule still
// find a token when they arrive. What the margin absorbs is bunching, requests that left on schedule and are metered
// together: at the start of the burst that room is 10 requests (the pacer's 40 against the gateway's 50), so the
// server alone stalled for more than 0.4 s (10 requests at 24/s) while the client kept sending would meet a 429.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/index.js';
import { keyOf, startReference, type DemoAccount, type ReferenceServer } from '@cls-api/test-servers';

let reference: ReferenceServer;

beforeAll(async () => {
  // Without retries (below), a GET sent on a kept-alive connection at the moment the server's connection cap closes
  // it as idle would be an error here, where a client with its default retries would resend it. On a loaded
  // machine slow answers make the client open more connections than the cap: this test is about the gateway
  // limit, so the cap is lifted.
  reference = await startReference({ from: import.meta.url, env: { MAX_CONNECTIONS_PER_ADDRESS: '100000' } });
}, 300_000);

afterAll(async () => {
  await reference?.close();
});

describe('default pacing against the reference gateway limit', () => {
  it('500 calls fired at once through three clients meet no gateway 429', async () => {
    const seller = reference.accounts[0] as DemoAccount;
    const statuses: number[] = [];
    const counting = async (request: Request) => {
      const response = await fetch(request);
      statuses.push(response.status);
      return response;
    };
    // Live keys, so that 500 calls do not run into a test key's monthly quota; no retries, so that a gateway 429
    // would be seen rather than retried away.
    const clients = (['manager', 'wms', 'manager'] as const).map((area) =>
      createClient({ baseUrl: reference.baseUrl, apiKey: keyOf(seller, area, 'live'), retry: false, fetch: counting }),
    );
    const calls = Array.from({ length: 500 }, (_, i) => {
      const client = clients[i % 3]!;
      return i % 3 === 1
        ? client.GET('/v3/wms/suppliers', {}).then((r) => r.response.status)
        : client.GET('/v3/manager/orders', { params: { query: { size: 1 } } }).then((r) => r.response.status);
    });
    const results = await Promise.all(calls);
    expect(statuses).toHaveLength(500);
    expect(results.filter((s) => s === 429)).toEqual([]);
    expect(results.every((s) => s === 200)).toBe(true);
  }, 600_000);
});
