// The runtime matrix: the packed package, installed with npm into a fresh project outside the repository, runs the
// example the README starts with against the seeded reference server on every runtime of the README's "Runtimes"
// table. The table is what is run: each row names a runtime, its version and where it comes from; a runtime
// missing here is installed from the npm registry at the version the row names (`ensureNpmRuntime` of
// @cls-api/test-servers, which keeps it between runs for every suite), and the version that runs is checked against
// the row.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, relative, sep } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS, ensureChromium } from '@cls-api/chromium';
import {
  ensureNpmRuntime,
  keyOf,
  npmSpec,
  RUNTIME_CACHE,
  type ReferenceServer,
  type RuntimeRow,
  runtimeBin,
  runtimeTable,
  startReference,
} from '@cls-api/test-servers';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAndInstall, packageDir, readmeExample, run } from './packed.js';

let work: string;
let project: string;
let reference: ReferenceServer;
/** The lines the example should print: the first page of the account's orders, as the server lists them. */
let expected: string[];

/** The entry module a bare specifier names in the project's node_modules (its package.json's `exports`). */
function entryOf(specifier: string): string {
  const dir = join(project, 'node_modules', specifier);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const dot = typeof manifest.exports === 'string' ? manifest.exports : manifest.exports?.['.'];
  const target = typeof dot === 'string' ? dot : (dot?.import ?? dot?.default ?? manifest.module ?? manifest.main);
  if (typeof target !== 'string') throw new Error(`no ES module entry for ${specifier}`);
  return join(dir, target);
}

/**
 * Every module the example reaches, from the installed files as they are, and every bare specifier among their
 * imports with the entry it names (what a Worker's bundle or a page's import map must provide).
 */
function moduleGraph(start: string, startContents: string) {
  const modules = new Map<string, string>();
  const bare = new Map<string, string>();
  const importer = new Map<string, string[]>();
  const visit = (path: string, contents?: string) => {
    if (modules.has(path)) return;
    const text = contents ?? readFileSync(path, 'utf8');
    modules.set(path, text);
    for (const m of text.matchAll(
      /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g,
    )) {
      const specifier = (m[1] ?? m[2])!;
      if (specifier.startsWith('.')) {
        visit(join(dirname(path), specifier));
        continue;
      }
      const entry = entryOf(specifier);
      bare.set(specifier, entry);
      importer.set(specifier, [...(importer.get(specifier) ?? []), path]);
      visit(entry);
    }
  };
  visit(start, startContents);
  return { modules, bare, importer };
}

/** The README example with the reference server's address and a key of the seeded account. */
let example: string;

/** The example as a Worker: its imports on top, the rest inside the `fetch` handler, its output the response. */
function asWorker(source: string): string {
  const lines = source.split('\n');
  const imports = lines.filter((l) => /^import\s/.test(l));
  const body = lines.filter((l) => !/^import\s/.test(l) && !l.startsWith('//'));
  return [
    ...imports,
    'export default {',
    '  async fetch() {',
    '    const printed = [];',
    "    const console = { log: (...parts) => printed.push(parts.join(' ')) };",
    ...body.map((l) => `    ${l}`),
    "    return new Response(printed.join('\\n'));",
    '  },',
    '};',
  ].join('\n');
}

const env = {
  ...process.env,
  NO_COLOR: '1',
  DO_NOT_TRACK: '1',
  DENO_NO_UPDATE_CHECK: '1',
  DENO_DIR: join(RUNTIME_CACHE, 'deno-dir'),
};

/** What this test uses of miniflare, which is installed by the test rather than declared as a dependency. */
interface MiniflareModule {
  Miniflare: new (options: {
    modules: { type: 'ESModule'; path: string; contents: string }[];
    modulesRoot: string;
    compatibilityDate: string;
  }) => { dispatchFetch(url: string): Promise<Response>; dispose(): Promise<void> };
}

type Runner = (row: RuntimeRow) => Promise<{ version: string; printed: string[] }>;

const lines = (text: string) => text.trim().split('\n');

/** A Node.js of another major than this process's, from the npm package its row names. */
const nodeFromNpm: Runner = async (row) => {
  const node = runtimeBin(await ensureNpmRuntime(npmSpec(row)!), 'node');
  const version = (await run(node, ['--version'], { env })).stdout.trim().replace(/^v/, '');
  const { stdout } = await run(node, ['example.mjs'], { cwd: project, env });
  return { version, printed: lines(stdout) };
};

/** How each runtime of the table runs the example, by the table's name for it. */
const RUNNERS: Record<string, Runner> = {
  'Node.js 20': async () => {
    const { stdout } = await run(process.execPath, ['example.mjs'], { cwd: project, env });
    return { version: process.versions.node.split('.')[0]!, printed: lines(stdout) };
  },
  'Node.js 22': nodeFromNpm,
  'Node.js 24': nodeFromNpm,
  'Node.js 26': nodeFromNpm,
  Bun: async (row) => {
    const bun = runtimeBin(await ensureNpmRuntime(npmSpec(row)!), 'bun');
    const version = (await run(bun, ['--version'], { env })).stdout.trim();
    const { stdout } = await run(bun, ['example.mjs'], { cwd: project, env });
    return { version, printed: lines(stdout) };
  },
  Deno: async (row) => {
    const deno = runtimeBin(await ensureNpmRuntime(npmSpec(row)!), 'deno');
    const version = /deno (\S+)/.exec((await run(deno, ['--version'], { env })).stdout)?.[1] ?? '';
    const { stdout } = await run(
      deno,
      ['run', '--node-modules-dir=manual', '--allow-net', '--allow-read', '--allow-env', 'example.mjs'],
      { cwd: project, env },
    );
    return { version, printed: lines(stdout) };
  },
  'Cloudflare Workers (workerd)': async (row) => {
    const spec = npmSpec(row)!;
    const dir = await ensureNpmRuntime(spec);
    const manifest = join(dir, 'node_modules', 'miniflare', 'package.json');
    const version = JSON.parse(readFileSync(manifest, 'utf8')).version as string;
    const { Miniflare } = createRequire(manifest)('miniflare') as MiniflareModule;
    // workerd resolves an import by its name next to the importing module, bare names included: each bare import
    // gets a module of that name there that re-exports the package's entry, as a bundler would link it.
    const worker = join(project, 'worker.mjs');
    const graph = moduleGraph(worker, asWorker(example));
    const modules = [...graph.modules].map(([path, contents]) => ({ type: 'ESModule' as const, path, contents }));
    for (const [specifier, entry] of graph.bare) {
      const hasDefault = /\bexport\s+default\b|\bas\s+default\b/.test(readFileSync(entry, 'utf8'));
      for (const from of graph.importer.get(specifier) ?? []) {
        const path = join(dirname(from), specifier);
        let target = relative(dirname(path), entry);
        if (!target.startsWith('.')) target = `./${target}`;
        const contents = `export * from '${target}';${hasDefault ? ` export { default } from '${target}';` : ''}`;
        if (!modules.some((m) => m.path === path)) modules.push({ type: 'ESModule', path, contents });
      }
    }
    const mf = new Miniflare({ modules, modulesRoot: project, compatibilityDate: '2026-04-01' });
    try {
      const response = await mf.dispatchFetch('http://worker.test/');
      const text = await response.text();
      if (response.status !== 200) throw new Error(`the Worker answered ${response.status}: ${text}`);
      return { version, printed: lines(text) };
    } finally {
      await mf.dispose();
    }
  },
  Chromium: async () => {
    const executablePath = await ensureChromium();
    const { bare } = moduleGraph(join(project, 'example.mjs'), example);
    const imports = Object.fromEntries(
      [...bare].map(([specifier, entry]) => [specifier, `/${relative(project, entry).split(sep).join('/')}`]),
    );
    const page = `<!doctype html><meta charset="utf-8"><title>example</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module">
  import('/example.mjs').then(() => { document.title = 'done'; }, (e) => { document.title = 'failed: ' + e; });
</script>`;
    const server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://page').pathname);
      if (path === '/') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
        return;
      }
      const file = normalize(join(project, path));
      if (!file.startsWith(project + sep) || !existsSync(file) || !['.js', '.mjs'].includes(extname(file))) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 120_000 });
    try {
      const tab = await browser.newPage();
      const printed: string[] = [];
      tab.on('console', (message) => {
        if (message.type() === 'log') printed.push(message.text());
      });
      const { port } = (server as Server).address() as { port: number };
      await tab.goto(`http://127.0.0.1:${port}/`);
      await tab.waitForFunction(() => document.title !== 'example', undefined, { timeout: 60_000 });
      const title = await tab.title();
      if (title !== 'done') throw new Error(`the example failed in Chromium: ${title}`);
      // Debian's package is the one installed at CHROMIUM; any other browser would be named by its path.
      return { version: executablePath === CHROMIUM ? "Debian's" : executablePath, printed };
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  },
};

const table = runtimeTable(join(packageDir, 'README.md'));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cls-client-runtimes-'));
  ({ project } = await packAndInstall(work));
  reference = await startReference({ from: import.meta.url });
  const key = keyOf(reference.accounts[0]!, 'manager');
  const source = readmeExample(project);
  expect(source).toContain("'http://127.0.0.1:4010'");
  expect(source).toContain("'manager_test_mock'");
  example = source
    .replace("'http://127.0.0.1:4010'", `'${reference.baseUrl}'`)
    .replace("'manager_test_mock'", `'${key}'`);
  writeFileSync(join(project, 'example.mjs'), example);
  const listed = await fetch(`${reference.baseUrl}/v3/manager/orders?page=1&size=10`, {
    headers: { 'X-API-Key': key },
  });
  const body = (await listed.json()) as {
    data: { order_no: string; order_status_code: number; registered_date: string }[];
  };
  expected = body.data.map((o) => `${o.order_no} ${o.order_status_code} ${o.registered_date}`);
  expect(expected.length).toBeGreaterThan(0);
}, 900_000);

afterAll(async () => {
  await reference?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the README example on every runtime of the README table', () => {
  it('the table names exactly the runtimes this test runs', () => {
    expect(table.map((row) => row.runtime).sort()).toEqual(Object.keys(RUNNERS).sort());
  });

  it.each(table)('$runtime $version', { timeout: 900_000 }, async (row) => {
    const runner = RUNNERS[row.runtime];
    expect(runner, `no runner for the table's ${row.runtime}`).toBeDefined();
    const spec = npmSpec(row);
    if (spec) expect(spec.slice(spec.lastIndexOf('@') + 1), `${row.runtime}: From names the Version`).toBe(row.version);
    const { version, printed } = await runner!(row);
    expect(version).toBe(row.version);
    expect(printed).toEqual(expected);
  });
});
