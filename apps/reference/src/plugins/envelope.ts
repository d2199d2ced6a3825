import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The shared envelope on success: a handler returns `{data, pagination?}` and the client receives
 * `{success: true, data, pagination?}`, `success` first (JSON keeps insertion order). Error bodies are built as
 * envelopes by the error-mapping plugin and pass through unchanged.
 */
export const envelope = fp(
  async (app: FastifyInstance) => {
    // A callback hook: no promise per request.
    app.addHook('preSerialization', function wrapInEnvelope(_request, reply, payload, done) {
      if (reply.statusCode >= 400 || payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
        done(null, payload);
        return;
      }
      // One new object, `success` first, then the handler's own keys in their order (one copy, not two).
      const body = payload as Record<string, unknown>;
      const out: Record<string, unknown> = { success: true };
      for (const key in body) if (key !== 'success' && Object.hasOwn(body, key)) out[key] = body[key];
      done(null, out);
    });
  },
  { name: 'envelope', fastify: '5.x' },
);
