import { BlockList, isIP, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests in flight on a connection: from its parsed head until its response has ended or was aborted. */
    requestsInFlight(socket: Socket): number;
  }
}

export interface ConnectionLimitOptions extends Record<string, unknown> {
  /** Open connections (or, through a trusted proxy, requests in flight) one client address may have. */
  maxPerAddress: number;
  /** TRUSTED_PROXIES: addresses and CIDR ranges whose connections carry many clients' requests. */
  trustedProxies: readonly string[];
}

/** `::ffff:192.0.2.1` (an IPv4 peer of a dual-stack socket) is the IPv4 address it wraps. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** Whether an address is one of the trusted proxies (the same list Fastify's `trustProxy` is given). */
export function proxyMatcher(trustedProxies: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of trustedProxies) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return (address) => {
    const plain = plainAddress(address);
    return list.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
  };
}

/**
 * Caps what one client address holds open, so that a client opening connections and leaving them idle (or
 * trickling bytes into them) cannot take every connection the server has. The address is the one the gateway limit
 * sees (`request.ip`):
 *
 * - A direct client holds at most `maxPerAddress` connections. A new one over the cap first takes the place of the
 *   client's oldest idle connection (a keep-alive connection that has served a request and has none in flight: the
 *   client's pool reopens one when it needs it), so a client's burst is never refused for its own idle pool. A
 *   connection that has not yet sent a whole request head is not idle: a burst of new connections must not push
 *   each other out before they are read, and one that trickles its head is cut by the headers timeout. When none of them is idle, the new
 *   connection is not counted: its first request is answered 429 RATE_LIMIT_EXCEEDED in the envelope
 *   (the gateway's kind: no Retry-After, no X-RateLimit-*; slow down) and it is closed. However long its client takes
 *   to write that request (a busy client may take seconds), the answer is the 429: how long it waited is no verdict.
 *   What bounds these connections is their number: an address has at most `maxPerAddress` of them waiting for their
 *   request, and one more closes the one that has waited longest, unanswered (besides the headers timeout, and the
 *   file descriptors `incomplete-requests` sheds silent connections by). Other addresses are not affected.
 * - Through a trusted proxy (TRUSTED_PROXIES): the proxy's connections carry many clients, so they are not capped;
 *   instead each forwarded client address may have at most as many requests in flight, and one more is answered 429
 *   RATE_LIMIT_EXCEEDED in the envelope, without Retry-After or X-RateLimit-* (the gateway's kind of 429: slow down).
 */
export const connectionLimit = fp<ConnectionLimitOptions>(
  async (app: FastifyInstance, options) => {
    const { maxPerAddress } = options;
    const matches = proxyMatcher(options.trustedProxies);
    // Whether a connection comes from a trusted proxy, decided once per connection: every request on it would
    // otherwise check its peer against the list again (a measurable share of a request's CPU, BENCHMARKS.md).
    const fromProxy = new WeakMap<Socket, boolean>();
    const trusted = (socket: Socket): boolean => {
      let known = fromProxy.get(socket);
      if (known === undefined) {
        known =
          options.trustedProxies.length > 0 && socket.remoteAddress !== undefined && matches(socket.remoteAddress);
        fromProxy.set(socket, known);
      }
      return known;
    };
    const open = new Map<string, Set<Socket>>();
    // A connection is busy while a request is in flight in it (from its parsed head to its response's end). The
    // socket's bytes are not watched: Node's HTTP parser reads them natively, and a 'data' listener would race it.
    const inFlightOn = new WeakMap<Socket, number>();
    const served = new WeakSet<Socket>();
    const idle = (socket: Socket) => served.has(socket) && (inFlightOn.get(socket) ?? 0) === 0;
    const overCap = new WeakSet<Socket>();
    // Connections over the cap that have not yet sent the request their 429 answers, by address, oldest first.
    const waiting = new Map<string, Set<Socket>>();
    app.decorate('requestsInFlight', (socket: Socket) => inFlightOn.get(socket) ?? 0);
    app.server.on('request', function trackInFlight(req, res) {
      const socket = req.socket;
      inFlightOn.set(socket, (inFlightOn.get(socket) ?? 0) + 1);
      res.once('close', () => {
        inFlightOn.set(socket, (inFlightOn.get(socket) ?? 1) - 1);
        served.add(socket);
      });
    });
    const release = (map: Map<string, number>, key: string) => {
      const left = (map.get(key) ?? 1) - 1;
      if (left <= 0) map.delete(key);
      else map.set(key, left);
    };

    /** Adds the socket to its address's set in `held` until it closes (an empty set is dropped). */
    const hold = (held: Map<string, Set<Socket>>, address: string, socket: Socket) => {
      let own = held.get(address);
      if (!own) {
        own = new Set();
        held.set(address, own);
      }
      own.add(socket);
      const set = own;
      socket.once('close', () => {
        set.delete(socket);
        if (set.size === 0 && held.get(address) === set) held.delete(address);
      });
    };

    // Prepended, so that a refused connection is closed before Node's HTTP server starts reading from it.
    app.server.prependListener('connection', function capConnections(socket: Socket) {
      const address = socket.remoteAddress === undefined ? undefined : plainAddress(socket.remoteAddress);
      if (address === undefined || trusted(socket)) return;
      const mine = open.get(address);
      if (mine && mine.size >= maxPerAddress) {
        // Sets keep insertion order: the first idle one is the oldest.
        const oldestIdle = [...mine].find(idle);
        if (!oldestIdle) {
          app.log.warn(
            { remoteAddress: address, limit: maxPerAddress },
            'connection over the cap: every connection this address holds is busy',
          );
          overCap.add(socket);
          const refused = waiting.get(address);
          if (refused && refused.size >= maxPerAddress) {
            const longest = refused.values().next().value!;
            refused.delete(longest);
            longest.destroy();
          }
          hold(waiting, address, socket);
          return;
        }
        mine.delete(oldestIdle);
        oldestIdle.destroy();
      }
      hold(open, address, socket);
    });

    app.addHook('onRequest', async function refuseOverCap(request, reply) {
      const socket = request.raw.socket;
      if (!overCap.has(socket)) return;
      // Answered: no longer waiting, so the address's next refused connection does not push this one out.
      const address = socket.remoteAddress === undefined ? undefined : plainAddress(socket.remoteAddress);
      if (address !== undefined) waiting.get(address)?.delete(socket);
      reply.header('connection', 'close');
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        'Too many connections at once from this address. Slow down and retry with backoff.',
      );
    });

    const inFlight = new Map<string, number>();
    app.addHook('onRequest', async function capProxiedRequests(request, reply) {
      if (!trusted(request.socket)) return;
      const client = plainAddress(request.ip);
      const count = (inFlight.get(client) ?? 0) + 1;
      if (count > maxPerAddress)
        throw new ApiError(
          'RATE_LIMIT_EXCEEDED',
          'Too many requests at once from this address. Slow down and retry with backoff.',
        );
      inFlight.set(client, count);
      // 'close' follows both a finished response and an aborted one.
      reply.raw.once('close', () => release(inFlight, client));
    });
  },
  { name: 'connection-limit', fastify: '5.x', dependencies: ['cors'] },
);
