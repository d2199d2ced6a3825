// The client against the Prism mock of the contract (@cls-api/mock), over real HTTP. Scenarios are chosen with the
// `Prefer` header. Waits are virtual (injected timers), so the backoff is exercised without sleeping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOperation, loadSpec } from '@cls-api/spec';
import { startMock } from '@cls-api/mock';
import {
  ApiError,
  BulkChunkError,
  CredentialError,
  QuotaExceededError,
  apiErrorOf,
  createClient,
  type BulkRow,
  type ClientOptions,
} from '../src/index.js';
import { VirtualClock } from './support.js';

let mock: { url: string; close(): Promise<void> };
const lines: string[] = [];
/**
 * Whether the mock's monthly-quota scenario carries `Retry-After`. The mock sends a header only when the contract's
 * example declares it (`x-response-headers`); without it the scenario is, by the source's own rule, a gateway 429.
 */
let quotaScenarioHasRetryAfter = false;

beforeAll(async () => {
  mock = await startMock({ port: 0, onRequest: (line) => lines.push(line) });
  const probe = await fetch(`${mock.url}/v3/manager/orders`, {
    headers: { 'X-API-Key': 'manager_test_mock', Prefer: 'example=monthly_quota_exhausted' },
  });
  await probe.arrayBuffer();
  quotaScenarioHasRetryAfter = probe.status === 429 && probe.headers.has('Retry-After');
  if (!quotaScenarioHasRetryAfter) {
    console.warn(
      'mock: example=monthly_quota_exhausted has no Retry-After (the contract example lacks x-response-headers); the quota test is skipped',
    );
  }
});
afterAll(async () => {
  await mock?.close();
});

/** Requests that reached the mock while `fn` ran. */
async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; requests: string[] }> {
  const before = lines.length;
  const result = await fn();
  return { result, requests: lines.slice(before) };
}

function client(options: Partial<ClientOptions> = {}) {
  const clock = new VirtualClock();
  return {
    clock,
    client: createClient({ baseUrl: mock.url, apiKey: 'wms_test_mock', timers: clock, ...options }),
  };
}

const draftRows = () => {
  const example = findOperation(loadSpec(), 'post', '/v3/wms/orders/draft')!.requestBody!.examples.mixed_rows!
    .value as {
    orders: BulkRow<'registerDraftOrders'>[];
  };
  return example.orders;
};

describe('against the mock', () => {
  it('lists orders with typed data', async () => {
    const { client: c } = client({ apiKey: 'manager_test_mock' });
    const { data, error, response } = await c.GET('/v3/manager/orders', { params: { query: { page: 1, size: 10 } } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data!.success).toBe(true);
    expect(typeof data!.data[0]!.order_no).toBe('string');
    expect(data!.pagination.page).toBe(1);
  });

  it('pages a list driven by has_next', async () => {
    const { client: c } = client({ apiKey: 'manager_test_mock' });
    const { result: pages, requests } = await counted(async () => {
      const out = [];
      for await (const p of c.paginate('/v3/manager/orders', {
        headers: { Prefer: 'example=no_orders' },
        params: { query: { updated_after: '2026-11-20 09:00:00' } },
      }))
        out.push(p);
      return out;
    });
    expect(pages).toHaveLength(1);
    expect(pages[0]!.pagination.has_next).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('retries the gateway 429 (no Retry-After) with backoff, then gives up', async () => {
    const { client: c, clock } = client({ apiKey: 'manager_test_mock', retry: { maxTries: 3, random: () => 0.5 } });
    const { result, requests } = await counted(() =>
      c.GET('/v3/manager/orders', { headers: { Prefer: 'example=gateway_speed_limit' } }),
    );
    expect(requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([1000, 2000]);
    expect(result.error?.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(result.response.headers.has('Retry-After')).toBe(false);
    expect(apiErrorOf(result.response)).not.toBeInstanceOf(QuotaExceededError);
  });

  it('raises QuotaExceededError on the monthly-quota 429 without retrying', async (ctx) => {
    if (!quotaScenarioHasRetryAfter) ctx.skip();
    const { client: c } = client({ apiKey: 'manager_test_mock' });
    const { result: err, requests } = await counted(() =>
      c.GET('/v3/manager/orders', { headers: { Prefer: 'example=monthly_quota_exhausted' } }).catch((e: unknown) => e),
    );
    expect(requests).toHaveLength(1);
    expect(err).toBeInstanceOf(QuotaExceededError);
    const q = err as QuotaExceededError;
    expect(q.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(q.limit).toBe(1000);
    expect(q.remaining).toBe(0);
    expect(q.retryAfterSeconds).toEqual(expect.any(Number));
    expect(q.resetAt).toBeInstanceOf(Date);
    expect(c.quota).toMatchObject({ limit: 1000, remaining: 0 });
  });

  it('does not repeat a POST that got a 500, and reports it', async () => {
    const { client: c } = client({ throwOnError: true });
    const rows = draftRows();
    const { result: err, requests } = await counted(() =>
      c
        .POST('/v3/wms/orders/draft', { body: { orders: rows }, headers: { Prefer: 'example=internal_error' } })
        .catch((e: unknown) => e),
    );
    expect(requests).toHaveLength(1);
    expect(err).toBeInstanceOf(ApiError);
    const report = (err as ApiError).report();
    expect(report.url).toBe(`${mock.url}/v3/wms/orders/draft`);
    expect(JSON.parse(report.body!)).toEqual({ orders: rows });
    expect(report.requestedAt).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  });

  it('refuses /v3/pay/ locally with only an API key', async () => {
    const { client: c } = client();
    const { result: err, requests } = await counted(() =>
      c
        .GET('/v3/pay/deposits', { params: { query: { date_from: '2026-11-01', date_to: '2026-11-30' } } })
        .catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(CredentialError);
    expect(requests).toHaveLength(0);
  });

  it('obtains a JWT through POST /v3/auth/token and calls /v3/pay/ with it', async () => {
    const { client: c } = client({
      apiKey: undefined,
      jwt: { clientId: 'cli_test_7f3a9c2e5b1d4a60', clientSecret: 'sec_Q2x9vT4mN8pL1rZ6wY3kH5jD' },
    });
    const { result, requests } = await counted(() =>
      c.GET('/v3/pay/deposits', { params: { query: { date_from: '2026-11-01', date_to: '2026-11-30' } } }),
    );
    expect(result.error).toBeUndefined();
    expect(result.data!.success).toBe(true);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatch(/POST \/v3\/auth\/token/);
    expect(requests[1]).toMatch(/GET \/v3\/pay\/deposits/);
  });

  it('calls the manager area with a JWT when the client has no API key', async () => {
    const { client: c } = client({
      apiKey: undefined,
      jwt: { clientId: 'cli_test_7f3a9c2e5b1d4a60', clientSecret: 'sec_Q2x9vT4mN8pL1rZ6wY3kH5jD' },
    });
    const { result, requests } = await counted(() =>
      c.GET('/v3/manager/orders', { params: { query: { page: 1, size: 10 } } }),
    );
    expect(result.error).toBeUndefined();
    expect(result.response.status).toBe(200);
    expect(typeof result.data!.data[0]!.order_no).toBe('string');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatch(/POST \/v3\/auth\/token/);
    expect(requests[1]).toMatch(/GET \/v3\/manager\/orders/);
  });

  it('refreshes once on AUTH_EXPIRED_TOKEN', async () => {
    let refreshes = 0;
    const { client: c } = client({
      apiKey: undefined,
      jwt: { token: 'old.jwt.token', refresh: async () => `new${++refreshes}.jwt.token` },
    });
    const { result, requests } = await counted(() =>
      c.GET('/v3/pay/deposits', {
        params: { query: { date_from: '2026-11-01', date_to: '2026-11-30' } },
        headers: { Prefer: 'example=expired_token' },
      }),
    );
    // The mock answers the same scenario again, so the one retry also gets 401: surfaced, not looped.
    expect(refreshes).toBe(1);
    expect(requests).toHaveLength(2);
    expect(result.error?.error.code).toBe('AUTH_EXPIRED_TOKEN');
  });

  it('runs a bulk job in chunks and stops at the chunk the mock rejects', async () => {
    const { client: c } = client();
    const rows = draftRows();
    const { result: merged, requests } = await counted(() =>
      c.bulk.registerDraftOrders([...rows, ...rows], { chunkSize: 3 }),
    );
    expect(requests).toHaveLength(2);
    expect(merged.drafts.length).toBe(merged.created_count + merged.failed_count);

    const broken = { ...rows[0]! } as Partial<BulkRow<'registerDraftOrders'>>;
    delete broken.receiver_name;
    const { result: err, requests: sent } = await counted(() =>
      c.bulk
        .registerDraftOrders([...rows, rows[0]!, broken as BulkRow<'registerDraftOrders'>, rows[1]!, ...rows], {
          chunkSize: 3,
        })
        .catch((e: unknown) => e),
    );
    expect(sent).toHaveLength(2);
    expect(err).toBeInstanceOf(BulkChunkError);
    const e = err as BulkChunkError;
    expect([e.chunkIndex, e.rowStart, e.rowEnd, e.status, e.code, e.chunkWritten]).toEqual([
      1,
      3,
      6,
      400,
      'REQUIRED_PARAMETER',
      false,
    ]);
    expect(e.message).toContain('receiver_name');
  });
});
