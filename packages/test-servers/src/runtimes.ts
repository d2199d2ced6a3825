// The runtimes a package's README promises, in its "Runtimes" table, and each one installed from the npm registry
// when the machine lacks it: the registries are all the machines reach, and Node 22, Bun and Deno ship as binaries
// inside registry packages. One cache for every package's tests, so that a runtime two suites run is fetched once.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** One row of a README's "Runtimes" table: its first three columns; a table may add more. */
export interface RuntimeRow {
  runtime: string;
  version: string;
  from: string;
}

/**
 * The rows of the `## Runtimes` table of a README: its columns start with Runtime, Version and From. Throws when the
 * README has no such table, so a test reading it never passes on an empty matrix.
 */
export function runtimeTable(readme: string): RuntimeRow[] {
  const text = readFileSync(readme, 'utf8');
  const section = /^## Runtimes\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  const [header, rule, ...body] = rows;
  if (header?.[0] !== 'Runtime' || header[1] !== 'Version' || header[2] !== 'From' || !rule?.[0]?.startsWith('---')) {
    throw new Error(`${readme} has no Runtimes table with the columns Runtime, Version, From`);
  }
  if (!body.length) throw new Error(`the Runtimes table of ${readme} has no row`);
  return body.map(([runtime, version, from]) => ({ runtime: runtime!, version: version!, from: from! }));
}

/** The npm package a row installs (From: npm `node@22.23.3`), if it names one. */
export const npmSpec = (row: RuntimeRow): string | undefined => /npm `([^`]+@[^`]+)`/.exec(row.from)?.[1];

/** Where installed runtimes are kept between runs (tens of MB each), by package and version. */
export const RUNTIME_CACHE = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'node_modules',
  '.cache',
  'cls-runtimes',
);

/** The installs under way in this process, by the folder each fills. */
const inFlight = new Map<string, Promise<string>>();

/**
 * The folder holding `spec` installed with npm, installing it first when missing. The install goes into a folder of
 * its own and is renamed into place when complete, so a run killed half-way, or two suites installing the same
 * runtime at once, leave no broken copy behind. Within one process, callers asking for a runtime already being
 * installed wait for that install: a matrix's tests start together, and each of its runtimes is asked for by several
 * of them (the runtimes test of the contract-test kit asks for each twice), where one npm install each is enough.
 */
export function ensureNpmRuntime(spec: string, cache = RUNTIME_CACHE): Promise<string> {
  const dir = join(cache, spec);
  let installing = inFlight.get(dir);
  if (!installing) {
    installing = install(spec, cache, dir).finally(() => inFlight.delete(dir));
    inFlight.set(dir, installing);
  }
  return installing;
}

async function install(spec: string, cache: string, dir: string): Promise<string> {
  if (existsSync(join(dir, '.installed'))) return dir;
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, `.${spec.replace(/[@/]/g, '_')}-`));
  try {
    writeFileSync(join(staging, 'package.json'), JSON.stringify({ private: true }));
    await execFileAsync('npm', ['install', spec, '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: staging,
      timeout: 600_000,
    });
    writeFileSync(join(staging, '.installed'), `${spec}\n`);
    try {
      renameSync(staging, dir);
    } catch (err) {
      // Another suite installed it first.
      if (!existsSync(join(dir, '.installed'))) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** A command an installed runtime package provides (`node`, `bun`, `deno`). */
export const runtimeBin = (dir: string, name: string): string => join(dir, 'node_modules', '.bin', name);
