// The success envelope (src/plugins/envelope.ts): `success: true` first, then the handler's keys in the handler's
// order, byte for byte what `{ success: true, ...rest }` gave; a handler's own `success` is replaced; error bodies,
// arrays and non-objects pass through.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope } from '../../src/plugins/envelope.js';

const app = Fastify();

beforeAll(async () => {
  await app.register(envelope);
  app.get('/page', async () => ({ data: [{ b: 1, a: 'é' }], pagination: { page: 1, total: 1 } }));
  app.get('/one', async () => ({ data: { x: null } }));
  app.get('/own-success', async () => ({ data: 1, success: false, message: 'kept' }));
  app.get('/inherited', async () => Object.assign(Object.create({ inherited: 1 }), { data: 2 }));
  app.get('/array', async () => [1, 2]);
  app.get('/text', async (_request, reply) => reply.type('text/plain').send('plain'));
  app.get('/error', async (_request, reply) => reply.code(404).send({ success: false, error: { code: 'NOT_FOUND' } }));
  await app.ready();
});

afterAll(() => app.close());

/** What the envelope said before it became one copy: a spread without `success`. */
function spreadEnvelope(payload: Record<string, unknown>): string {
  const { success: _ignored, ...rest } = payload;
  return JSON.stringify({ success: true, ...rest });
}

describe('the success envelope', () => {
  it('puts success first and keeps the handler keys in order, as the spread did', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['/page', { data: [{ b: 1, a: 'é' }], pagination: { page: 1, total: 1 } }],
      ['/one', { data: { x: null } }],
      ['/own-success', { data: 1, success: false, message: 'kept' }],
      ['/inherited', Object.assign(Object.create({ inherited: 1 }), { data: 2 })],
    ];
    for (const [url, returned] of cases) {
      const r = await app.inject({ method: 'GET', url });
      expect(r.body).toBe(spreadEnvelope(returned));
    }
    expect((await app.inject({ method: 'GET', url: '/own-success' })).body).toBe(
      '{"success":true,"data":1,"message":"kept"}',
    );
  });

  it('leaves arrays, text and error bodies as they are', async () => {
    expect((await app.inject({ method: 'GET', url: '/array' })).body).toBe('[1,2]');
    expect((await app.inject({ method: 'GET', url: '/text' })).body).toBe('plain');
    expect((await app.inject({ method: 'GET', url: '/error' })).body).toBe(
      '{"success":false,"error":{"code":"NOT_FOUND"}}',
    );
  });
});
