// What @cls-api/client costs a web page: the published package (packed with `pnpm pack`, installed with npm into a
// fresh project, its dependencies with it) bundled for the browser from an entry that imports only `createClient`
// and makes one call, minified and gzipped. Beside it, the same entry on openapi-fetch alone, the base the client
// is built on. A size, not a time: the result is the same on every machine.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { rolldown, VERSION as ROLLDOWN_VERSION } from 'rolldown';
import type { Context } from '../context.js';
import { GET_REQUEST } from '../context.js';

const run = promisify(execFile);

export interface BundleSize {
  /** The entry module, as written. */
  entry: string;
  minifiedBytes: number;
  gzipBytes: number;
  /** Bytes of each package's code in the bundle before minification: how the bundle divides. */
  byPackage: Record<string, number>;
}

export interface BundleResult {
  clientVersion: string;
  openapiFetchVersion: string;
  bundler: string;
  client: BundleSize;
  /** The same call through openapi-fetch alone. */
  openapiFetch: BundleSize;
  /** client ÷ openapi-fetch alone, gzipped. */
  ratio: number;
}

/** The package a bundled module belongs to: the last `node_modules/<name>` of its path, or the entry. */
function packageOf(id: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(id);
  return m?.[1] ?? '(entry)';
}

async function bundle(project: string, file: string, entry: string): Promise<BundleSize> {
  const input = join(project, file);
  writeFileSync(input, entry);
  const build = await rolldown({ input, platform: 'browser', logLevel: 'warn' });
  try {
    const { output } = await build.generate({ format: 'esm', minify: true });
    if (output.length !== 1 || output[0].type !== 'chunk') throw new Error(`${file}: expected one chunk`);
    const chunk = output[0];
    const byPackage: Record<string, number> = {};
    for (const [id, module] of Object.entries(chunk.modules)) {
      const name = packageOf(id);
      byPackage[name] = (byPackage[name] ?? 0) + module.renderedLength;
    }
    const code = Buffer.from(chunk.code);
    return { entry, minifiedBytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length, byPackage };
  } finally {
    await build.close();
  }
}

export async function runBundle(ctx: Context): Promise<BundleResult> {
  const { log } = ctx;
  const work = mkdtempSync(join(tmpdir(), 'cls-bench-bundle-'));
  try {
    const packDir = join(work, 'pack');
    mkdirSync(packDir);
    log('pnpm pack @cls-api/client…');
    await run('pnpm', ['--filter', '@cls-api/client', 'pack', '--pack-destination', packDir], {
      cwd: ctx.repoRoot,
      timeout: 300_000,
    });
    const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);
    const project = join(work, 'page');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'page', private: true, type: 'module' }));
    log('npm install of the tarball…');
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: project,
      timeout: 300_000,
    });
    const version = (name: string) =>
      JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')).version as string;

    const query = Object.fromEntries(new URLSearchParams(GET_REQUEST.query));
    const call = `GET('${GET_REQUEST.path}', { params: { query: ${JSON.stringify(query).replace(/"(\d+)"/g, '$1')} } })`;
    log('bundling…');
    const client = await bundle(
      project,
      'client-entry.mjs',
      [
        "import { createClient } from '@cls-api/client';",
        "const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'key' });",
        `export const listOrders = () => client.${call};`,
        '',
      ].join('\n'),
    );
    const openapiFetch = await bundle(
      project,
      'openapi-fetch-entry.mjs',
      [
        "import createClient from 'openapi-fetch';",
        "const client = createClient({ baseUrl: 'https://api.example.com', headers: { 'X-API-Key': 'key' } });",
        `export const listOrders = () => client.${call};`,
        '',
      ].join('\n'),
    );
    log(`client ${client.gzipBytes} B gzipped, openapi-fetch alone ${openapiFetch.gzipBytes} B`);
    return {
      clientVersion: version('@cls-api/client'),
      openapiFetchVersion: version('openapi-fetch'),
      bundler: `rolldown ${ROLLDOWN_VERSION} (ES module for the browser, tree-shaken, minified), gzip level 9`,
      client,
      openapiFetch,
      ratio: client.gzipBytes / openapiFetch.gzipBytes,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
