// client.sandbox and the `sandbox` option of a call, on a fake network: what goes on the wire, and what comes back.
import { describe, expect, it } from 'vitest';
import { ApiError, sandboxOutcomeHeaders } from '../src/index.js';
import { apiError, json, orderRow, testClient } from './support.js';

const clock = { now: '2026-11-20 18:00:01', real_now: '2026-11-20 14:03:12', offset_seconds: 14209, frozen: true };
const counts = {
  orders: 1,
  drafts: 0,
  returns: 2,
  products: 1,
  options: 0,
  stock: 1,
  suppliers: 0,
  videos: 0,
  deposits: 0,
};

describe('client.sandbox', () => {
  it('sets, advances, reads and releases the test clock, resolving to the clock', async () => {
    const { client, sent } = testClient(() => json(200, { success: true, data: clock }));
    expect(await client.sandbox.clock.set({ at: '2026-11-20 18:00:01', frozen: true })).toEqual(clock);
    await client.sandbox.clock.advance(3600);
    await client.sandbox.clock.get();
    await client.sandbox.clock.realTime();
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'PUT /sandbox/clock',
      'PUT /sandbox/clock',
      'GET /sandbox/clock',
      'DELETE /sandbox/clock',
    ]);
    expect(JSON.parse(sent[0]!.body!)).toEqual({ at: '2026-11-20 18:00:01', frozen: true });
    expect(JSON.parse(sent[1]!.body!)).toEqual({ advance_seconds: 3600 });
    // The test key travels as on any call.
    for (const s of sent) expect(s.headers.get('X-API-Key')).toBe('wms_test_Ab12Cd34Ef56');
  });

  it('resets with or without a seed, resolving to what was removed and loaded', async () => {
    const { client, sent } = testClient((s) =>
      json(200, {
        success: true,
        data: s.body === '{}' ? { removed: counts } : { removed: counts, seed: 'demo', loaded: counts },
      }),
    );
    expect((await client.sandbox.reset()).removed.returns).toBe(2);
    expect((await client.sandbox.reset({ seed: 'demo' })).seed).toBe('demo');
    expect(sent.map((s) => [s.method, s.path, s.body])).toEqual([
      ['POST', '/sandbox/reset', '{}'],
      ['POST', '/sandbox/reset', '{"seed":"demo"}'],
    ]);
  });

  it('throws the error answer as an ApiError, whatever throwOnError says', async () => {
    const { client } = testClient(() => apiError(403, 'AUTH_FORBIDDEN', 'The sandbox helpers take a test credential.'));
    const error = await client.sandbox.reset().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, code: 'AUTH_FORBIDDEN', method: 'POST' });
  });

  it('a client with a JWT only sends it to the helpers, which take any test credential', async () => {
    const { client, sent } = testClient(() => json(200, { success: true, data: clock }), {
      apiKey: undefined,
      jwt: { token: 'header.payload.signature' },
    });
    await client.sandbox.clock.get();
    expect(sent[0]!.headers.get('Authorization')).toBe('Bearer header.payload.signature');
    expect(sent[0]!.headers.get('X-API-Key')).toBeNull();
  });

  it('refuses a clock move the sandbox would refuse, before sending', async () => {
    const { client, sent } = testClient(() => json(200, { success: true, data: clock }));
    await expect(client.sandbox.clock.advance(0)).rejects.toThrow(TypeError);
    await expect(client.sandbox.clock.advance(1.5)).rejects.toThrow(/whole number of seconds/);
    expect(sent).toHaveLength(0);
  });
});

describe('the sandbox option of a call', () => {
  it('sends the forced outcome as the header the sandbox document names, beside the call’s own headers', async () => {
    const { client, sent } = testClient(() => apiError(500, 'INTERNAL_ERROR', 'Unexpected failure.'), {
      retry: false,
    });
    const r = await client.GET('/v3/wms/suppliers', {
      headers: { 'X-Trace': 't-1' },
      sandbox: { outcome: 'internal_error' },
    });
    expect(r.error?.error.code).toBe('INTERNAL_ERROR');
    expect(sent[0]!.headers.get('X-Sandbox-Outcome')).toBe('internal_error');
    expect(sent[0]!.headers.get('X-Trace')).toBe('t-1');
    expect(sent[0]!.headers.get('X-Sandbox-Failed-Rows')).toBeNull();
  });

  it('names the failed rows of a forced bulk failure; request() takes the option too', async () => {
    const { client, sent } = testClient(() => json(200, { success: true, data: {} }));
    await client.POST('/v3/wms/orders', {
      body: { orders: [orderRow(1), orderRow(2), orderRow(3)] },
      sandbox: { outcome: 'bulk_failed', failedRows: [0, 2] },
    });
    await client.request('post', '/v3/wms/orders', {
      body: { orders: [orderRow(1)] },
      sandbox: { outcome: 'bulk_failed' },
    });
    expect(sent[0]!.headers.get('X-Sandbox-Outcome')).toBe('bulk_failed');
    expect(sent[0]!.headers.get('X-Sandbox-Failed-Rows')).toBe('0,2');
    expect(sent[1]!.headers.get('X-Sandbox-Outcome')).toBe('bulk_failed');
    expect(sent[1]!.headers.get('X-Sandbox-Failed-Rows')).toBeNull();
    // The option is the client's, never a field of the request.
    expect(sent[0]!.body).not.toContain('sandbox');
  });

  it('a call without the option sends no sandbox header', async () => {
    const { client, sent } = testClient(() => json(200, { success: true, data: [] }));
    await client.GET('/v3/wms/suppliers', {});
    expect([...sent[0]!.headers.keys()].filter((h) => h.startsWith('x-sandbox'))).toEqual([]);
  });

  it('refuses what the sandbox would refuse, before sending', async () => {
    expect(() => sandboxOutcomeHeaders({ outcome: 'timeout' as 'internal_error' })).toThrow(/one of internal_error/);
    expect(() => sandboxOutcomeHeaders({ outcome: 'bulk_failed', failedRows: [1, 1] })).toThrow(/each once/);
    expect(() => sandboxOutcomeHeaders({ outcome: 'bulk_failed', failedRows: [-1] })).toThrow(TypeError);
    expect(() => sandboxOutcomeHeaders({ outcome: 'bulk_failed', failedRows: [] })).toThrow(TypeError);
    expect(() =>
      sandboxOutcomeHeaders({ outcome: 'internal_error', failedRows: [0] } as unknown as { outcome: 'bulk_failed' }),
    ).toThrow(/bulk_failed only/);
    const { client, sent } = testClient(() => json(200, { success: true, data: [] }));
    await expect(client.GET('/v3/wms/suppliers', { sandbox: { outcome: 'nope' as 'internal_error' } })).rejects.toThrow(
      TypeError,
    );
    expect(sent).toHaveLength(0);
  });
});
