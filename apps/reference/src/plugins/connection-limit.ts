import { BlockList, isIP, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import fp from 'fastify-plugin';

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
 *   (the gateway's kind: no Retry-After, no X-RateLimit-*; slow down) and it is closed, and one that sends no request
 *   head within `OVER_CAP_HEAD_MS` is closed unanswered. Other addresses are not affected.
 * - Through a trusted proxy (TRUSTED_PROXIES): the proxy's connections carry many clients, so they are not capped;
 *   instead each forwarded client address may have at most as many requests in flight, and one more is answered 429
 *   RATE_LIMIT_EXCEEDED in the envelope, without Retry-After or X-RateLimit-* (the gateway's kind of 429: slow down).
 */
/** How long a connection over the cap may take to send the request head its 429 answers. */
export const OVER_CAP_HEAD_MS = 1_000;

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

    // Prepended, so that a refused connection is closed before Node's HTTP server starts reading from it.
    app.server.prependListener('connection', function capConnections(socket: Socket) {
      const address = socket.remoteAddress === undefined ? undefined : plainAddress(socket.remoteAddress);
      if (address === undefined || trusted(socket)) return;
      let mine = open.get(address);
      if (!mine) {
        mine = new Set();
        open.set(address, mine);
      }
      if (mine.size >= maxPerAddress) {
        // Sets keep insertion order: the first idle one is the oldest.
        const oldestIdle = [...mine].find(idle);
        if (!oldestIdle) {
          app.log.warn(
            { remoteAddress: address, limit: maxPerAddress },
            'connection over the cap: every connection this address holds is busy',
          );
          overCap.add(socket);
          const cut = setTimeout(() => socket.destroy(), OVER_CAP_HEAD_MS);
          cut.unref();
          socket.once('close', () => clearTimeout(cut));
          return;
        }
        mine.delete(oldestIdle);
        oldestIdle.destroy();
      }
      mine.add(socket);
      const own = mine;
      socket.once('close', () => {
        own.delete(socket);
        if (own.size === 0 && open.get(address) === own) open.delete(address);
      });
    });

    app.addHook('onRequest', async function refuseOverCap(request, reply) {
      if (!overCap.has(request.raw.socket)) return;
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
