// A fake fetch and a virtual clock, so that every behaviour is tested without a network and without waiting.
import { type BulkRow, createClient, type ClientOptions } from '../src/index.js';
import type { Timers } from '../src/timers.js';

export const BASE = 'https://api.test.example';

export interface Sent {
  method: string;
  url: string;
  path: string;
  search: string;
  headers: Headers;
  body: string | undefined;
  /** Virtual time at which the request reached the fake network. */
  at: number;
}

export type Handler = (sent: Sent, index: number) => Response | Promise<Response>;

/** A fetch that records every request that reaches it and answers with `handler`. */
export function fakeFetch(handler: Handler, clock?: VirtualClock) {
  const sent: Sent[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const entry: Sent = {
      method: request.method,
      url: request.url,
      path: url.pathname,
      search: url.search,
      headers: new Headers(request.headers),
      body: request.body === null ? undefined : await request.text(),
      at: clock?.now() ?? Date.now(),
    };
    sent.push(entry);
    return handler(entry, sent.length - 1);
  };
  return { fetch, sent };
}

/** Answers from a list, one response per request, in order; the last one repeats. */
export function sequence(...responses: (() => Response | Promise<Response>)[]): Handler {
  return (_sent, index) => responses[Math.min(index, responses.length - 1)]!();
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });
}

export function apiError(
  status: number,
  code: string,
  message = `${code} happened`,
  headers: Record<string, string> = {},
): Response {
  return json(status, { success: false, error: { code, message } }, headers);
}

export const gateway429 = () =>
  apiError(429, 'RATE_LIMIT_EXCEEDED', 'Too many requests. Slow down and retry with backoff.');

export const quota429 = (headers: Record<string, string> = {}) =>
  apiError(429, 'RATE_LIMIT_EXCEEDED', 'The monthly quota of test API calls is used up.', {
    'Retry-After': '86400',
    'X-RateLimit-Limit': '1000',
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': '1796050800',
    ...headers,
  });

export function page<T>(data: T[], page: number, totalPages: number, size = 10) {
  return {
    success: true,
    data,
    pagination: { page, size, total: totalPages * size, total_pages: totalPages, has_next: page < totalPages },
  };
}

export const managerOrder = (n: number) => ({
  order_no: `ORD-${n}`,
  mall_product_name: `Product ${n}`,
  order_status_code: 10,
  registered_date: '2026-11-20 09:12:45',
});

/** An order row as the bulk order operations take it (`registerOrders`, `registerDraftOrders`), numbered `n`. */
export const orderRow = (n = 1): BulkRow<'registerOrders'> & BulkRow<'registerDraftOrders'> => ({
  mall_order_no: `MALL-${n}`,
  mall_product_name: 'Linen shirt, white',
  product_code: 'SHIRT-LINEN-01',
  quantity: 1,
  receiver_name: 'Kim Minji',
  receiver_phone: '010-1234-5678',
  receiver_address: '12 Teheran-ro, Gangnam-gu, Seoul',
});

/** A clock that only moves when the client sleeps (or the test says so), recording every sleep. */
export class VirtualClock implements Timers {
  time: number;
  readonly sleeps: number[] = [];
  constructor(start = Date.UTC(2026, 10, 20, 1, 15, 42)) {
    this.time = start;
  }
  now(): number {
    return this.time;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.time += ms;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** A client on a fake network and a virtual clock; pacing is off unless asked for. */
export function testClient(handler: Handler, options: Partial<ClientOptions> = {}) {
  const clock = new VirtualClock();
  const net = fakeFetch(handler, clock);
  const client = createClient({
    baseUrl: BASE,
    apiKey: 'wms_test_Ab12Cd34Ef56',
    fetch: net.fetch,
    timers: clock,
    pacing: false,
    ...options,
  });
  return { client, sent: net.sent, clock };
}
