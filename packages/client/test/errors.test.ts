import { describe, expect, it } from 'vitest';
import {
  ApiError,
  QuotaExceededError,
  apiErrorOf,
  baseUrlProblem,
  createClient,
  errorCodes,
  isErrorCode,
} from '../src/index.js';
import { BASE, apiError, gateway429, json, managerOrder, page, quota429, sequence, testClient } from './support.js';

const option = { option_code: 'WHITE-M', option_name: 'White, M' };

describe('ApiError', () => {
  it('carries status, typed code, message, method, full URL with query and request time (throwOnError)', async () => {
    const { client, clock } = testClient(() => apiError(404, 'ORDER_NOT_FOUND', 'Order not found.'), {
      throwOnError: true,
    });
    const at = clock.now();
    const err = (await client
      .GET('/v3/wms/orders', { params: { query: { page: 2, size: 100, updated_after: '2026-11-20 00:00:00' } } })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.name).toBe('ApiError');
    expect(err.status).toBe(404);
    expect(err.code).toBe('ORDER_NOT_FOUND');
    expect(err.message).toBe('Order not found.');
    expect(err.method).toBe('GET');
    expect(err.url).toBe(`${BASE}/v3/wms/orders?page=2&size=100&updated_after=2026-11-20%2000%3A00%3A00`);
    expect(err.path).toBe('/v3/wms/orders');
    expect(err.requestedAt.getTime()).toBe(at);
    expect(err.stack).toContain(`404 ORDER_NOT_FOUND on GET ${BASE}/v3/wms/orders?page=2`);
  });

  it('the non-throwing style keeps { data, error } with the envelope, and apiErrorOf gives the typed error', async () => {
    const { client } = testClient(() => apiError(409, 'ORDER_ALREADY_SHIPPED', 'Order already shipped.'));
    const { data, error, response } = await client.PATCH('/v3/wms/orders/{order_no}', {
      params: { path: { order_no: 'ORD-9' } },
      body: { memo: 'leave at the door' },
    });
    expect(data).toBeUndefined();
    expect(error).toEqual({
      success: false,
      error: { code: 'ORDER_ALREADY_SHIPPED', message: 'Order already shipped.' },
    });
    const typed = apiErrorOf(response)!;
    expect(typed.code).toBe('ORDER_ALREADY_SHIPPED');
    expect(typed.requestBody).toBe('{"memo":"leave at the door"}');
    expect(typed.url).toBe(`${BASE}/v3/wms/orders/ORD-9`);
  });

  it('a 500 offers the report the source asks for: reproducible body, full URL, time to the minute', async () => {
    const { client, clock } = testClient(() => apiError(500, 'INTERNAL_ERROR', 'Internal server error.'), {
      throwOnError: true,
    });
    // 2026-11-20 01:15:42 UTC is 10:15 in Asia/Seoul (UTC+9).
    expect(new Date(clock.now()).toISOString()).toBe('2026-11-20T01:15:42.000Z');
    const err = (await client
      .POST('/v3/wms/products/{product_code}/options', {
        params: { path: { product_code: 'SHIRT-LINEN-01' } },
        body: { options: [option] },
      })
      .catch((e: unknown) => e)) as ApiError;
    expect(err.status).toBe(500);
    expect(err.code).toBe('INTERNAL_ERROR');
    const report = err.report();
    expect(report.body).toBe(JSON.stringify({ options: [option] }));
    expect(report.url).toBe(`${BASE}/v3/wms/products/SHIRT-LINEN-01/options`);
    expect(report.method).toBe('POST');
    expect(report.requestedAt).toBe('2026-11-20 10:15');
    expect(report.timeZone).toBe('Asia/Seoul');
    expect(report.requestedAtUtc).toBe('2026-11-20T01:15Z');
    expect(report.text).toContain(`POST ${BASE}/v3/wms/products/SHIRT-LINEN-01/options`);
    expect(report.text).toContain('2026-11-20 10:15 (Asia/Seoul)');
    expect(report.text).toContain(JSON.stringify({ options: [option] }));
  });

  it('the report keeps the query string of a failed GET', async () => {
    const { client } = testClient(() => apiError(500, 'INTERNAL_ERROR'));
    const { response } = await client.GET('/v3/manager/orders', {
      params: { query: { page: 3, size: 10, date_from: '2026-11-01' } },
    });
    const report = apiErrorOf(response)!.report();
    expect(report.url).toBe(`${BASE}/v3/manager/orders?page=3&size=10&date_from=2026-11-01`);
    expect(report.body).toBeUndefined();
  });

  it('the request time is when the final attempt went out, after retries', async () => {
    const { client, clock } = testClient(
      sequence(gateway429, gateway429, () => apiError(500, 'INTERNAL_ERROR')),
      {
        retry: { random: () => 0.5 },
      },
    );
    const start = clock.now();
    const { response } = await client.GET('/v3/manager/orders');
    expect(apiErrorOf(response)!.requestedAt.getTime()).toBe(start + 3000);
  });

  it('a body that is not the envelope is thrown in either style, with code undefined and a message saying so', async () => {
    // In the non-throwing style it came back as `error`, typed as the envelope: `error.error.code` then failed with
    // a TypeError naming neither the call nor the status.
    for (const [throwOnError, body, bodySeen] of [
      [false, '<html>Bad gateway</html>', '<html>Bad gateway</html>'],
      [true, '<html>Bad gateway</html>', '<html>Bad gateway</html>'],
      [false, '', undefined],
      [false, '{"message":"upstream timed out"}', { message: 'upstream timed out' }],
    ] as const) {
      const { client } = testClient(() => new Response(body, { status: 502, statusText: 'Bad Gateway' }), {
        throwOnError,
      });
      const err = (await client.GET('/v3/manager/orders').catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(502);
      expect(err.code).toBeUndefined();
      expect(err.message).toBe("HTTP 502 Bad Gateway without the API's error envelope");
      expect(String(err)).toBe(`ApiError: 502 on GET ${BASE}/v3/manager/orders: ${err.message}`);
      expect(err.body).toEqual(bodySeen);
    }
  });

  it('a success whose body is not JSON by its type is thrown in either style, naming the status and the type', async () => {
    // It reached the caller as JSON.parse's bare SyntaxError ("Unexpected token '<'"), naming neither the call nor
    // the status.
    const portal = () =>
      new Response('<html>Sign in to the hotel Wi-Fi</html>', {
        status: 200,
        statusText: 'OK',
        headers: { 'Content-Type': 'text/html; charset=utf-8' },
      });
    for (const throwOnError of [false, true]) {
      const { client } = testClient(portal, { throwOnError });
      const err = (await client.GET('/v3/manager/orders').catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(200);
      expect(err.code).toBeUndefined();
      expect(err.message).toBe("HTTP 200 OK with a body of type text/html; charset=utf-8, not the API's JSON");
      expect(String(err)).toBe(`ApiError: 200 on GET ${BASE}/v3/manager/orders: ${err.message}`);
      expect(err.body).toBe('<html>Sign in to the hotel Wi-Fi</html>');
    }
    // A call that asks for the body as text gets it as it is.
    const { client } = testClient(portal);
    const { data } = await client.GET('/v3/manager/orders', { parseAs: 'text' });
    expect(data).toBe('<html>Sign in to the hotel Wi-Fi</html>');
    // JSON by any of its names, or with no type to go by, is read as before; so is a success without a body.
    for (const type of ['application/json', 'Application/JSON;charset=UTF-8', 'application/vnd.api+json', null]) {
      const body = JSON.stringify(page([managerOrder(1)], 1, 1));
      const { client: typed } = testClient(
        // As bytes: a Response made from a string would type it text/plain itself.
        () =>
          new Response(new TextEncoder().encode(body), {
            status: 200,
            headers: type === null ? {} : { 'Content-Type': type },
          }),
      );
      const { data: read } = await typed.GET('/v3/manager/orders');
      expect(read, String(type)).toEqual(JSON.parse(body));
    }
    const { client: empty } = testClient(
      () => new Response(null, { status: 204, headers: { 'Content-Type': 'text/plain' } }),
    );
    expect((await empty.GET('/v3/manager/orders')).data).toBeUndefined();
  });

  it('a code outside the contract is not passed off as one of its codes', async () => {
    const { client } = testClient(() => apiError(400, 'SOMETHING_NEW'));
    const { response } = await client.GET('/v3/manager/orders');
    const err = apiErrorOf(response)!;
    expect(err.code).toBeUndefined();
    expect(err.body).toEqual({ success: false, error: { code: 'SOMETHING_NEW', message: 'SOMETHING_NEW happened' } });
  });

  it('a success leaves no error behind', async () => {
    const { client } = testClient(() => json(200, page([managerOrder(1)], 1, 1)));
    const { response, error } = await client.GET('/v3/manager/orders');
    expect(error).toBeUndefined();
    expect(apiErrorOf(response)).toBeUndefined();
  });

  it('isErrorCode knows exactly the generated codes', () => {
    for (const code of errorCodes) expect(isErrorCode(code)).toBe(true);
    expect(isErrorCode('SOMETHING_NEW')).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});

describe('quota state', () => {
  it('is undefined until a response carries quota headers, then holds the last values seen', async () => {
    let remaining = 998;
    const { client, clock } = testClient(() =>
      json(200, page([managerOrder(1)], 1, 1), {
        'X-RateLimit-Limit': '1000',
        'X-RateLimit-Remaining': String(remaining--),
        'X-RateLimit-Reset': '1796050800',
      }),
    );
    expect(client.quota).toBeUndefined();
    await client.GET('/v3/manager/orders');
    expect(client.quota).toEqual({
      limit: 1000,
      remaining: 998,
      resetAt: new Date(1796050800 * 1000),
      observedAt: new Date(clock.now()),
    });
    await client.GET('/v3/manager/orders');
    expect(client.quota?.remaining).toBe(997);
  });

  it('uses a header only when it is present and an integer', async () => {
    const { client } = testClient(
      sequence(
        () => json(200, page([], 1, 0), { 'X-RateLimit-Remaining': '5' }),
        () =>
          json(200, page([], 1, 0), {
            'X-RateLimit-Limit': '-1',
            'X-RateLimit-Remaining': 'unlimited',
            'X-RateLimit-Reset': '12',
          }),
      ),
    );
    await client.GET('/v3/manager/orders');
    expect(client.quota).toMatchObject({ remaining: 5 });
    expect(client.quota).not.toHaveProperty('limit');
    expect(client.quota).not.toHaveProperty('resetAt');
    await client.GET('/v3/manager/orders');
    expect(client.quota).not.toHaveProperty('limit');
    expect(client.quota).not.toHaveProperty('remaining');
    expect(client.quota?.resetAt).toEqual(new Date(12_000));
  });

  it('is kept through responses without quota headers (JWT, live keys, the gateway 429)', async () => {
    const { client } = testClient(
      sequence(
        () => json(200, page([], 1, 0), { 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '7' }),
        gateway429,
        () => json(200, page([], 1, 0)),
      ),
    );
    await client.GET('/v3/manager/orders');
    await client.GET('/v3/manager/orders');
    expect(client.quota).toMatchObject({ limit: 1000, remaining: 7 });
  });

  it('records the quota 429 before raising QuotaExceededError, even in the non-throwing style', async () => {
    const { client } = testClient(() => quota429());
    await expect(client.GET('/v3/manager/orders')).rejects.toBeInstanceOf(QuotaExceededError);
    expect(client.quota).toMatchObject({ limit: 1000, remaining: 0, resetAt: new Date(1796050800 * 1000) });
  });
});

describe('options', () => {
  it('are checked when the client is created', () => {
    expect(() => createClient({ baseUrl: 'api.example.com' })).toThrow(/absolute URL/);
    expect(() => createClient({ baseUrl: 'https://api.example.com/v3' })).toThrow(/must not end with \/v3/);
    // The same rule, for a tool that names the address its own way (cls-mcp: CLS_BASE_URL must …).
    expect(baseUrlProblem('api.example.com')).toBe('must be an absolute URL, got "api.example.com"');
    expect(baseUrlProblem('https://api.example.com/v3/')).toMatch(/^must not end with \/v3/);
    expect(baseUrlProblem('https://api.example.com/base')).toBeUndefined();
    expect(() => createClient({ baseUrl: BASE, apiKey: ' ' })).toThrow(/apiKey/);
    expect(() => createClient({ baseUrl: BASE, retry: { maxTries: 0 } })).toThrow(/maxTries/);
  });
});
