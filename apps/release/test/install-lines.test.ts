// Every install line of the READMEs and guides is true: a registry install names a public package of this
// repository, and a checkout's tarball install, run as written (`pnpm … pack`, then `npm install` of the tarballs
// into a fresh project), installs a package whose command or entry point works.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { publicPackages, repoRoot } from '../src/repo.js';

const run = promisify(execFile);
const root = repoRoot(import.meta.dirname);
const packages = publicPackages(root);
const work = mkdtempSync(join(tmpdir(), 'cls-install-lines-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The lines of the shell code blocks of a markdown file, with comments cut. */
function shellLines(markdown: string): string[] {
  const lines: string[] = [];
  for (const block of markdown.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split('\n')) {
      const code = line.replace(/\s+#.*$/, '').trim();
      if (code) lines.push(code);
    }
  }
  return lines;
}

const documents = [
  ...packages.map((p) => join(p.dir, 'README.md')),
  join(root, 'README.md'),
  ...readdirSync(join(root, 'spec', 'guides'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(root, 'spec', 'guides', f)),
].filter(existsSync);

describe('install lines', () => {
  it("run after every public package is built: the suite's turbo task waits for each build it packs", () => {
    // A package packed before its build finished is packed without its dist (or while turbo restores it).
    const tasks = JSON.parse(readFileSync(join(root, 'apps', 'release', 'turbo.json'), 'utf8')).tasks;
    const waitsFor = new Set<string>(tasks.test.dependsOn);
    if (waitsFor.has('build')) for (const t of tasks.build.dependsOn) waitsFor.add(t);
    const own = JSON.parse(readFileSync(join(root, 'apps', 'release', 'package.json'), 'utf8')).name;
    const built = packages.filter(
      (p) => p.name !== own && JSON.parse(readFileSync(join(p.dir, 'package.json'), 'utf8')).scripts?.build,
    );
    expect(built.length).toBeGreaterThan(0);
    for (const p of built) expect([...waitsFor], p.name).toContain(`${p.name}#build`);
  });

  it('name only public packages of this repository, and every public package README shows both installs', () => {
    const names = new Set(packages.map((p) => p.name));
    for (const file of documents) {
      const text = readFileSync(file, 'utf8');
      const installs = [
        ...shellLines(text),
        ...[...text.matchAll(/^(npm install [^\n`]+)$/gm)].map((m) => m[1]!),
      ].filter((l) => /^npm (install|i) /.test(l));
      for (const line of installs) {
        for (const arg of line.split(/\s+/).slice(2)) {
          if (arg.startsWith('@cls-api/')) expect(names, `${file}: ${line}`).toContain(arg.replace(/@[^@/]*$/, ''));
        }
      }
    }
    for (const p of packages) {
      const lines = shellLines(readFileSync(join(p.dir, 'README.md'), 'utf8'));
      expect(lines, p.name).toContain(`npm install ${p.name}`);
      expect(
        lines.some((l) => l.startsWith('pnpm --filter') && l.includes(`--filter ${p.name} pack`)),
        p.name,
      ).toBe(true);
    }
  });

  // Each package packed into and installed in folders of its own: the five run at once.
  it.concurrent.for(packages.map((p) => [p.name, p] as const))(
    'the checkout install of %s, run as its README writes it, installs a working package',
    { timeout: 600_000 },
    async ([name, pkg], { expect }) => {
      const lines = shellLines(readFileSync(join(pkg.dir, 'README.md'), 'utf8'));
      const pack = lines.find((l) => l.startsWith('pnpm --filter') && l.includes(`--filter ${name} pack`))!;
      const install = lines[lines.indexOf(pack) + 1]!;
      expect(install).toMatch(/^npm install \/tmp\/cls\//);
      const dest = join(work, name.replace('/', '+'), 'tarballs');
      const project = join(work, name.replace('/', '+'), 'project');
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'project', private: true, type: 'module' }));
      // As written, with the tarballs' directory moved into the test's own temp dir.
      const packArgs = pack
        .split(/\s+/)
        .slice(1)
        .map((a) => (a === '/tmp/cls' ? dest : a));
      await run('pnpm', packArgs, { cwd: root });
      const tarballs = install
        .split(/\s+/)
        .slice(2)
        .map((glob) => {
          const pattern = new RegExp(`^${glob.replace('/tmp/cls/', '').replace(/[.+]/g, '\\$&').replace('*', '.*')}$`);
          const found = readdirSync(dest).filter((f) => pattern.test(f));
          expect(found, glob).toHaveLength(1);
          return join(dest, found[0]!);
        });
      await run('npm', ['install', ...tarballs, '--no-audit', '--no-fund', '--prefer-offline'], {
        cwd: project,
        timeout: 540_000,
      });
      const installed = JSON.parse(
        readFileSync(join(project, 'node_modules', ...name.split('/'), 'package.json'), 'utf8'),
      );
      expect(installed.version).toBe(pkg.version);
      // The package loads as an integrator's code loads it.
      const { stdout } = await run(
        process.execPath,
        ['--input-type=module', '-e', `import('${name}').then((m) => console.log(Object.keys(m).length))`],
        {
          cwd: project,
        },
      );
      expect(Number(stdout.trim())).toBeGreaterThan(0);
    },
  );
});
