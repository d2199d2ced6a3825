import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type Descriptors, processDescriptors } from '../descriptors.js';

export interface IncompleteRequestsOptions extends Record<string, unknown> {
  /** MAX_INCOMPLETE_REQUESTS: requests whose head or body has stopped arriving, over every client address together. */
  max: number;
  /** The process's descriptors; by default read from `/proc` (where there is none, silent connections are not shed). */
  descriptors?: Descriptors | undefined;
}

/** At most one warning a second of each kind under a flood: the log must not become the flood. */
const WARN_EVERY_MS = 1_000;

/** While more connections are watched than the bound, how often they are looked at again without a new arrival. */
const RECHECK_MS = 250;

/**
 * Descriptors kept free for whatever else the process must open: the next client's connection, a database or Redis
 * reconnection. An eighth of the limit, and never more than 64 (a limit of thousands needs no more).
 */
export function descriptorReserve(limit: number): number {
  return Math.min(64, Math.floor(limit / 8));
}

/**
 * How many connections may arrive between two counts of the process's descriptors, at least. A count lists every
 * descriptor (about a microsecond each), so it is taken once per eighth as many arrivals as there are connections:
 * its cost per arrival stays constant however many are open.
 */
const RECOUNT_EVERY = 32;

interface Watched {
  /** `socket.bytesRead` when the connection last made progress (or was first watched). */
  bytes: number;
  /** The look (see `look`) during which that was seen. */
  look: number;
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
 * stalled one), unless the server has stopped reading it itself (a body it is not ready for: Node pauses the socket).
 *
 * The connections are looked at when more of them are watched than `max`: once per turn of the event loop in which one
 * arrives (right after the turn's reads), and every `RECHECK_MS` while they stay more. When more than `max` are stalled,
 * those that progressed least recently are closed unanswered: a flood pushes out its own requests, which stopped first,
 * and a client whose request is still arriving has progressed more recently than any of them.
 *
 * A connection that has sent nothing at all is silent, not stalled: its client may simply not have written yet (a
 * client opening many connections at once, a CI running its jobs in parallel, writes each request once the connection
 * is up, and a busy one may take seconds to get to it), so how long it has been silent says nothing a verdict could
 * rest on. So is a kept-alive connection whose requests have all been answered, until its client sends a byte of the
 * next one (and `KEEP_ALIVE_TIMEOUT_MS` closes it if none comes). Silent connections are kept apart, looked at only
 * every `RECHECK_MS` (one that has begun to send is watched from then on, so a next request that stops inside its head
 * is stalled like a first one), so that however many there are, an arrival costs no more. They are bounded by what
 * they actually exhaust, the process's descriptors: when a new connection leaves fewer free than `descriptorReserve`,
 * silent ones are closed unanswered, the longest silent first, until twice the reserve is free. A burst the process
 * has descriptors for is never cut, however slowly its client writes; a silent flood holds at most what the process
 * can spare, and each of its connections at most `HEADERS_TIMEOUT_MS`.
 */
export const incompleteRequests = fp<IncompleteRequestsOptions>(
  async (app: FastifyInstance, { max, descriptors = processDescriptors() }) => {
    // A Map keeps insertion order; a connection that progresses is moved to the end, so the first is the least recent.
    const watched = new Map<Socket, Watched>();
    // Each with its `socket.bytesRead` when it fell silent (0 for a new connection), in that order: the first has been
    // silent longest.
    const silent = new Map<Socket, number>();
    let look = 0;
    let lookPending = false;
    let recheck: NodeJS.Timeout | undefined;

    // Descriptors: connections open as their 'close' events tell (less those shed here, whose descriptor is closed at
    // once), and the others as of the last count.
    let connections = 0;
    const shed = new WeakSet<Socket>();
    let others = descriptors ? descriptors.count() : 0;
    let sinceCount = 0;

    const warnings = {
      stalled: { closed: 0, lastMs: 0 },
      silent: { closed: 0, lastMs: 0 },
    };
    const warn = (kind: keyof typeof warnings, nowMs: number) => {
      const w = warnings[kind];
      if (w.closed === 0 || nowMs - w.lastMs < WARN_EVERY_MS) return;
      if (kind === 'stalled') {
        app.log.warn(
          { closed: w.closed, limit: max },
          'stalled requests over MAX_INCOMPLETE_REQUESTS: those stalled longest were closed',
        );
      } else {
        app.log.warn(
          { closed: w.closed, open: others + connections, limit: descriptors?.limit },
          'file descriptors running short: connections that had sent nothing (or nothing since their last answer) were closed, the longest silent first',
        );
      }
      w.closed = 0;
      w.lastMs = nowMs;
    };

    const record = (socket: Socket, bytes: number) => {
      watched.delete(socket);
      watched.set(socket, { bytes, look });
    };

    const lookSoon = () => {
      if (lookPending) return;
      lookPending = true;
      // In the check phase, right after this turn's reads: a byte the client sent is read before it is looked for.
      setImmediate(lookAtWatched);
    };

    /** Silent connections that have begun to send are watched from now on. */
    const promote = (socket: Socket) => {
      silent.delete(socket);
      record(socket, socket.bytesRead);
    };

    function lookAtWatched(periodic = false) {
      lookPending = false;
      look++;
      const nowMs = Date.now();
      if (periodic) for (const [socket, bytes] of silent) if (socket.bytesRead !== bytes) promote(socket);
      const stalled: Socket[] = [];
      for (const [socket, w] of [...watched]) {
        const bytes = socket.bytesRead;
        if (bytes !== w.bytes || socket.isPaused()) {
          record(socket, bytes);
          continue;
        }
        if (look - w.look < 2) continue; // no full turn of reads since it was seen
        stalled.push(socket);
      }
      // `stalled` is in the order of last progress: the first stopped first.
      for (let i = 0; i < stalled.length - max; i++) {
        const socket = stalled[i]!;
        watched.delete(socket);
        socket.destroy();
        warnings.stalled.closed++;
      }
      warn('stalled', nowMs);
      scheduleRecheck();
    }

    function scheduleRecheck() {
      if (recheck || (watched.size <= max && silent.size === 0)) return;
      recheck = setTimeout(() => {
        recheck = undefined;
        lookAtWatched(true);
      }, RECHECK_MS);
      recheck.unref();
    }

    function shedSilent() {
      if (!descriptors) return;
      if (++sinceCount >= Math.max(RECOUNT_EVERY, connections >> 3)) {
        others = descriptors.count() - connections;
        sinceCount = 0;
      }
      const reserve = descriptorReserve(descriptors.limit);
      let free = descriptors.limit - (others + connections);
      if (free >= reserve) return;
      for (const [socket, bytes] of silent) {
        if (free >= 2 * reserve) break;
        if (socket.bytesRead !== bytes) {
          promote(socket);
          lookSoon();
          continue;
        }
        silent.delete(socket);
        shed.add(socket);
        connections--;
        socket.destroy();
        free++;
        warnings.silent.closed++;
      }
      warn('silent', Date.now());
    }

    const watch = (socket: Socket) => {
      record(socket, socket.bytesRead);
      if (watched.size > max) lookSoon();
    };

    app.server.on('connection', function watchOpening(socket: Socket) {
      if (socket.destroyed) return;
      connections++;
      socket.once('close', () => {
        watched.delete(socket);
        silent.delete(socket);
        if (!shed.has(socket)) connections--;
      });
      // Nothing has been read from it yet: the reads come after this turn's arrivals.
      silent.set(socket, 0);
      scheduleRecheck();
      shedSilent();
    });
    app.server.on('request', function watchBody(req, res) {
      const socket = req.socket;
      watched.delete(socket);
      silent.delete(socket);
      // 'close' follows both a finished response and an aborted one. A connection whose requests are all answered
      // falls silent again (`connection-limit`, registered first, has already counted this one out).
      res.once('close', function fallSilent() {
        if (app.requestsInFlight(socket) > 0 || socket.destroyed) return;
        watched.delete(socket);
        silent.set(socket, socket.bytesRead);
        scheduleRecheck();
      });
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
