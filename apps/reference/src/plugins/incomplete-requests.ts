import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface IncompleteRequestsOptions extends Record<string, unknown> {
  /** MAX_INCOMPLETE_REQUESTS: connections whose request is still arriving, over every client address together. */
  max: number;
}

/** At most one warning a second under a flood: the log must not become the flood. */
const WARN_EVERY_MS = 1_000;

/**
 * Bounds what stalled requests hold in total. The per-address cap (`connection-limit`) stops one address; many
 * addresses each announcing a body and sending one byte stay under it, and together hold a connection (a file
 * descriptor, a parser, buffers) each until the request timeout: enough of them and the process has none left, and
 * every other client's connection is reset. A connection counts here from its opening until its first request head
 * is parsed, and while a request's body is still arriving (until the body is read or the request is answered). When
 * one more would pass `max`, the oldest of them is closed unanswered: a flood pushes out its own oldest requests,
 * and a client that sends its request promptly is never among the oldest.
 */
export const incompleteRequests = fp<IncompleteRequestsOptions>(
  async (app: FastifyInstance, { max }) => {
    // A Set keeps insertion order: its first member is the connection incomplete for longest.
    const incomplete = new Set<Socket>();
    let closedSinceWarning = 0;
    let lastWarningMs = 0;
    const admit = (socket: Socket) => {
      incomplete.delete(socket);
      incomplete.add(socket);
      while (incomplete.size > max) {
        const oldest = incomplete.values().next().value as Socket;
        incomplete.delete(oldest);
        oldest.destroy();
        closedSinceWarning++;
      }
      const nowMs = Date.now();
      if (closedSinceWarning > 0 && nowMs - lastWarningMs >= WARN_EVERY_MS) {
        app.log.warn(
          { closed: closedSinceWarning, limit: max },
          'incomplete requests over MAX_INCOMPLETE_REQUESTS: the oldest were closed',
        );
        closedSinceWarning = 0;
        lastWarningMs = nowMs;
      }
    };
    app.server.on('connection', function countOpening(socket: Socket) {
      if (socket.destroyed) return;
      admit(socket);
      socket.once('close', () => incomplete.delete(socket));
    });
    app.server.on('request', function countBody(req, res) {
      const socket = req.socket;
      incomplete.delete(socket);
      const declared = req.headers['content-length'];
      const hasBody = (declared !== undefined && declared !== '0') || req.headers['transfer-encoding'] !== undefined;
      if (!hasBody || req.complete) return;
      admit(socket);
      const done = () => incomplete.delete(socket);
      req.once('end', done);
      res.once('finish', done);
      res.once('close', done);
    });
  },
  { name: 'incomplete-requests', fastify: '5.x', dependencies: ['connection-limit'] },
);
