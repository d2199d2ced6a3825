// The root commands say what a contributor needs and nothing else: no turbo telemetry notice (and telemetry off), no
// turbo banner before a package command's own output, `--help` without a build, a wrong option named in one line
// with exit 2, and an install of a fresh clone without warnings about commands it could not link or build scripts it
// skipped.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './support.js';

const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
/** The package commands: `pnpm reference`, `pnpm contract`, … and the CLI each runs (an export or a bin). */
const packageCommands = Object.entries(scripts).flatMap(([name, line]) => {
  const cli = /^exec node scripts\/run-cli\.mjs (\S+)$/.exec(line)?.[1];
  return cli ? [{ name, cli }] : [];
});
/** Environment without anything that would turn telemetry off or skip a build on its own. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['TURBO_TELEMETRY_DISABLED', 'DO_NOT_TRACK', 'CLS_NO_BUILD']) delete env[name];
  return env;
}

describe('the root commands', () => {
  it('run turbo with its telemetry off, so a first run prints no telemetry notice', () => {
    const turboScripts = Object.entries(scripts).filter(([, line]) => /\bturbo run\b/.test(line));
    expect(turboScripts.map(([name]) => name).sort()).toEqual(['build', 'bundle', 'docs:build', 'lint', 'typecheck']);
    for (const [name] of turboScripts) {
      // A fresh turbo configuration folder, as on a newcomer's machine: turbo shows its notice on a first run.
      const config = mkdtempSync(join(tmpdir(), 'cls-turbo-config-'));
      try {
        // --dry plans the tasks and runs none: nothing is built or restored under the suites running beside this.
        const run = spawnSync('pnpm', ['run', name, '--dry'], {
          cwd: root,
          encoding: 'utf8',
          env: plainEnv({ XDG_CONFIG_HOME: config }),
        });
        expect(run.status, `${name}: ${run.stderr}`).toBe(0);
        expect(`${run.stdout}${run.stderr}`, name).not.toMatch(/collects completely anonymous telemetry|Attention:/);
      } finally {
        rmSync(config, { recursive: true, force: true });
      }
    }
  });

  it.each(packageCommands)('pnpm $name --help prints its usage alone, without a build', ({ cli }) => {
    const run = spawnSync(process.execPath, ['scripts/run-cli.mjs', cli, '--help'], {
      cwd: root,
      encoding: 'utf8',
      env: plainEnv(),
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: /);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/turbo|Tasks:|Packages in scope/);
  });

  it.each(packageCommands)('pnpm $name --bogus names the option in one line, exit 2', ({ cli }) => {
    const run = spawnSync(process.execPath, ['scripts/run-cli.mjs', cli, '--bogus'], {
      cwd: root,
      encoding: 'utf8',
      // Built already (pnpm test builds before the suites): a turbo run here would restore outputs others read.
      env: { ...process.env, CLS_NO_BUILD: '1' },
    });
    expect(run.status).toBe(2);
    const [first, second] = run.stderr.split('\n');
    expect(first).toMatch(/^(\S+: )?Unknown option '--bogus'$/);
    // What follows is the usage, apart from that line.
    expect(second).toBe('');
  });

  it('an install links every command without a warning: each bin it links is a file of the repository, there before a build', () => {
    const tracked = new Set(
      spawnSync('git', ['ls-files'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout.split('\n'),
    );
    interface Manifest {
      name: string;
      bin?: string | Record<string, string>;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    }
    const read = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest;
    const workspace = ['apps', 'packages'].flatMap((group) =>
      readdirSync(join(root, group))
        .filter((name) => existsSync(join(root, group, name, 'package.json')))
        .map((name) => ({ dir: join(group, name), manifest: read(join(group, name)) })),
    );
    // pnpm links a package's bins into each importer that depends on it: the root and the workspace's packages.
    const linked = new Set(
      [read('.'), ...workspace.map((w) => w.manifest)].flatMap((m) => [
        ...Object.keys(m.dependencies ?? {}),
        ...Object.keys(m.devDependencies ?? {}),
      ]),
    );
    const bins = workspace
      .filter((w) => linked.has(w.manifest.name))
      .flatMap(({ dir, manifest: { bin } }) =>
        (typeof bin === 'string' ? [bin] : Object.values(bin ?? {})).map((p) => join(dir, p)),
      );
    expect(bins.length).toBeGreaterThan(0);
    expect(bins.filter((b) => !tracked.has(b))).toEqual([]);
  });

  it('an install ignores no build script without package.json saying so, so it prints no "Ignored build scripts" box', () => {
    // What the install recorded (pnpm's state file, JSON despite its name): the packages whose build scripts it
    // skipped because package.json neither allows nor ignores them, which it lists in a warning after every install.
    const state = JSON.parse(readFileSync(join(root, 'node_modules', '.modules.yaml'), 'utf8')) as {
      ignoredBuilds?: string[];
    };
    expect(state.ignoredBuilds ?? []).toEqual([]);
  });
});
