// The service's X-Request-Id travels with every answer the client hands back: the result of a call, every typed
// error (and what it prints), a bulk job's stop, and the report of a 500, whose secrets are removed.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ApiError, BulkChunkError, QuotaExceededError, apiErrorOf, type BulkRow } from '../src/index.js';
import { redactBody, redactUrl } from '../src/errors.js';
import { BASE, apiError, json, managerOrder, orderRow, page, quota429, testClient } from './support.js';

const ID = 'req-7f3c2a9e';
const withId = (response: Response, id = ID) => {
  response.headers.set('X-Request-Id', id);
  return response;
};

describe('request ids', () => {
  it('every call result carries the request id, success or error, and undefined when none was sent', async () => {
    const { client } = testClient((sent) =>
      sent.path === '/v3/manager/orders'
        ? withId(json(200, page([managerOrder(1)], 1, 1)))
        : sent.path === '/v3/wms/suppliers'
          ? json(200, page([], 1, 0))
          : withId(apiError(404, 'ORDER_NOT_FOUND'), 'req-404'),
    );
    const ok = await client.GET('/v3/manager/orders');
    expect(ok.requestId).toBe(ID);
    const failed = await client.GET('/v3/wms/orders/{order_no}', { params: { path: { order_no: 'ORD-1' } } });
    expect(failed.error?.error.code).toBe('ORDER_NOT_FOUND');
    expect(failed.requestId).toBe('req-404');
    expect(apiErrorOf(failed.response)?.requestId).toBe('req-404');
    const none = await client.GET('/v3/wms/suppliers');
    expect(none.requestId).toBeUndefined();
    const viaRequest = await client.request('get', '/v3/manager/orders');
    expect(viaRequest.requestId).toBe(ID);
  });

  it('a thrown ApiError carries it and prints it; so does QuotaExceededError', async () => {
    const { client } = testClient(
      (sent) =>
        sent.path === '/v3/wms/products'
          ? withId(quota429(), 'req-quota')
          : withId(apiError(409, 'ORDER_ALREADY_SHIPPED')),
      { throwOnError: true },
    );
    const err = (await client
      .PATCH('/v3/wms/orders/{order_no}', { params: { path: { order_no: 'ORD-9' } }, body: { quantity: 2 } })
      .catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.requestId).toBe(ID);
    expect(err.stack?.split('\n')[0]).toBe(
      `ApiError: 409 ORDER_ALREADY_SHIPPED on PATCH ${BASE}/v3/wms/orders/ORD-9: ORDER_ALREADY_SHIPPED happened (request id ${ID})`,
    );
    expect(inspect(err)).toContain(`request id ${ID}`);
    const quota = (await client.GET('/v3/wms/products').catch((e: unknown) => e)) as QuotaExceededError;
    expect(quota).toBeInstanceOf(QuotaExceededError);
    expect(quota.requestId).toBe('req-quota');
    expect(quota.stack).toContain('(request id req-quota)');
    expect(String(quota)).toContain('(request id req-quota)');
  });

  it("String(err) and a template string print the whole context, the request id included; message stays the service's", () => {
    const err = new ApiError({
      status: 404,
      code: 'ORDER_NOT_FOUND',
      message: 'Order ORD-1 was not found.',
      method: 'GET',
      url: `${BASE}/v3/wms/orders/ORD-1?api_key=k1`,
      requestedAt: new Date('2026-11-20T01:15:00Z'),
      body: undefined,
      headers: new Headers(),
      requestId: ID,
    });
    const printed = `ApiError: 404 ORDER_NOT_FOUND on GET ${BASE}/v3/wms/orders/ORD-1?api_key=(redacted): Order ORD-1 was not found. (request id ${ID})`;
    expect(String(err)).toBe(printed);
    expect(`${err}`).toBe(printed);
    expect(err.message).toBe('Order ORD-1 was not found.');
  });

  it("a bulk job's stop carries the failed chunk's request id and prints it", async () => {
    const { client } = testClient(() => withId(apiError(500, 'INTERNAL_ERROR', 'Internal server error.'), 'req-bulk'));
    const rows: BulkRow<'registerDraftOrders'>[] = [orderRow()];
    const err = (await client.bulk.registerDraftOrders(rows).catch((e: unknown) => e)) as BulkChunkError;
    expect(err).toBeInstanceOf(BulkChunkError);
    expect(err.requestId).toBe('req-bulk');
    expect(err.message).toContain('Request id req-bulk.');
  });
});

describe('the report of a 500', () => {
  it('gives the full URL, the body, the time to the minute and the request id, as the service asks', async () => {
    const { client } = testClient(() => withId(apiError(500, 'INTERNAL_ERROR', 'Internal server error.')));
    const { response } = await client.GET('/v3/manager/orders', {
      params: { query: { page: 3, size: 10, date_from: '2026-11-01' } },
    });
    const report = apiErrorOf(response)!.report();
    expect(report.requestId).toBe(ID);
    expect(report.text).toBe(
      [
        '500 INTERNAL_ERROR: Internal server error.',
        `Request: GET ${BASE}/v3/manager/orders?page=3&size=10&date_from=2026-11-01`,
        'Time: 2026-11-20 10:15 (Asia/Seoul) = 2026-11-20T01:15Z',
        `Request id: ${ID}`,
        'Body: (none)',
      ].join('\n'),
    );
  });

  it("removes secrets: credential fields and parameters, and the client's API key and client secret anywhere", async () => {
    const apiKey = 'wms_test_Zz98Yy76Xx54Ww32';
    const clientSecret = 'sec_0123456789abcdefghij';
    const { client } = testClient(() => withId(apiError(500, 'INTERNAL_ERROR', 'Internal server error.')), {
      apiKey,
      jwt: { clientId: 'cli_test_Ab12Cd34', clientSecret },
    });
    // A memo that quotes the key by mistake, and a query parameter named for a token: neither may reach a report.
    const { response } = await client.PATCH('/v3/wms/orders/{order_no}', {
      params: { path: { order_no: 'ORD-9' } },
      body: { memo: `key ${apiKey}; secret ${clientSecret}` },
      querySerializer: () => `access_token=abc123&page=2`,
    } as never);
    const err = apiErrorOf(response)!;
    const report = err.report();
    expect(report.url).toBe(`${BASE}/v3/wms/orders/ORD-9?access_token=(redacted)&page=2`);
    expect(report.body).toBe(JSON.stringify({ memo: 'key (redacted); secret (redacted)' }));
    expect(report.text).not.toContain(apiKey);
    expect(report.text).not.toContain(clientSecret);
    expect(report.text).not.toContain('abc123');
    expect(err.stack).not.toContain('abc123');
    // The request body stays on the error as it was sent, for the program; only the report leaves it out.
    expect(err.requestBody).toContain(apiKey);
  });

  it('redacts fields and parameters by their names, and leaves everything else exactly as sent', () => {
    expect(redactBody('{"client_id":"cli_x","client_secret":"s3cr3t-value","nested":[{"refresh_token":"r"}]}')).toBe(
      '{"client_id":"cli_x","client_secret":"(redacted)","nested":[{"refresh_token":"(redacted)"}]}',
    );
    expect(redactBody('{ "memo": "as sent" }')).toBe('{ "memo": "as sent" }');
    expect(redactBody('not json with key-12345', ['key-12345'])).toBe('not json with (redacted)');
    expect(redactUrl(`${BASE}/v3/wms/orders?updated_after=2026-11-01+00%3A00%3A00&api_key=k1&X-API-Key=k2`)).toBe(
      `${BASE}/v3/wms/orders?updated_after=2026-11-01+00%3A00%3A00&api_key=(redacted)&X-API-Key=(redacted)`,
    );
  });
});
