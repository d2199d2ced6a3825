// The release's checks of a packed tarball (src/tarball-checks.ts): publint with warnings failing, and "are the types
// wrong" with its esm-only profile, on small packages packed here as npm packs them (files under `package/`).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tarballProblems } from '../src/tarball-checks.js';

const work = mkdtempSync(join(tmpdir(), 'cls-release-tarballs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A tarball of the package `pkg` (its package.json) with `files`, as `npm pack` lays it out. */
function pack(name: string, pkg: Record<string, unknown>, files: Record<string, string>): string {
  const dir = join(work, name);
  const all = { 'package.json': JSON.stringify({ name, version: '1.0.0', license: 'MIT', ...pkg }), ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, 'package', path)), { recursive: true });
    writeFileSync(join(dir, 'package', path), text);
  }
  const tarball = join(work, `${name}.tgz`);
  execFileSync('tar', ['-czf', tarball, '-C', dir, 'package']);
  return tarball;
}

const esm = {
  'index.js': 'export const answer = 42;\n',
  'index.d.ts': 'export declare const answer: number;\n',
};

describe('a packed tarball', () => {
  it('an ESM-only package with its types passes: no CommonJS `require` is asked of it', async () => {
    const tarball = pack(
      'esm-only',
      { type: 'module', exports: { '.': { types: './index.d.ts', import: './index.js' } } },
      esm,
    );
    expect(await tarballProblems(tarball)).toEqual([]);
  });

  it('types that name a missing file fail both checks, each problem named with its entry point', async () => {
    const tarball = pack(
      'missing-types',
      { type: 'module', exports: { '.': { types: './gone.d.ts', default: './index.js' } } },
      esm,
    );
    const problems = await tarballProblems(tarball);
    expect(problems).toContainEqual(expect.stringMatching(/^publint: .*gone\.d\.ts/));
    expect(problems).toContainEqual(expect.stringMatching(/^attw: .*entrypoint \., resolutionKind node16-esm/));
    expect(problems).toContainEqual(expect.stringMatching(/^attw: .*entrypoint \., resolutionKind bundler/));
  });

  it('a subpath exporting a data file is checked unless named as data', async () => {
    const tarball = pack(
      'with-data',
      {
        type: 'module',
        exports: { '.': { types: './index.d.ts', default: './index.js' }, './data.yaml': './data.yaml' },
      },
      { ...esm, 'data.yaml': 'answer: 42\n' },
    );
    expect(await tarballProblems(tarball)).toContainEqual(expect.stringMatching(/^attw: .*entrypoint \.\/data\.yaml/));
    expect(await tarballProblems(tarball, ['./data.yaml'])).toEqual([]);
  });

  it('a package without types fails', async () => {
    const tarball = pack(
      'untyped',
      { type: 'module', exports: { '.': './index.js' } },
      { 'index.js': esm['index.js'] },
    );
    expect(await tarballProblems(tarball)).toContain('attw: the package has no types');
  });

  it('a publint warning fails', async () => {
    // A `types` condition after `default` is never reached: a warning publint raises, which fails the release.
    const tarball = pack(
      'late-types',
      { type: 'module', exports: { '.': { default: './index.js', types: './index.d.ts' } } },
      esm,
    );
    expect(await tarballProblems(tarball)).toContainEqual(expect.stringMatching(/^publint: /));
  });
});
