// The sandbox's helpers on the mock: answered statelessly from their own document (@cls-api/spec/sandbox.json), each
// answer one of its examples or the envelope with a status that helper documents, and valid against its schema.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyMediaTypeMessage } from '@cls-api/server';
import {
  documentValidator,
  type JsonSchema,
  liveCredentialMessage,
  loadSandboxSpec,
  pastLastTimeMessage,
  sandboxClockLastTime,
  sandboxOutcomes,
  undeclaredOutcomeMessage,
  unknownOutcomeMessage,
} from '@cls-api/spec';
import { SandboxHelpers, startMock, type MockServer } from '../src/index.js';
import { send, type Answer } from './support.js';

const doc = loadSandboxSpec();
const validator = documentValidator(doc);
const ops = new SandboxHelpers({ schemes: new Map() } as never, doc).operations;
const TEST_KEY = { 'X-API-Key': 'wms_test_mock' };
const facts = sandboxOutcomes(doc);

let mock: MockServer;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => {
  await mock?.close();
});

/** The answer, held to the helper's documented response for its status. */
function documented(method: string, path: string, answer: Answer): void {
  const op = ops.find((o) => o.method === method.toLowerCase() && o.path === path)!;
  const response = op.responses[String(answer.status)];
  expect(response, `${method} ${path} documents no ${answer.status}`).toBeDefined();
  const errors = validator.errors(response!.schema as JsonSchema, answer.body);
  expect(errors, JSON.stringify(answer.body)).toEqual([]);
  const code = (answer.body as { error?: { code?: string } }).error?.code;
  if (code !== undefined) expect(response!.errorCodes).toContain(code);
}

const json = (body: unknown) => ({ 'Content-Type': 'application/json', ...TEST_KEY, body: JSON.stringify(body) });
async function call(method: string, path: string, headers: Record<string, string> = TEST_KEY) {
  const { body, ...rest } = headers as Record<string, string> & { body?: string };
  const answer = await send(mock.url, method, path, rest, body);
  documented(method, path, answer);
  return answer;
}

describe('the sandbox helpers on the mock', () => {
  it('reads, sets and releases the test clock with the documented examples', async () => {
    const read = await call('GET', '/sandbox/clock');
    expect(read.status).toBe(200);
    expect((read.body as { data: { offset_seconds: number } }).data.offset_seconds).toBe(0);
    const set = await call('PUT', '/sandbox/clock', json({ at: '2026-11-20 18:00:01', frozen: true }));
    expect(set.status).toBe(200);
    expect((set.body as { data: { frozen: boolean } }).data.frozen).toBe(true);
    const advanced = await call('PUT', '/sandbox/clock', json({ advance_seconds: 3600 }));
    expect(advanced.status).toBe(200);
    expect((await call('DELETE', '/sandbox/clock')).status).toBe(200);
  });

  it('resets, answering the example that fits the seed asked for', async () => {
    const emptied = await call('POST', '/sandbox/reset', json({}));
    expect(emptied.status).toBe(200);
    expect((emptied.body as { data: object }).data).not.toHaveProperty('seed');
    const seeded = await call('POST', '/sandbox/reset', json({ seed: 'demo' }));
    expect((seeded.body as { data: { seed: string } }).data.seed).toBe('demo');
    // The body is optional.
    expect((await call('POST', '/sandbox/reset')).status).toBe(200);
  });

  it('refuses what the sandbox refuses, in the envelope its document declares', async () => {
    const missing = await call('GET', '/sandbox/clock', {});
    expect(missing.status).toBe(401);
    // An Authorization header of another shape is an invalid credential, as on the reference server (it was 401
    // AUTH_MISSING_TOKEN, and `Bearer a b` was taken).
    for (const value of ['Basic bW9jazptb2Nr', 'Bearer a b']) {
      const malformed = await call('GET', '/sandbox/clock', { Authorization: value });
      expect([malformed.status, (malformed.body as { error: { code: string } }).error.code], value).toEqual([
        401,
        'AUTH_INVALID_TOKEN',
      ]);
    }
    expect((await call('GET', '/sandbox/clock', { Authorization: 'bearer mock-token' })).status).toBe(200);
    const live = await call('POST', '/sandbox/reset', { 'X-API-Key': 'wms_live_mock' });
    expect(live.status).toBe(403);
    expect((live.body as { error: { code: string } }).error.code).toBe('AUTH_FORBIDDEN');
    const neither = await call('PUT', '/sandbox/clock', json({ frozen: true }));
    expect(neither.status).toBe(400);
    const both = await call('PUT', '/sandbox/clock', json({ at: '2026-11-20 18:00:01', advance_seconds: 60 }));
    expect(both.status).toBe(400);
    const notJson = await call('PUT', '/sandbox/clock', {
      'Content-Type': 'application/json',
      ...TEST_KEY,
      body: '{at:',
    });
    expect(notJson.status).toBe(400);
    // In the reference server's words: it was "the body must NOT have additional properties."
    const unknown = await call('PUT', '/sandbox/clock', json({ at: '2026-11-20 18:00:01', later: true }));
    expect([unknown.status, (unknown.body as { error: { message: string } }).error.message]).toEqual([
      400,
      'later is not allowed.',
    ]);
    // Past the last time the clock shows, as the reference server refuses it; the last time itself is taken.
    const last = sandboxClockLastTime(doc);
    const past = await call('PUT', '/sandbox/clock', json({ at: '9999-12-31 00:00:00' }));
    expect([past.status, (past.body as { error: { message: string } }).error.message]).toEqual([
      400,
      pastLastTimeMessage(last, 'at'),
    ]);
    expect((await call('PUT', '/sandbox/clock', json({ at: last }))).status).toBe(200);
    const seed = await call('POST', '/sandbox/reset', json({ seed: 'everything' }));
    expect((seed.body as { error: { code: string } }).error.code).toBe('INVALID_PARAMETER');
  });

  it('refuses a body as every operation does, and answers the credential first, as the reference server', async () => {
    // The mock took these with 200: the sandbox's helpers take JSON as the service's operations do.
    const clock = JSON.stringify({ at: '2026-11-20 18:00:01' });
    for (const type of ['text/plain', 'application/vnd.api+json', 'application/json, text/plain']) {
      const answer = await call('PUT', '/sandbox/clock', { ...TEST_KEY, 'Content-Type': type, body: clock });
      expect([answer.status, (answer.body as { error: { message: string } }).error.message], type).toEqual([
        400,
        bodyMediaTypeMessage('application/json'),
      ]);
    }
    // Without a credential, a body the mock cannot read is not answered first: it was 400 for the gzip coding.
    const coded = { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' };
    const anonymous = await send(mock.url, 'PUT', '/sandbox/clock', coded, gzipSync(clock));
    documented('PUT', '/sandbox/clock', anonymous);
    expect(anonymous.status).toBe(401);
    const keyed = await send(mock.url, 'PUT', '/sandbox/clock', { ...coded, ...TEST_KEY }, gzipSync(clock));
    expect(keyed.status).toBe(400);
  });

  it('serves the example Prefer names, and 404 for what the sandbox does not have', async () => {
    const frozen = await call('GET', '/sandbox/clock', { ...TEST_KEY, Prefer: 'code=403' });
    expect(frozen.status).toBe(403);
    const other = await send(mock.url, 'GET', '/sandbox/nothing', TEST_KEY);
    expect(other.status).toBe(404);
    expect((other.body as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const wrongMethod = await send(mock.url, 'PATCH', '/sandbox/clock', TEST_KEY);
    expect(wrongMethod.status).toBe(404);
  });
});

describe('forced outcomes on the mock', () => {
  /** A row of a bulk order registration that passes its schema. */
  const row = {
    mall_order_no: 'M-1',
    mall_product_name: 'P',
    product_code: 'C',
    quantity: 1,
    receiver_name: 'Kim Minji',
    receiver_phone: '010-1234-5678',
    receiver_address: '12 Teheran-ro, Seoul',
  };
  const suppliers = (outcome: string, key = 'wms_test_mock') =>
    send(mock.url, 'GET', '/v3/wms/suppliers', { 'X-API-Key': key, 'X-Sandbox-Outcome': outcome });

  it('answers the operation’s own example of each outcome it declares', async () => {
    const failed = await suppliers('internal_error');
    expect(failed.status).toBe(500);
    expect((failed.body as { error: { code: string } }).error.code).toBe('INTERNAL_ERROR');
    const quota = await suppliers('quota_exceeded');
    expect(quota.status).toBe(429);
    expect(quota.headers.get('retry-after')).not.toBeNull();
    const gateway = await suppliers('gateway_throttled');
    expect(gateway.status).toBe(429);
    expect(gateway.headers.get('retry-after')).toBeNull();
    const bulk = await send(
      mock.url,
      'POST',
      '/v3/wms/orders',
      { 'X-API-Key': 'wms_test_mock', 'Content-Type': 'application/json', 'X-Sandbox-Outcome': 'bulk_failed' },
      JSON.stringify({ orders: [row] }),
    );
    expect(bulk.status).toBe(200);
    expect((bulk.body as { data: { failed_count: number } }).data.failed_count).toBeGreaterThan(0);
  });

  it('checks X-Sandbox-Failed-Rows as the sandbox does, though the rows answered are the example’s', async () => {
    const bulk = (headers: Record<string, string>) =>
      send(
        mock.url,
        'POST',
        '/v3/wms/orders',
        { 'X-API-Key': 'wms_test_mock', 'Content-Type': 'application/json', ...headers },
        JSON.stringify({ orders: [row, { ...row, mall_order_no: 'M-2' }] }),
      );
    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ 'X-Sandbox-Failed-Rows': '0' }, /bulk_failed only/],
      [{ 'X-Sandbox-Outcome': 'internal_error', 'X-Sandbox-Failed-Rows': '0' }, /bulk_failed only/],
      [{ 'X-Sandbox-Outcome': 'bulk_failed', 'X-Sandbox-Failed-Rows': 'first' }, /row indexes from 0/],
      [{ 'X-Sandbox-Outcome': 'bulk_failed', 'X-Sandbox-Failed-Rows': '1,1' }, /names a row twice/],
      [{ 'X-Sandbox-Outcome': 'bulk_failed', 'X-Sandbox-Failed-Rows': '2' }, /names row 2, but the request has 2 rows/],
    ];
    for (const [headers, message] of refusals) {
      const refused = await bulk(headers);
      const error = (refused.body as { error: { code: string; message: string } }).error;
      expect(refused.status, JSON.stringify(headers)).toBe(400);
      expect(error.code).toBe('INVALID_PARAMETER');
      expect(error.message).toMatch(message);
    }
    const taken = await bulk({ 'X-Sandbox-Outcome': 'bulk_failed', 'X-Sandbox-Failed-Rows': '0,1' });
    expect(taken.status).toBe(200);
    expect((taken.body as { data: { failed_count: number } }).data.failed_count).toBeGreaterThan(0);
    // Rows without the outcome on a read are refused too; a live key is refused before the rows are read.
    expect(
      (await send(mock.url, 'GET', '/v3/wms/suppliers', { ...TEST_KEY, 'X-Sandbox-Failed-Rows': '0' })).status,
    ).toBe(400);
    const live = await send(mock.url, 'GET', '/v3/wms/suppliers', {
      'X-API-Key': 'wms_live_mock',
      'X-Sandbox-Failed-Rows': '0',
    });
    expect(live.status).toBe(403);
  });

  it('refuses what the sandbox refuses, in its words: an undeclared or unknown outcome, a live key', async () => {
    const error = (answer: Answer) => (answer.body as { error: { code: string; message: string } }).error;
    const undeclared = await suppliers('bulk_failed');
    expect([undeclared.status, error(undeclared).code, error(undeclared).message]).toEqual([
      400,
      'INVALID_PARAMETER',
      undeclaredOutcomeMessage(facts, 'bulk_failed', 'listSuppliers', false),
    ]);
    // The words were the mock's own: "X-Sandbox-Outcome is one of …".
    const unknown = await suppliers('timeout');
    expect([unknown.status, error(unknown).message]).toEqual([400, unknownOutcomeMessage(facts, 'timeout')]);
    const live = await suppliers('internal_error', 'wms_live_mock');
    expect([live.status, error(live).code, error(live).message]).toEqual([
      403,
      'AUTH_FORBIDDEN',
      liveCredentialMessage('Forced outcomes'),
    ]);
    // A JWT has no monthly quota: the mock served the operation's quota example to one.
    const manager = (credential: Record<string, string>) =>
      send(mock.url, 'GET', '/v3/manager/orders', { ...credential, 'X-Sandbox-Outcome': 'quota_exceeded' });
    const byJwt = await manager({ Authorization: 'Bearer mock-token' });
    expect([byJwt.status, error(byJwt).message]).toEqual([
      400,
      undeclaredOutcomeMessage(facts, 'quota_exceeded', 'listManagerOrders', true),
    ]);
    expect((await manager({ 'X-API-Key': 'manager_test_mock' })).status).toBe(429);
    // Beside a key, the key is the credential read (DECISIONS G22).
    expect((await manager({ 'X-API-Key': 'manager_test_mock', Authorization: 'Bearer mock-token' })).status).toBe(429);
    // Without the header, the operation answers as always.
    expect((await send(mock.url, 'GET', '/v3/wms/suppliers', TEST_KEY)).status).toBe(200);
  });
});
