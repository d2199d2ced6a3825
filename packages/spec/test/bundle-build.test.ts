// The bundle's build as other packages' tests meet it: the spec's tests build dist/ again when an input changed
// (test/global-setup.ts), while other suites, run at the same time by turbo, read it. A build replaces each document
// whole, so a reader never sees one half-written.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const pkgDir = resolve(import.meta.dirname, '..');
const repo = resolve(pkgDir, '../..');
let work: string;

beforeAll(() => {
  // A copy of the spec, the bundle script and a built dist/, laid out as in the repository.
  work = mkdtempSync(join(tmpdir(), 'cls-spec-build-'));
  cpSync(join(repo, 'spec'), join(work, 'spec'), { recursive: true, filter: (p) => !p.includes('/reports') });
  cpSync(join(repo, 'redocly.yaml'), join(work, 'redocly.yaml'));
  mkdirSync(join(work, 'packages', 'spec'), { recursive: true });
  for (const dir of ['scripts', 'dist']) {
    cpSync(join(pkgDir, dir), join(work, 'packages', 'spec', dir), { recursive: true });
  }
  cpSync(join(pkgDir, 'package.json'), join(work, 'packages', 'spec', 'package.json'));
  symlinkSync(join(pkgDir, 'node_modules'), join(work, 'packages', 'spec', 'node_modules'));
  symlinkSync(join(repo, 'node_modules'), join(work, 'node_modules'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the spec tests' build of dist/", () => {
  const copy = () => join(work, 'packages', 'spec');

  it('replaces each document whole: a reader holding the old file keeps it entire, and no temporary file stays', () => {
    const documents = ['openapi.json', 'openapi.yaml', 'openapi.dereferenced.json'];
    const before = new Map(documents.map((d) => [d, statSync(join(copy(), 'dist', d)).ino]));
    const r = spawnSync(process.execPath, [join(copy(), 'scripts', 'bundle.mjs')], { cwd: copy(), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    for (const d of documents) {
      // A write in place keeps the inode (and a reader mid-file sees it truncated); a rename gives a new one.
      expect(statSync(join(copy(), 'dist', d)).ino, d).not.toBe(before.get(d));
    }
    expect(readdirSync(join(copy(), 'dist')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(() => JSON.parse(readFileSync(join(copy(), 'dist', 'openapi.dereferenced.json'), 'utf8'))).not.toThrow();
  });

  it('leaves no temporary file in dist/ when a document cannot be put in place', () => {
    // A directory where a document goes: the rename fails, after the temporary file was written.
    rmSync(join(copy(), 'dist', 'openapi.yaml'), { force: true });
    mkdirSync(join(copy(), 'dist', 'openapi.yaml'));
    const r = spawnSync(process.execPath, [join(copy(), 'scripts', 'bundle.mjs')], { cwd: copy(), encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(readdirSync(join(copy(), 'dist')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
