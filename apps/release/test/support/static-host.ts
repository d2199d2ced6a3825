// A static host as GitHub Pages serves a project site: the site's files under a path (`/contract/`), a directory's
// index.html at its path with a slash (the path without one redirected there), 404.html with status 404 for anything
// else, and a type by extension. And a crawl of the site it serves: every in-site link of every file, followed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
};

export interface StaticHost {
  /** `http://127.0.0.1:<port>/contract/` */
  url: string;
  close(): Promise<void>;
}

/** Serves `dir` under `base` (`/contract/`) as GitHub Pages does. */
export async function startStaticHost(dir: string, base: string): Promise<StaticHost> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split(/[?#]/)[0]!);
    const send = (status: number, file: string) => {
      res.writeHead(status, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      res.end(readFileSync(file));
    };
    const notFound = () => send(404, join(dir, '404.html'));
    if (!path.startsWith(base) || path.split('/').includes('..')) return notFound();
    const file = join(dir, path.slice(base.length));
    if (!existsSync(file)) return notFound();
    if (statSync(file).isDirectory()) {
      if (!path.endsWith('/')) {
        res.writeHead(301, { location: `${path}/` });
        return res.end();
      }
      return existsSync(join(file, 'index.html')) ? send(200, join(file, 'index.html')) : notFound();
    }
    send(200, file);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${base}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Every file of the site, as paths relative to it. */
export function siteFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

/**
 * The links a file holds: an HTML file's `href`, `src` and refresh targets outside its scripts (the page's script
 * bundle writes markup of its own at run time), a Markdown or text file's link targets.
 */
export function linksIn(path: string, text: string): string[] {
  if (path.endsWith('.html')) {
    const markup = text
      .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')
      .replace(/<style\b[^>]*>[\s\S]*?<\/style>/g, '');
    return [
      ...[...markup.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1]!),
      ...[...markup.matchAll(/http-equiv="refresh" content="\d+; url=([^"]*)"/g)].map((m) => m[1]!),
    ];
  }
  if (/\.(md|txt)$/.test(path)) return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return [];
}
