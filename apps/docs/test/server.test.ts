// startDocs and `pnpm docs:preview` serve the built site.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { offline, startDocs } from '../src/index.js';
import { siteIndex } from '../src/paths.js';

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
});

describe('pnpm docs:preview', () => {
  it('prints the URL, serves the site and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [join(pkgDir, 'dist', 'lib', 'preview.js')], {
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
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
});
