import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NetworkError, QuotaExceededError, apiErrorOf, backoffDelay, createClient } from '../src/index.js';
import { resolveRetry } from '../src/retry.js';
import {
  BASE,
  apiError,
  fakeFetch,
  gateway429,
  json,
  managerOrder,
  orderRow,
  page,
  quota429,
  sequence,
  testClient,
} from './support.js';

const ok = () => json(200, page([managerOrder(1)], 1, 1));
const bulkOk = () => json(200, { success: true, data: { created_count: 1, failed_count: 0, drafts: [] } });
const row = orderRow();

describe('backoff', () => {
  const opts = (random: number, over: Partial<ReturnType<typeof resolveRetry>> = {}) => ({
    ...resolveRetry({}),
    random: () => random,
    ...over,
  });

  it('waits 1, 2, 4, 8, 16, 32 s and then 60 s, the cap (no jitter at random = 0.5)', () => {
    const seq = [1, 2, 3, 4, 5, 6, 7, 8, 12].map((n) => backoffDelay(n, opts(0.5)));
    expect(seq).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
  });

  it('spreads each wait by at most 20% either way', () => {
    for (const n of [1, 2, 3, 4, 5, 6]) {
      const step = 1000 * 2 ** (n - 1);
      expect(backoffDelay(n, opts(0))).toBe(Math.round(step * 0.8));
      expect(backoffDelay(n, opts(0.999999))).toBeCloseTo(step * 1.2, -1);
      for (let i = 0; i < 200; i++) {
        const d = backoffDelay(n, opts(Math.random()));
        expect(d).toBeGreaterThanOrEqual(step * 0.8);
        expect(d).toBeLessThanOrEqual(step * 1.2);
      }
    }
  });

  it('never waits longer than 60 s, jitter included', () => {
    for (let i = 0; i < 500; i++) {
      expect(backoffDelay(7 + (i % 10), opts(Math.random()))).toBeLessThanOrEqual(60_000);
    }
    expect(backoffDelay(7, opts(0))).toBe(48_000);
    expect(backoffDelay(7, opts(0.999))).toBe(60_000);
  });

  it('rejects nonsense settings', () => {
    expect(() => resolveRetry({ maxTries: 0 })).toThrow(/maxTries/);
    expect(() => resolveRetry({ jitter: 1.5 })).toThrow(/jitter/);
    expect(() => resolveRetry({ baseDelayMs: 5000, maxDelayMs: 1000 })).toThrow(/delays/);
  });
});

describe('gateway 429 (no Retry-After)', () => {
  it('retries a GET with exponential backoff until it succeeds', async () => {
    const { client, sent, clock } = testClient(sequence(gateway429, gateway429, gateway429, ok), {
      retry: { random: () => 0.5 },
    });
    const { data, error } = await client.GET('/v3/manager/orders', { params: { query: { page: 1, size: 10 } } });
    expect(error).toBeUndefined();
    expect(data?.data[0]?.order_no).toBe('ORD-1');
    expect(sent).toHaveLength(4);
    expect(clock.sleeps).toEqual([1000, 2000, 4000]);
    // Each attempt went out after its wait.
    expect(sent.map((s) => s.at - sent[0]!.at)).toEqual([0, 1000, 3000, 7000]);
    expect(new Set(sent.map((s) => s.url)).size).toBe(1);
  });

  it('gives up after maxTries and returns the 429 as RATE_LIMIT_EXCEEDED', async () => {
    const { client, sent, clock } = testClient(gateway429, { retry: { maxTries: 3, random: () => 0 } });
    const { error, response } = await client.GET('/v3/manager/orders');
    expect(sent).toHaveLength(3);
    expect(clock.sleeps).toEqual([800, 1600]);
    expect(error?.error.code).toBe('RATE_LIMIT_EXCEEDED');
    const typed = apiErrorOf(response);
    expect(typed).toBeInstanceOf(ApiError);
    expect(typed).not.toBeInstanceOf(QuotaExceededError);
  });

  it('retries a write the gateway refused, re-sending the same body, by default', async () => {
    const { client, sent } = testClient(sequence(gateway429, gateway429, bulkOk));
    const { data } = await client.POST('/v3/wms/orders/draft', { body: { orders: [row] } });
    expect(data?.data.created_count).toBe(1);
    expect(sent.map((s) => s.method)).toEqual(['POST', 'POST', 'POST']);
    expect(sent.every((s) => s.body === JSON.stringify({ orders: [row] }))).toBe(true);
    expect(sent.every((s) => s.headers.get('content-type') === 'application/json')).toBe(true);
  });

  it('does not retry a write on the gateway 429 when retryWritesOnGatewayLimit is false', async () => {
    const { client, sent } = testClient(sequence(gateway429, bulkOk), { retry: { retryWritesOnGatewayLimit: false } });
    const { error } = await client.POST('/v3/wms/orders/draft', { body: { orders: [row] } });
    expect(error?.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(sent).toHaveLength(1);
  });

  it('reports each retry', async () => {
    const events: unknown[] = [];
    const { client } = testClient(sequence(gateway429, ok), {
      retry: { random: () => 0.5, onRetry: (e) => events.push(e) },
    });
    await client.GET('/v3/manager/orders');
    expect(events).toEqual([
      { method: 'GET', url: `${BASE}/v3/manager/orders`, attempt: 1, delayMs: 1000, reason: 'gateway_limit' },
    ]);
  });

  it('does not retry at all with retry: false', async () => {
    const { client, sent } = testClient(sequence(gateway429, ok), { retry: false });
    const { error } = await client.GET('/v3/manager/orders');
    expect(error?.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(sent).toHaveLength(1);
  });
});

describe('quota 429 (Retry-After present)', () => {
  it('is never retried and raises QuotaExceededError with the header values', async () => {
    const { client, sent, clock } = testClient(sequence(() => quota429(), ok));
    const err = await client.GET('/v3/manager/orders').catch((e: unknown) => e);
    expect(sent).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(err).toBeInstanceOf(QuotaExceededError);
    const q = err as QuotaExceededError;
    expect(q.status).toBe(429);
    expect(q.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(q.limit).toBe(1000);
    expect(q.remaining).toBe(0);
    expect(q.resetAt?.toISOString()).toBe(new Date(1796050800 * 1000).toISOString());
    expect(q.retryAfterSeconds).toBe(86400);
  });

  it('is told apart by Retry-After alone, and uses header values only when present', async () => {
    const { client, sent } = testClient(() => apiError(429, 'RATE_LIMIT_EXCEEDED', 'quota', { 'Retry-After': '120' }));
    const err = (await client.GET('/v3/manager/orders').catch((e: unknown) => e)) as QuotaExceededError;
    expect(sent).toHaveLength(1);
    expect(err).toBeInstanceOf(QuotaExceededError);
    expect(err.retryAfterSeconds).toBe(120);
    expect(err.limit).toBeUndefined();
    expect(err.remaining).toBeUndefined();
    expect(err.resetAt).toBeUndefined();
  });

  it('is not retried for a write either', async () => {
    const { client, sent } = testClient(sequence(() => quota429(), bulkOk));
    await expect(client.POST('/v3/wms/orders/draft', { body: { orders: [row] } })).rejects.toBeInstanceOf(
      QuotaExceededError,
    );
    expect(sent).toHaveLength(1);
  });
});

describe('writes are never repeated after they may have been written', () => {
  it('surfaces a 500 on a POST after one try', async () => {
    const { client, sent } = testClient(sequence(() => apiError(500, 'INTERNAL_ERROR'), bulkOk));
    const { error } = await client.POST('/v3/wms/orders/draft', { body: { orders: [row] } });
    expect(error?.error.code).toBe('INTERNAL_ERROR');
    expect(sent).toHaveLength(1);
  });

  it('surfaces a 500 on a PATCH after one try', async () => {
    const { client, sent } = testClient(sequence(() => apiError(500, 'INTERNAL_ERROR'), ok));
    const { error } = await client.PATCH('/v3/wms/orders/{order_no}', {
      params: { path: { order_no: 'ORD-1' } },
      body: { quantity: 2 },
    });
    expect(error?.error.code).toBe('INTERNAL_ERROR');
    expect(sent).toHaveLength(1);
  });

  it('does not retry a 500 on a GET either: the source has it reported, not repeated', async () => {
    const { client, sent } = testClient(sequence(() => apiError(500, 'INTERNAL_ERROR'), ok));
    const { error } = await client.GET('/v3/manager/orders');
    expect(error?.error.code).toBe('INTERNAL_ERROR');
    expect(sent).toHaveLength(1);
  });

  it('surfaces a network error on a POST as NetworkError after one try', async () => {
    let calls = 0;
    const client = createClient({
      baseUrl: BASE,
      apiKey: 'wms_test_key',
      pacing: false,
      timers: { now: () => 0, sleep: async () => undefined },
      fetch: async () => {
        calls++;
        throw new TypeError('fetch failed');
      },
    });
    const err = await client.POST('/v3/wms/orders/draft', { body: { orders: [row] } }).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).mayHaveWritten).toBe(true);
    expect((err as NetworkError).message).toMatch(/not repeated/);
  });

  it('retries a GET after network errors', async () => {
    let calls = 0;
    const sleeps: number[] = [];
    const client = createClient({
      baseUrl: BASE,
      apiKey: 'wms_test_key',
      pacing: false,
      retry: { random: () => 0.5 },
      timers: { now: () => 0, sleep: async (ms) => void sleeps.push(ms) },
      fetch: async () => {
        calls++;
        if (calls < 3) throw new TypeError('fetch failed');
        return ok();
      },
    });
    const { data } = await client.GET('/v3/manager/orders');
    expect(data?.success).toBe(true);
    expect(calls).toBe(3);
    expect(sleeps).toEqual([1000, 2000]);
  });

  it('gives a GET that never reaches the network a NetworkError without mayHaveWritten', async () => {
    const client = createClient({
      baseUrl: BASE,
      apiKey: 'wms_test_key',
      pacing: false,
      retry: { maxTries: 2 },
      timers: { now: () => 0, sleep: async () => undefined },
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
    });
    const err = (await client.GET('/v3/manager/orders').catch((e: unknown) => e)) as NetworkError;
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.mayHaveWritten).toBe(false);
  });
});

describe('with the platform timers (vitest fake timers)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits the backoff on setTimeout', async () => {
    vi.useFakeTimers();
    const net = fakeFetch(sequence(gateway429, gateway429, ok));
    const client = createClient({
      baseUrl: BASE,
      apiKey: 'wms_test_key',
      fetch: net.fetch,
      retry: { random: () => 0.5 },
      pacing: false,
    });
    const pending = client.GET('/v3/manager/orders');
    await vi.advanceTimersByTimeAsync(999);
    expect(net.sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(net.sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(net.sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(net.sent).toHaveLength(3);
    const { data } = await pending;
    expect(data?.success).toBe(true);
  });

  it('stops waiting when the request is aborted', async () => {
    vi.useFakeTimers();
    const net = fakeFetch(gateway429);
    const client = createClient({ baseUrl: BASE, apiKey: 'wms_test_key', fetch: net.fetch, pacing: false });
    const controller = new AbortController();
    const pending = client.GET('/v3/manager/orders', { signal: controller.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    const err = await pending;
    expect((err as Error).name).toBe('AbortError');
    expect(net.sent).toHaveLength(1);
  });
});
