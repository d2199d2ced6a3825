// startDocs and `pnpm docs:preview` serve the built site.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'node:http';
import { connect, createServer as createNetServer } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { offline, startDocs, withoutTelemetry } from '../src/index.js';
import { siteDir, siteIndex } from '../src/paths.js';
import { SANDBOX_PAGE } from '../src/sandbox-guides.js';

// A command that ignored --help would start serving and never end: the child is killed after this long, so such a
// regression fails here instead of hanging the run (a help text takes a second or two even on a busy machine).
const HELP_GUARD_MS = 120_000;

const pkgDir = resolve(import.meta.dirname, '..');

describe('startDocs', () => {
  it('serves the page at / and at any page path (Redoc routes in the browser), the document, and nothing else', async () => {
    const docs = await startDocs();
    try {
      expect(docs.url).toBe(`http://127.0.0.1:${docs.port}/`);
      const page = readFileSync(siteIndex, 'utf8');
      for (const path of ['', 'index.html', 'wms-orders', 'getting-started/your-first-call']) {
        const res = await fetch(`${docs.url}${path}`);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await res.text()).toBe(page);
      }
      const json = await fetch(`${docs.url}openapi.json`);
      expect(json.status).toBe(200);
      expect(((await json.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
      for (const path of ['lib/index.js', 'favicon.ico', '../package.json']) {
        expect((await fetch(`${docs.url}${path}`)).status, path).toBe(404);
      }
      expect((await fetch(docs.url, { method: 'POST' })).status).toBe(405);
    } finally {
      await docs.close();
    }
    await expect(fetch(docs.url)).rejects.toThrow();
  });

  it('answers an unknown path 404, and a path under a page route with the page', async () => {
    const docs = await startDocs();
    try {
      for (const path of ['nope', 'wms-orders-x', 'wms-orders/a.b', 'index.htm', 'openapi.yaml']) {
        expect((await fetch(`${docs.url}${path}`)).status, path).toBe(404);
      }
      for (const path of ['wms-orders/registerdraftorders', 'section/areas', 'tokens/', 'getting-started?x=1']) {
        expect((await fetch(`${docs.url}${path}`)).status, path).toBe(200);
      }
    } finally {
      await docs.close();
    }
  });

  it('survives malformed request targets and HTTP: every one is answered and the server still serves', async () => {
    const docs = await startDocs();
    try {
      const cases: Array<[string, number]> = [
        ['GET // HTTP/1.1\r\nHost: x\r\n\r\n', 404],
        ['GET //[ HTTP/1.1\r\nHost: x\r\n\r\n', 404],
        ['GET /% HTTP/1.1\r\nHost: x\r\n\r\n', 404],
        ['GET /%FF%FE HTTP/1.1\r\nHost: x\r\n\r\n', 404],
        ['GET * HTTP/1.1\r\nHost: x\r\n\r\n', 400],
        ['GET http://evil.example/ HTTP/1.1\r\nHost: x\r\n\r\n', 400],
        ['GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400],
        ['POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
        [`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
        // Node closed a CONNECT without a byte.
        ['CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n', 405],
      ];
      for (const [raw, status] of cases) {
        expect(await rawStatus(docs.port, raw), JSON.stringify(raw.slice(0, 40))).toBe(status);
      }
      expect((await fetch(docs.url)).status).toBe(200);
    } finally {
      await docs.close();
    }
  });

  it('answers an expectation it cannot meet with 417 and a line saying so, as its other refusals', async () => {
    const docs = await startDocs();
    try {
      // Node answered 417 with an empty body on its own.
      const res = await get(docs.port, '/', { expect: '200-ok' });
      expect(res.status).toBe(417);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.body.toString('utf8')).toBe('Expectation failed: only 100-continue is supported\n');
      expect((await get(docs.port, '/openapi.json', { expect: '100-continue' })).status).toBe(200);
    } finally {
      await docs.close();
    }
  });

  it('serves gzip and brotli by Accept-Encoding, with an ETag and Last-Modified that give a 304', async () => {
    const docs = await startDocs();
    try {
      const page = readFileSync(siteIndex);
      for (const [accept, encoding, decode] of [
        ['br, gzip', 'br', brotliDecompressSync],
        ['gzip', 'gzip', gunzipSync],
        ['br;q=0, gzip', 'gzip', gunzipSync],
        ['identity', null, (b: Buffer) => b],
      ] as const) {
        const res = await get(docs.port, '/', { 'accept-encoding': accept });
        expect(res.status, accept).toBe(200);
        expect(res.headers['content-encoding'] ?? null, accept).toBe(encoding);
        expect(res.headers.vary).toBe('Accept-Encoding');
        expect(Number(res.headers['content-length'])).toBe(res.body.length);
        expect(decode(res.body).equals(page), accept).toBe(true);
        if (encoding) expect(res.body.length, accept).toBeLessThan(page.length / 3);
      }
      const first = await get(docs.port, '/', {});
      expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(first.headers['cache-control']).toBe('no-cache');
      const byTag = await get(docs.port, '/wms-orders', { 'if-none-match': first.headers.etag as string });
      expect([byTag.status, byTag.body.length]).toEqual([304, 0]);
      const byDate = await get(docs.port, '/', { 'if-modified-since': first.headers['last-modified'] as string });
      expect(byDate.status).toBe(304);
      const stale = await get(docs.port, '/', { 'if-none-match': '"other"' });
      expect(stale.status).toBe(200);
      const head = await get(docs.port, '/', {}, 'HEAD');
      expect([head.status, head.body.length, Number(head.headers['content-length'])]).toEqual([200, 0, page.length]);
    } finally {
      await docs.close();
    }
  });

  it('serves the same compressed bytes from every server of a process, and a rebuilt page as it now is', async () => {
    // Each encoding is made on the first request for it and kept for the same bytes (src/server.ts): a second
    // server, a HEAD and a GET answer alike, and a page rebuilt in place is never answered with its old bytes.
    const dir = await mkdtemp(join(tmpdir(), 'cls-docs-rebuilt-'));
    const built = readFileSync(siteIndex);
    writeFileSync(join(dir, 'index.html'), built);
    const answers = async () => {
      const docs = await startDocs({ dir });
      try {
        const out: Record<string, { head: number; body: Buffer }> = {};
        for (const accept of ['br', 'gzip']) {
          const head = await get(docs.port, '/', { 'accept-encoding': accept }, 'HEAD');
          const res = await get(docs.port, '/', { 'accept-encoding': accept });
          expect([head.status, res.status, res.headers['content-encoding']], accept).toEqual([200, 200, accept]);
          expect(head.headers.etag).toBe(res.headers.etag);
          out[accept] = { head: Number(head.headers['content-length']), body: res.body };
        }
        return out;
      } finally {
        await docs.close();
      }
    };
    const first = await answers();
    const second = await answers();
    for (const accept of ['br', 'gzip']) {
      expect(first[accept]!.head, accept).toBe(first[accept]!.body.length);
      expect(second[accept]!.body.equals(first[accept]!.body), accept).toBe(true);
    }
    expect(brotliDecompressSync(second.br!.body).equals(built)).toBe(true);
    const rebuilt = Buffer.concat([built, Buffer.from('<!-- rebuilt -->\n')]);
    writeFileSync(join(dir, 'index.html'), rebuilt);
    const after = await answers();
    expect(brotliDecompressSync(after.br!.body).equals(rebuilt)).toBe(true);
    expect(gunzipSync(after.gzip!.body).equals(rebuilt)).toBe(true);
  });

  it('refuses to start without a built site', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'cls-docs-empty-'));
    await expect(startDocs({ dir: empty })).rejects.toThrow(/pnpm docs:build/);
  });
});

describe('the built page', () => {
  it('loads nothing from a CDN (Redoc inlined, the Redocly logo inline)', () => {
    const page = readFileSync(siteIndex, 'utf8');
    expect(page).not.toMatch(/<script[^>]+src=["']https?:/);
    expect(page).not.toMatch(/<link[^>]+href=["']https?:/);
    expect(page).not.toContain('cdn.redoc.ly');
  });

  it('offline() fails loudly when Redoc stops referencing the logo it replaces', () => {
    expect(() => offline('<html></html>')).toThrow(/no longer references/);
  });

  it("tells Redoc not to report to Redocly from a reader's browser, on both pages", () => {
    for (const file of [siteIndex, join(siteDir, SANDBOX_PAGE, 'index.html')])
      expect(() => withoutTelemetry(readFileSync(file, 'utf8')), file).not.toThrow();
  });

  it('withoutTelemetry() fails the build on a page that would report, or whose options it cannot find', () => {
    const page = (options: object) => `<script>\n      const __redoc_options = ${JSON.stringify(options)};\n</script>`;
    expect(withoutTelemetry(page({ hideLoading: true, disableTelemetry: true }))).toContain('disableTelemetry');
    expect(() => withoutTelemetry(page({ hideLoading: true, disableTelemetry: false }))).toThrow(
      /would send Redoc's telemetry from every reader's browser/,
    );
    expect(() => withoutTelemetry(page({ hideLoading: true }))).toThrow(/would send Redoc's telemetry/);
    expect(() => withoutTelemetry('<html></html>')).toThrow(/has no __redoc_options/);
  });
});

describe('pnpm docs:preview', () => {
  it('prints the URL, serves the site and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [join(pkgDir, 'dist', 'lib', 'preview.js')], {
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          output += c.toString();
          const m = /Documentation site: (http:\/\/\S+)/.exec(output);
          if (m) resolveUrl(m[1]!);
        });
        child.stderr.on('data', (c: Buffer) => (output += c.toString()));
        void exited.then(() => reject(new Error(`preview exited:\n${output}`)));
      });
      expect((await fetch(url)).status).toBe(200);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });

  it('on a port another server holds: one line naming the port and the setting that moves it, exit 1', async () => {
    const holder = createNetServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    try {
      const port = (holder.address() as { port: number }).port;
      const run = spawnSync(process.execPath, [join(pkgDir, 'dist', 'lib', 'preview.js')], {
        encoding: 'utf8',
        timeout: HELP_GUARD_MS,
        env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
      });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toBe(
        `127.0.0.1:${port} is in use: stop what holds it, or set PORT to another port (0 picks a free one)\n`,
      );
    } finally {
      await new Promise((done) => holder.close(done));
    }
  });

  it('--help prints the usage and exits 0 without serving; an unknown option is a usage error, exit 2', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(pkgDir, 'dist', 'lib', 'preview.js'), ...args], {
        encoding: 'utf8',
        timeout: HELP_GUARD_MS,
        env: { ...process.env, PORT: '0' },
      });
    for (const flag of ['--help', '-h']) {
      const help = run(flag);
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^Usage: pnpm docs:preview/);
      expect(help.stdout).not.toContain('Documentation site:');
    }
    const wrong = run('--port', '9000');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--port'");
    expect(wrong.stderr).toContain('Usage: pnpm docs:preview');
  });

  it('handles Ctrl-C from the moment it prints the URL: a SIGINT sent as that line is written stops it with 0', async () => {
    // The preload sends SIGINT to the process inside the write of the URL line, as a reader (or a script) pressing
    // Ctrl-C the moment the line shows. Without a handler already in place, Node dies of the signal and pnpm reports
    // "ELIFECYCLE Command failed" (a CI run met exactly that).
    const preload = `data:text/javascript,${encodeURIComponent(
      "const w = process.stdout.write.bind(process.stdout); process.stdout.write = (c, ...r) => { const out = w(c, ...r); if (String(c).includes('Documentation site:')) process.kill(process.pid, 'SIGINT'); return out; };",
    )}`;
    const child = spawn(process.execPath, ['--import', preload, join(pkgDir, 'dist', 'lib', 'preview.js')], {
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      child.once('close', (c, s) => r([c, s])),
    );
    expect(output).toContain('Documentation site: http');
    expect({ code, signal }, output).toEqual({ code: 0, signal: null });
  });
});

/** Sends raw bytes and reads the status line of the answer (0 when the server closed without one). */
function rawStatus(port: number, raw: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    // Only against a server that never answers: an answer may take seconds on a busy machine (the test allows 120 s).
    socket.setTimeout(60_000, () => socket.end());
    // The server keeps a good connection open: stop reading once the head has arrived.
    socket.on('data', () => {
      if (text.includes('\r\n\r\n')) socket.end();
    });
  });
}

/** A GET (or HEAD) whose body is kept as bytes, without fetch's automatic decompression. */
function get(port: number, path: string, headers: Record<string, string>, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on('error', reject);
      req.end();
    },
  );
}
