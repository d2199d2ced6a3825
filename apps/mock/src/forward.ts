// A request the front server let through, passed on to Prism as it came, with the Prefer header the front server
// resolved and the body it already read.
import { type Agent, type IncomingMessage, request } from 'node:http';

export interface Upstream {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/**
 * The headers Prism does not get as sent: those of the client's connection to the mock (HTTP's hop-by-hop headers),
 * how the body came (read already, it is sent whole with its length: a chunked body's `Transfer-Encoding` beside a
 * `Content-Length` is a request Prism's HTTP parser refuses with a 400 and no body, and a `Trailer` announced for a
 * body with a length made Node's client throw, a 500), and Prefer.
 */
const REPLACED = [
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'prefer',
];

export function forward(
  agent: Agent,
  req: IncomingMessage,
  port: number,
  body: Buffer,
  prefer: string | undefined,
): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !REPLACED.includes(name)) headers[name] = value;
    }
    if (prefer) headers.prefer = prefer;
    if (body.length > 0 || req.headers['content-length'] !== undefined) headers['content-length'] = String(body.length);
    const upstream = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.once('error', reject);
    });
    upstream.once('error', reject);
    upstream.end(body);
  });
}
