import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * How the server closes (`app.close()`, which SIGTERM/SIGINT call: src/assembly/shutdown.ts). New connections are refused
 * at once and idle kept-alive ones closed (Node's `server.close`). Requests already in flight finish normally, and
 * so do requests that arrive meanwhile on a connection that was busy (Fastify serves them; 503 is not a contract
 * status, so `return503OnClosing` is off); every response sent while closing carries `Connection: close`, and each
 * connection is closed when its response is done, so the close completes as soon as the last request is answered.
 */
export const gracefulClose = fp(
  async (app: FastifyInstance) => {
    let closing = false;

    app.addHook('preClose', async function beginClosing() {
      closing = true;
    });

    app.addHook('onSend', async function closeAfterResponse(_request, reply, payload) {
      if (closing) reply.header('Connection', 'close');
      return payload;
    });

    app.addHook('onResponse', async function closeIdleConnections() {
      // A connection whose request was in flight when the close began would otherwise stay open, idle, until its
      // keep-alive timeout: the close would wait for it.
      if (closing) app.server.closeIdleConnections();
    });
  },
  { name: 'graceful-close', fastify: '5.x' },
);
