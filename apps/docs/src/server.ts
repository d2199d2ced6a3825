// A small static server for the built site: dist/index.html at `/` and at the page paths Redoc routes in the
// browser, the sandbox reference page (dist/sandbox/index.html) at `/sandbox/` and its page paths, and the document
// the site shows at `/openapi.json`. Both are read once at start, compressed in an encoding when it is first asked
// for (gzip, brotli) and kept, and served with an ETag and Last-Modified so that a reload costs a 304. No request, however malformed,
// can stop it: the request target is read without `new URL` (which throws on `//[`), every handler error becomes a
// 500 for that request alone, and Node's parser errors answer 400.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { LLMS_FULL, LLMS_INDEX } from './llms.js';
import { siteDir } from './paths.js';
import { SANDBOX_PAGE } from './sandbox-guides.js';

export interface DocsOptions {
  /** Port to listen on; 0 (the default) takes a free one. `pnpm docs:preview` uses PORT or 8080. */
  port?: number;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** The directory holding index.html; default this package's dist/. */
  dir?: string;
  /** Shorter slow-client timeouts than `TIMEOUTS` (tests). */
  timeouts?: { headersMs: number; requestMs: number; keepAliveMs: number };
}

/** How long a client may take to send its headers and its whole request, and an idle kept-alive connection lives. */
export const TIMEOUTS = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 } as const;

export interface DocsServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  port: number;
  close(): Promise<void>;
}

interface Asset {
  type: string;
  identity: Buffer;
  /** The whole SHA-256 of `identity`: the key of its compressed forms. */
  digest: string;
  etag: string;
  lastModified: string;
  /** Whole seconds, as HTTP dates carry them. */
  mtimeSeconds: number;
}

const PAGE_TYPE = 'text/html; charset=utf-8';
const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';

/** The Markdown pages of the built site (`authentication.md`, `wms-orders/listwmsorders.md`), dist/lib aside. */
async function markdownPages(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .filter((path) => !path.startsWith('lib/'));
}
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

async function loadAsset(file: string, type: string): Promise<Asset> {
  const [identity, info] = await Promise.all([readFile(file), stat(file)]);
  const digest = createHash('sha256').update(identity).digest('base64url');
  const mtimeSeconds = Math.floor(info.mtimeMs / 1000);
  return {
    type,
    identity,
    digest,
    etag: `"${digest.slice(0, 27)}"`,
    lastModified: new Date(mtimeSeconds * 1000).toUTCString(),
    mtimeSeconds,
  };
}

/**
 * The compressed forms of the bytes served, by encoding and content digest: each is made when a client first asks
 * for it, and kept for every server of the process that serves the same bytes. A server compressing every file at
 * start spent most of its start there (about 0.7 CPU-seconds for this site) on forms no client might ask for, again
 * for each server a process starts; keyed by content, a rebuilt file is never answered with its old bytes.
 */
const compressed = new Map<string, Promise<Buffer>>();

function encode(asset: Asset, encoding: 'br' | 'gzip'): Promise<Buffer> {
  const key = `${encoding} ${asset.digest}`;
  let body = compressed.get(key);
  if (!body) {
    body =
      encoding === 'gzip'
        ? gzipAsync(asset.identity, { level: 9 })
        : // Brotli's middle quality: within a few percent of its best on this page, in a fraction of the time.
          brotliAsync(asset.identity, {
            params: { [zlib.BROTLI_PARAM_QUALITY]: 6, [zlib.BROTLI_PARAM_SIZE_HINT]: asset.identity.length },
          });
    // A failed compression is not kept: the next request tries again.
    body.catch(() => compressed.delete(key));
    compressed.set(key, body);
  }
  return body;
}

/**
 * The page paths of the site: Redoc routes every tag (guides included) at `/<slug>`, its operations and headings
 * below it, and the introduction's headings at `/section/<slug>`. The built page links each top-level route, so
 * the first segments it links are the routes there are; a path under one of them is Redoc's to resolve.
 */
export function pageRoutes(html: string, base = '/'): Set<string> {
  const routes = new Set<string>();
  for (const m of html.matchAll(new RegExp(`href="${base}([A-Za-z0-9_-]+)[/"#]`, 'g'))) routes.add(m[1]!);
  return routes;
}

/** Whether `segments` are a page path under one of `routes`: letters, digits and dashes only (Redoc's slugs). */
const isPagePath = (segments: string[], routes: Set<string>) =>
  routes.has(segments[0]!) && segments.every((s, i) => /^[A-Za-z0-9_-]+$/.test(s) || (i > 0 && s === ''));

/** The path of a request target (`/a/b?x` is `/a/b`), or undefined when it is not an origin-form path. */
function pathOf(target: string | undefined): string | undefined {
  if (!target?.startsWith('/')) return undefined;
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

function plain(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  const body = Buffer.from(`${text}\n`);
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': body.length, ...extra });
  res.end(body);
}

/** br, then gzip, then the bytes as they are; `q=0` refuses an encoding. */
function negotiate(acceptEncoding: string | undefined): 'br' | 'gzip' | 'identity' {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return 'identity';
}

function notModified(req: IncomingMessage, asset: Asset): boolean {
  const match = req.headers['if-none-match'];
  if (match !== undefined) {
    return match.split(',').some((tag) => {
      const t = tag.trim();
      return t === '*' || t === asset.etag || t === `W/${asset.etag}`;
    });
  }
  const since = req.headers['if-modified-since'];
  if (since === undefined) return false;
  const at = Date.parse(since);
  return !Number.isNaN(at) && asset.mtimeSeconds <= Math.floor(at / 1000);
}

async function serve(req: IncomingMessage, res: ServerResponse, asset: Asset): Promise<void> {
  const encoding = negotiate(req.headers['accept-encoding']);
  const headers: Record<string, string | number> = {
    'content-type': asset.type,
    etag: asset.etag,
    'last-modified': asset.lastModified,
    // The page changes with every build of the site: always revalidate, which the ETag makes a 304.
    'cache-control': 'no-cache',
    vary: 'Accept-Encoding',
  };
  if (notModified(req, asset)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const body = encoding === 'identity' ? asset.identity : await encode(asset, encoding);
  if (encoding !== 'identity') headers['content-encoding'] = encoding;
  headers['content-length'] = body.length;
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Serves the built site; rejects when dist/index.html does not exist yet. */
export async function startDocs(options: DocsOptions = {}): Promise<DocsServer> {
  const dir = options.dir ?? siteDir;
  let page: Asset;
  try {
    page = await loadAsset(join(dir, 'index.html'), PAGE_TYPE);
  } catch {
    throw new Error(`${join(dir, 'index.html')} does not exist: build the site first (pnpm docs:build)`);
  }
  const document = await loadAsset(join(dir, 'openapi.json'), 'application/json; charset=utf-8').catch(() => undefined);
  // The files beside the page: for coding agents (src/llms.ts), Markdown served as text so that a browser shows it,
  // and the console.
  const files = new Map<string, Asset>();
  for (const name of [LLMS_INDEX, LLMS_FULL]) {
    const asset = await loadAsset(join(dir, name), 'text/plain; charset=utf-8').catch(() => undefined);
    if (asset) files.set(`/${name}`, asset);
  }
  // The console (console/main.ts), which the page loads when a reader first presses "Try it".
  for (const [name, type] of [
    ['console.js', 'text/javascript; charset=utf-8'],
    ['console.css', 'text/css; charset=utf-8'],
  ] as const) {
    const asset = await loadAsset(join(dir, 'console', name), type).catch(() => undefined);
    if (asset) files.set(`/console/${name}`, asset);
  }
  // The Markdown page of each guide and operation (src/llms.ts), as a static host serves a `.md` file.
  for (const path of await markdownPages(dir)) files.set(`/${path}`, await loadAsset(join(dir, path), MARKDOWN_TYPE));
  const routes = pageRoutes(page.identity.toString('utf8'));
  // The sandbox reference, a page of its own; its sections' paths are under its own (`/sandbox/sandbox`).
  const sandboxPage = await loadAsset(join(dir, SANDBOX_PAGE, 'index.html'), PAGE_TYPE).catch(() => undefined);
  const sandboxPath = `/${SANDBOX_PAGE}/`;
  const sandboxRoutes = sandboxPage
    ? pageRoutes(sandboxPage.identity.toString('utf8'), sandboxPath)
    : new Set<string>();

  const assetFor = (path: string): Asset | undefined => {
    if (path === '/openapi.json') return document;
    if (files.has(path)) return files.get(path);
    if (path === '/' || path === '/index.html') return page;
    if (sandboxPage && path === sandboxPath.slice(0, -1)) return sandboxPage;
    if (sandboxPage && path.startsWith(sandboxPath)) {
      const rest = path.slice(sandboxPath.length);
      if (rest === '' || rest === 'index.html') return sandboxPage;
      return isPagePath(rest.split('/'), sandboxRoutes) ? sandboxPage : undefined;
    }
    // A page path: a route the page links, and below it letters, digits and dashes only (Redoc's slugs).
    return isPagePath(path.slice(1).split('/'), routes) ? page : undefined;
  };

  const timeouts = options.timeouts ?? TIMEOUTS;
  // Node checks the first two only every `connectionsCheckingInterval` (30 s by default: a 10 s bound held anywhere
  // from 10 to 40 s); a quarter of the shorter one, at most a second, keeps each within a quarter of its length.
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: Math.max(
        10,
        Math.min(1_000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4)),
      ),
    },
    (req, res) => {
      const failed = (err: unknown) => {
        // One request's failure stays that request's.
        if (!res.headersSent) plain(res, 500, 'Internal error');
        else res.destroy(err as Error);
      };
      try {
        const path = pathOf(req.url);
        if (path === undefined) return plain(res, 400, 'Bad request: the request target must be a path');
        const asset = assetFor(path);
        if (!asset) return plain(res, 404, 'Not found');
        if (req.method !== 'GET' && req.method !== 'HEAD')
          return plain(res, 405, 'Method not allowed', { allow: 'GET, HEAD' });
        serve(req, res, asset).catch(failed);
      } catch (err) {
        failed(err);
      }
    },
  );
  // Malformed HTTP (a bad header, a bad Content-Length) never reaches the handler: answer it and close. A timeout on
  // a connection that has sent nothing (a browser's spare connection) is closed without a byte: an answer written
  // there would be the one the browser reads for its next request, a blank "Bad request" page on a reload. Node
  // times out a kept-alive connection only once a new request has begun (an idle one closes silently at the
  // keep-alive timeout), so nothing received is the only idle case it reports.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const code = (err as { code?: string }).code;
    if (!socket.writable || code === 'ECONNRESET' || (code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0)) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const text = status === 431 ? 'Request header fields too large\n' : 'Bad request\n';
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${text.length}\r\nconnection: close\r\n\r\n${text}`,
    );
  });

  // An Expect other than 100-continue never reaches the handler: Node would answer 417 with an empty body. A body
  // the client sends anyway is not read, so the connection closes rather than read it as the next request.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    plain(res, 417, 'Expectation failed: only 100-continue is supported', { connection: 'close' });
  });

  // CONNECT (a proxy's tunnel) never reaches the handler either, and Node closes the connection unanswered: it is a
  // method the site does not have, answered as any other.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const text = 'Method not allowed\n';
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\nallow: GET, HEAD\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${text.length}\r\nconnection: close\r\n\r\n${text}`,
    );
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${port}/`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
