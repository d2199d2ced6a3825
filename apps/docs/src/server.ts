// A small static server for the built site: dist/index.html at `/` and the document it shows at `/openapi.json`.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { siteDir } from './paths.js';

export interface DocsOptions {
  /** Port to listen on; 0 (the default) takes a free one. `pnpm docs:preview` uses PORT or 8080. */
  port?: number;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** The directory holding index.html; default this package's dist/. */
  dir?: string;
}

export interface DocsServer {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  port: number;
  close(): Promise<void>;
}

const PAGE = { file: 'index.html', type: 'text/html; charset=utf-8' };
/** The files of the site by URL path. Nothing else in the directory (the compiled code in lib/) is served. */
const FILES: Record<string, { file: string; type: string }> = {
  '/openapi.json': { file: 'openapi.json', type: 'application/json; charset=utf-8' },
};

/**
 * Redoc routes in the browser: each tag is a page at its own path (`/wms-orders`), so every path without a file
 * extension is the page itself, and a reload or a shared link works.
 */
function entryFor(path: string): { file: string; type: string } | undefined {
  return FILES[path] ?? (/\.[A-Za-z0-9]+$/.test(path) && path !== '/index.html' ? undefined : PAGE);
}

/** Serves the built site; rejects when dist/index.html does not exist yet. */
export async function startDocs(options: DocsOptions = {}): Promise<DocsServer> {
  const dir = options.dir ?? siteDir;
  try {
    await readFile(join(dir, 'index.html'));
  } catch {
    throw new Error(`${join(dir, 'index.html')} does not exist: build the site first (pnpm docs:build)`);
  }
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://docs.invalid').pathname;
    const entry = entryFor(path);
    if (!entry || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(entry ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(entry ? 'Method not allowed\n' : 'Not found\n');
      return;
    }
    readFile(join(dir, entry.file)).then(
      (body) => {
        res.writeHead(200, { 'content-type': entry.type, 'content-length': body.length, 'cache-control': 'no-cache' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Not found\n');
      },
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
