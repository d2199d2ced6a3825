// The front server's HTTP listener: bounds on slow clients, and malformed HTTP answered in the envelope.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Contract } from './contract.js';
import { send } from './handler.js';
import { errorResponse } from './shape.js';

/** How long a client may take to send a request's headers, and the whole request (README, "Operations"). */
export const TIMEOUTS = { headersMs: 10_000, requestMs: 60_000 } as const;

/**
 * How often Node checks those timeouts. Node looks at them only every `connectionsCheckingInterval` (30 s by
 * default), so a 10 s bound was enforced anywhere from 10 to 40 s; checking every quarter of the shorter one (at
 * most every second) keeps each within a quarter of its own length.
 */
export function checkingIntervalMs(headersMs: number, requestMs: number): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(headersMs, requestMs) / 4)));
}

/**
 * A timeout on a connection that has sent no request (opened and left idle: a browser keeps a spare one). An answer
 * written there would be taken as the answer to the client's next request, so it is closed without a byte. Node
 * times out a kept-alive connection's head only once a new request has begun, and closes an idle one at the
 * keep-alive timeout silently: nothing received is the only idle case it reports.
 */
function sentNothing(err: NodeJS.ErrnoException, socket: Socket): boolean {
  return err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0;
}

export function createListener(
  contract: Contract,
  timeouts: { headersMs: number; requestMs: number },
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Server {
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: checkingIntervalMs(timeouts.headersMs, timeouts.requestMs),
    },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) send(res, errorResponse(contract, 'internal', `Mock: ${(err as Error).message}`));
        else res.destroy();
      });
    },
  );
  // Malformed HTTP never reaches the handler (Node's parser refuses it): it still gets the envelope, with a status
  // the contract uses, rather than Node's bare 400 or 431.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || err.code === 'ECONNRESET' || sentNothing(err, socket)) {
      socket.destroy();
      return;
    }
    const shaped = errorResponse(
      contract,
      'invalid',
      err.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are too large.' : 'The request is not valid HTTP.',
    );
    const head = [
      `HTTP/1.1 ${shaped.status} Bad Request`,
      'connection: close',
      `content-length: ${shaped.body.length}`,
    ];
    for (const [name, value] of Object.entries(shaped.headers)) head.push(`${name}: ${String(value)}`);
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), shaped.body]));
  });
  return server;
}

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The host of a URL a client can use: a wildcard address is shown as loopback, an IPv6 one in brackets. */
export function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
