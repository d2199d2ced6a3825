// The server as it is installed: its run-time dependencies and nothing else. The local PostgreSQL, Redis and nginx
// tooling that `cluster` runs is the repository's test tooling (@cls-api/test-servers, a devDependency): the server
// serves without it, and `cluster` says what it needs instead of failing on a missing module.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_NEEDS_TOOLING } from '../../src/cli.js';

const packageDir = resolve(import.meta.dirname, '../..');
const repoRoot = resolve(packageDir, '../..');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** The workspace's test tooling: @cls-api/test-servers and every workspace package built on it. */
function testTooling(): string[] {
  const packages = readdirSync(join(repoRoot, 'packages')).map(
    (dir) =>
      JSON.parse(readFileSync(join(repoRoot, 'packages', dir, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
      },
  );
  return packages
    .filter((p) => p.name === '@cls-api/test-servers' || '@cls-api/test-servers' in (p.dependencies ?? {}))
    .map((p) => p.name);
}

describe('the reference server as installed', () => {
  let dir: string;
  let cli: string;
  const env = {
    PATH: process.env.PATH ?? '',
    DATABASE: ':memory:',
    HOST: '127.0.0.1',
    PORT: '0',
    JWT_SECRET: 'installed-reference-secret-0123456789-abcdefghij',
    LOG_LEVEL: 'silent',
  };

  beforeAll(() => {
    // What an install holds: the build, the migrations it reads from src/store/migrations, the manifest, and a
    // node_modules with the run-time dependencies alone (each the workspace's own copy).
    dir = mkdtempSync(join(tmpdir(), 'cls-reference-installed-'));
    cpSync(join(packageDir, 'dist'), join(dir, 'dist'), { recursive: true });
    cpSync(join(packageDir, 'src', 'store', 'migrations'), join(dir, 'src', 'store', 'migrations'), {
      recursive: true,
    });
    cpSync(join(packageDir, 'package.json'), join(dir, 'package.json'));
    for (const name of Object.keys(manifest.dependencies)) {
      const link = join(dir, 'node_modules', name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(realpathSync(join(packageDir, 'node_modules', name)), link);
    }
    cli = join(dir, 'dist', 'cli.js');
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists no test tooling among its run-time dependencies', () => {
    const tooling = testTooling();
    expect(tooling).toContain('@cls-api/test-servers');
    expect(Object.keys(manifest.dependencies).filter((name) => tooling.includes(name))).toEqual([]);
  });

  it('serves without the test tooling, which it cannot even find', async () => {
    // Asked of a plain Node process beside the CLI (the test runner resolves modules its own way).
    const lookup = spawnSync(
      process.execPath,
      ['-e', `require.resolve('@cls-api/test-servers', { paths: [${JSON.stringify(dirname(cli))}] })`],
      { cwd: dir, env, encoding: 'utf8' },
    );
    expect(lookup.stderr).toContain("Cannot find module '@cls-api/test-servers'");
    const child = spawn(process.execPath, [cli, 'serve', '--json'], { cwd: dir, env });
    try {
      const firstLine = await new Promise<string>((done, fail) => {
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) done(out.slice(0, out.indexOf('\n')));
        });
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
        });
        child.once('exit', (code) => fail(new Error(`serve exited (${code}): ${err}`)));
      });
      const { base_url } = JSON.parse(firstLine) as { base_url: string };
      const health = await fetch(`${base_url}/health`);
      expect(health.status).toBe(200);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });

  it('says `cluster` is a development command that needs the repository', () => {
    const run = spawnSync(process.execPath, [cli, 'cluster'], { cwd: dir, env, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(CLUSTER_NEEDS_TOOLING);
  });
});
