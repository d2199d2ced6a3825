import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface IncompleteRequestsOptions extends Record<string, unknown> {
  /** MAX_INCOMPLETE_REQUESTS: requests whose head or body has stopped arriving, over every client address together. */
  max: number;
}

/** At most one warning a second under a flood: the log must not become the flood. */
const WARN_EVERY_MS = 1_000;

/**
 * How long a connection that has sent nothing at all is given before it counts as stalled. Its request may simply not
 * have been written yet: a client opening many connections at once (a CI running its jobs in parallel) writes each
 * request only once the connection is up, and a busy client may take a while to get to it.
 */
export const FIRST_BYTE_MS = 1_000;

/** While more connections are watched than the bound, how often they are looked at again without a new arrival. */
const RECHECK_MS = FIRST_BYTE_MS / 4;

interface Watched {
  /** `socket.bytesRead` when the connection last made progress (or was first watched). */
  bytes: number;
  /** The look (see `look`) during which that was seen. */
  look: number;
  /** When, in milliseconds. */
  sinceMs: number;
}

/**
 * Bounds what stalled requests hold in total. The per-address cap (`connection-limit`) stops one address; many
 * addresses each announcing a body and sending one byte stay under it, and together hold a connection (a file
 * descriptor, a parser, buffers) each until the request timeout: enough of them and the process has none left, and
 * every other client's connection is reset.
 *
 * What is bounded is what has stopped arriving, not what is queued. A connection is watched from its opening until
 * its request head is parsed, and while a request's body is still arriving (until the body is read or the request is
 * answered). Whether it progresses is read from the bytes the server has read from it (`socket.bytesRead`: Node's
 * parser reads the socket natively, so no 'data' listener could see them). A watched connection is stalled when a
 * look at it finds no byte since an earlier look with a turn of the event loop between them, so the server has had the
 * chance to read whatever the client sent (a request that is queued behind others, not yet read, is never taken for a
 * stalled one), and:
 * - one that has sent nothing at all, only after `FIRST_BYTE_MS` without a byte (its client may not have written yet);
 * - one the server has stopped reading itself (a body it is not ready for: Node pauses the socket) never.
 *
 * The connections are looked at when more of them are watched than `max`: once per turn of the event loop in which one
 * arrives (right after the turn's reads), and every `RECHECK_MS` while they stay more. When more than `max` are stalled,
 * those that progressed least recently are closed unanswered: a flood pushes out its own requests, which stopped first,
 * and a client whose request is still arriving has progressed more recently than any of them.
 */
export const incompleteRequests = fp<IncompleteRequestsOptions>(
  async (app: FastifyInstance, { max }) => {
    // A Map keeps insertion order; a connection that progresses is moved to the end, so the first is the least recent.
    const watched = new Map<Socket, Watched>();
    let look = 0;
    let lookPending = false;
    let recheck: NodeJS.Timeout | undefined;
    let closedSinceWarning = 0;
    let lastWarningMs = 0;

    const record = (socket: Socket, bytes: number, nowMs: number) => {
      watched.delete(socket);
      watched.set(socket, { bytes, look, sinceMs: nowMs });
    };

    const lookSoon = () => {
      if (lookPending) return;
      lookPending = true;
      // In the check phase, right after this turn's reads: a byte the client sent is read before it is looked for.
      setImmediate(lookAtWatched);
    };

    function lookAtWatched() {
      lookPending = false;
      look++;
      const nowMs = Date.now();
      const stalled: Socket[] = [];
      for (const [socket, w] of [...watched]) {
        const bytes = socket.bytesRead;
        if (bytes !== w.bytes || socket.isPaused()) {
          record(socket, bytes, nowMs);
          continue;
        }
        if (look - w.look < 2) continue; // no full turn of reads since it was seen
        if (bytes === 0 && nowMs - w.sinceMs < FIRST_BYTE_MS) continue;
        stalled.push(socket);
      }
      // `stalled` is in the order of last progress: the first stopped first.
      for (let i = 0; i < stalled.length - max; i++) {
        const socket = stalled[i]!;
        watched.delete(socket);
        socket.destroy();
        closedSinceWarning++;
      }
      if (closedSinceWarning > 0 && nowMs - lastWarningMs >= WARN_EVERY_MS) {
        app.log.warn(
          { closed: closedSinceWarning, limit: max },
          'stalled requests over MAX_INCOMPLETE_REQUESTS: those stalled longest were closed',
        );
        closedSinceWarning = 0;
        lastWarningMs = nowMs;
      }
      clearTimeout(recheck);
      recheck = undefined;
      if (watched.size > max) {
        recheck = setTimeout(lookSoon, RECHECK_MS);
        recheck.unref();
      }
    }

    const watch = (socket: Socket) => {
      record(socket, socket.bytesRead, Date.now());
      if (watched.size > max) lookSoon();
    };

    app.server.on('connection', function watchOpening(socket: Socket) {
      if (socket.destroyed) return;
      watch(socket);
      socket.once('close', () => watched.delete(socket));
    });
    app.server.on('request', function watchBody(req, res) {
      const socket = req.socket;
      watched.delete(socket);
      const declared = req.headers['content-length'];
      const hasBody = (declared !== undefined && declared !== '0') || req.headers['transfer-encoding'] !== undefined;
      if (!hasBody || req.complete) return;
      watch(socket);
      const done = () => watched.delete(socket);
      req.once('end', done);
      res.once('finish', done);
      res.once('close', done);
    });
    app.addHook('onClose', async function stopLooking() {
      clearTimeout(recheck);
    });
  },
  { name: 'incomplete-requests', fastify: '5.x', dependencies: ['connection-limit'] },
);
