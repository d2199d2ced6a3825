// The front server's HTTP listener: bounds on slow clients, and malformed HTTP answered in the envelope.
import { createServer, type IncomingMessage, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Contract } from './contract.js';
import { send } from './handler.js';
import { errorResponse, type ShapedResponse } from './shape.js';

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
  // A client may close its side of the connection once its request is sent (a half-close, as `nc -N` does) and still
  // read the answer. Unless told otherwise, Node's server takes that end for the client gone: it drops the request and
  // closes the connection, and the answer, still waiting on Prism, is never written. Kept half-open, the connection
  // closes once the answer is written. `httpAllowHalfOpen` is the server's own switch for this, which Node's types
  // leave out.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
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
    socket.end(rawAnswer(shaped));
  });
  // Any expectation but `100-continue` (which Node answers as it should) would get Node's bare 417, a status the
  // contract does not use.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    res.shouldKeepAlive = false;
    res.setHeader('connection', 'close');
    send(
      res,
      errorResponse(
        contract,
        'invalid',
        `The Expect header ${String(req.headers.expect ?? '')} is not supported; only 100-continue is.`,
      ),
    );
  });
  // CONNECT (a proxy tunnel) is a method the contract has nowhere: 404 like any other, where Node would close the
  // connection without a word; then the connection closes.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(rawAnswer(errorResponse(contract, 'unknownRoute', 'No operation CONNECT: this server is not a proxy.')));
  });
  return server;
}

/** An answer written straight to a socket that no response object owns, closing the connection. */
function rawAnswer(shaped: ShapedResponse): Buffer {
  const head = [
    `HTTP/1.1 ${shaped.status} ${STATUS_CODES[shaped.status] ?? ''}`,
    'connection: close',
    `content-length: ${shaped.body.length}`,
  ];
  for (const [name, value] of Object.entries(shaped.headers)) head.push(`${name}: ${String(value)}`);
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), shaped.body]);
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
