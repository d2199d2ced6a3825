// Runs code samples the way a reader would: shell samples through bash, one guide's samples in one sequence so that
// a variable a sample exports (the token of "Authentication") reaches the next; TypeScript samples compiled with
// the repository's strict settings and run with node. Used for the guides and for the package READMEs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { CodeBlock } from '../src/code-blocks.js';

const pkgDir = resolve(import.meta.dirname, '..');
const repoRoot = resolve(pkgDir, '..', '..');

export interface SampleRun {
  ok: boolean;
  /** What went wrong, for the test's message. */
  problem?: string;
  output: string;
}

/** A working directory under reports/ (ignored by git), inside the package so that `@cls-api/client` resolves. */
export function workDir(name: string): string {
  const dir = join(pkgDir, 'reports', 'samples-run', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The `"code": "…"` values of the error bodies in an output. */
function errorCodes(output: string): string[] {
  return [...output.matchAll(/"success"\s*:\s*false\s*,\s*"error"\s*:\s*\{\s*"code"\s*:\s*"([A-Z0-9_]+)"/g)].map(
    (m) => m[1]!,
  );
}

/** Judges a run's output by the block's mark: a sample that is not marked to fail must not print an error body. */
function judge(block: CodeBlock, status: number | null, output: string): SampleRun {
  const codes = errorCodes(output);
  if (block.mark.kind === 'expect') {
    if (!codes.includes(block.mark.code))
      return { ok: false, output, problem: `expected ${block.mark.code} in the output` };
    const http = /HTTP (\d{3})/.exec(output);
    if (http && Number(http[1]) !== block.mark.status)
      return { ok: false, output, problem: `expected HTTP ${block.mark.status}, got ${http[1]}` };
    if (status !== 0) return { ok: false, output, problem: `exit code ${status}` };
    return { ok: true, output };
  }
  if (status !== 0) return { ok: false, output, problem: `exit code ${status}` };
  if (codes.length > 0) return { ok: false, output, problem: `the API answered ${codes.join(', ')}` };
  if (block.mark.kind === 'prints' && !output.includes(block.mark.text))
    return { ok: false, output, problem: `expected the output to contain "${block.mark.text}"` };
  return { ok: true, output };
}

/**
 * Runs one shell sample in `dir` with bash, after the variables earlier samples of the sequence exported
 * (`state.sh`), and keeps the CLS_ variables it leaves for the next. A variable left empty, `null` or `undefined` (a
 * token read out of a body that had none) fails the sample.
 */
export function runShell(block: CodeBlock, dir: string, env: Record<string, string>): SampleRun {
  writeFileSync(join(dir, 'sample.sh'), block.source);
  // Bash's own expansions (${!CLS_@}, ${!v}), written out of template literals so that none is read as one.
  const $ = '$';
  const wrapper = [
    'set -eo pipefail',
    '[ -f state.sh ] && source state.sh',
    'source sample.sh',
    `for v in ${$}{!CLS_@}; do`,
    `  if [ -z "${$}{!v}" ] || [ "${$}{!v}" = null ] || [ "${$}{!v}" = undefined ]; then echo "the sample left $v empty" >&2; exit 97; fi`,
    `  printf 'export %s=%q\\n' "$v" "${$}{!v}"`,
    'done > state.sh',
  ].join('\n');
  // No startup file: bash started with a socket as its input and no SHLVL, as here, reads ~/.bashrc as if a remote
  // shell daemon had started it, which put the machine's own settings (and 0.4 s) into every shell sample.
  const res = spawnSync('bash', ['--noprofile', '--norc', '-c', wrapper], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? dir,
      TMPDIR: sampleHome(dir).TMPDIR,
      ...env,
    },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return judge(block, res.status, `${res.stdout}${res.stderr}`);
}

/**
 * HOME in the sample's directory, and the test run's own temporary folder as TMPDIR (short: Chromium puts a socket
 * there, and a socket's path has at most 107 characters).
 */
export function sampleHome(dir: string): { HOME: string; TMPDIR: string } {
  return { HOME: dir, TMPDIR: tmpdir() };
}

/** Forgets what the shell samples of a sequence exported. */
export function resetShell(dir: string): void {
  rmSync(join(dir, 'state.sh'), { force: true });
}

/** Compiles TypeScript and JavaScript samples (`name` → source) with the repository's strict settings; returns the diagnostics. */
export function compileTypeScript(dir: string, files: Record<string, string>): string {
  writeProject(dir, files);
  const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
  return res.status === 0 ? '' : `${res.stdout}${res.stderr}`;
}

/**
 * Compiles the samples of several directories as {@link compileTypeScript} compiles each, in one compiler process
 * (`tsc -b`), which reads the standard library and the packages' types once for all of them instead of once per
 * directory. Returns each directory's diagnostics, its files named relative to it as `tsc -p` names them there; a
 * diagnostic that names no sample file of a directory goes to every directory, so none is lost.
 */
export function compileTypeScriptIn(
  projects: ReadonlyArray<{ dir: string; files: Record<string, string> }>,
): Map<string, string> {
  const found = new Map(projects.map((p) => [resolve(p.dir), '']));
  // A directory without samples is compiled on its own: `tsc -b` would name its empty input list with no file.
  const compiled = projects.filter((p) => Object.keys(p.files).length > 0);
  for (const p of projects.filter((x) => !compiled.includes(x)))
    found.set(resolve(p.dir), compileTypeScript(p.dir, p.files));
  if (compiled.length === 0) return found;
  for (const p of compiled) writeProject(p.dir, p.files);
  const res = spawnSync(
    process.execPath,
    [tsc, '-b', '--force', '--pretty', 'false', ...compiled.map((p) => resolve(p.dir, 'tsconfig.json'))],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  if (res.status === 0) return found;
  // `path(line,col): error TS…` opens a diagnostic; indented lines continue it.
  const diagnostics: Array<{ file?: string; text: string[] }> = [];
  for (const line of `${res.stdout}${res.stderr}`.split('\n')) {
    const at = /^(.+?)\(\d+,\d+\): /.exec(line);
    if (at) diagnostics.push({ file: resolve(repoRoot, at[1]!), text: [line] });
    else if (/^\s/.test(line) && diagnostics.length > 0) diagnostics.at(-1)!.text.push(line);
    else if (line.trim()) diagnostics.push({ text: [line] });
  }
  for (const p of compiled) {
    const dir = resolve(p.dir);
    const own = diagnostics.flatMap((d) => {
      if (d.file === undefined) return d.text;
      if (!d.file.startsWith(`${dir}/`)) return [];
      return [`${relative(dir, d.file)}${d.text[0]!.slice(d.text[0]!.indexOf('('))}`, ...d.text.slice(1)];
    });
    found.set(dir, own.join('\n'));
  }
  // A failed compiler run always says why somewhere.
  if (compiled.every((p) => found.get(resolve(p.dir)) === '')) {
    for (const p of compiled) found.set(resolve(p.dir), `tsc -b exited ${res.status}:\n${res.stdout}${res.stderr}`);
  }
  return found;
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Writes the samples and their tsconfig.json (the repository's strict settings) into `dir`. */
function writeProject(dir: string, files: Record<string, string>): void {
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(repoRoot, 'tsconfig.base.json'),
      compilerOptions: {
        lib: ['ES2022', 'DOM'],
        types: ['node'],
        typeRoots: [join(pkgDir, 'node_modules', '@types')],
        outDir: 'out',
        rootDir: '.',
        declaration: false,
        sourceMap: false,
        // One sample that does not compile must not keep the others from running.
        noEmitOnError: false,
        // JavaScript samples (README `js` blocks) are checked as strictly as TypeScript.
        allowJs: true,
        checkJs: true,
      },
      include: Object.keys(files),
    }),
  );
}

/** Runs a compiled TypeScript sample (`out/<name>.js`) with node. */
export function runTypeScript(block: CodeBlock, dir: string, name: string, env: Record<string, string>): SampleRun {
  const res = spawnSync(process.execPath, [join('out', name.replace(/\.ts$/, '.js'))], {
    cwd: dir,
    // A home of the sample's own and the run's temporary folder: a sample that starts Chromium writes its profile
    // there, not into the machine's /tmp/.config/chromium, where nothing would remove it.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...sampleHome(dir), ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return judge(block, res.status, `${res.stdout}${res.stderr}`);
}
