import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The shared envelope on success: a handler returns `{data, pagination?}` and the client receives
 * `{success: true, data, pagination?}`, `success` first (JSON keeps insertion order). Error bodies are built as
 * envelopes by the error-mapping plugin and pass through unchanged.
 */
export const envelope = fp(
  async (app: FastifyInstance) => {
    app.addHook('preSerialization', async function wrapInEnvelope(_request, reply, payload) {
      if (reply.statusCode >= 400) return payload;
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return payload;
      const { success: _ignored, ...rest } = payload as Record<string, unknown>;
      return { success: true, ...rest };
    });
  },
  { name: 'envelope', fastify: '5.x' },
);
