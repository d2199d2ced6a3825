// The run's set-up compiles dist/ only when it is not current (test/global-setup.ts): a stale dist/ would have the
// smoke tests run yesterday's harness.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { distIsCurrent } from './global-setup.js';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A package two folders below a repository's root (as apps/bench is), every file written at `at` (seconds since the epoch). */
function pkg(files: Record<string, number>): string {
  root = mkdtempSync(join(tmpdir(), 'cls-bench-dist-'));
  const dir = join(root, 'group', 'pkg');
  for (const [file, at] of Object.entries({ '../../tsconfig.base.json': 100, 'tsconfig.json': 100, ...files })) {
    const path = join(dir, file);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '');
    utimesSync(path, at, at);
  }
  return dir;
}

describe('distIsCurrent', () => {
  it('is true when every source has its output written after it', () => {
    expect(distIsCurrent(pkg({ 'src/a.ts': 200, 'src/s/b.ts': 200, 'dist/a.js': 300, 'dist/s/b.js': 300 }))).toBe(true);
  });

  it('is false when a source was changed after its output, or has none, or there is no dist/', () => {
    expect(distIsCurrent(pkg({ 'src/a.ts': 200, 'src/s/b.ts': 400, 'dist/a.js': 300, 'dist/s/b.js': 300 }))).toBe(
      false,
    );
    expect(distIsCurrent(pkg({ 'src/a.ts': 200, 'src/s/b.ts': 200, 'dist/a.js': 300 }))).toBe(false);
    expect(distIsCurrent(pkg({ 'src/a.ts': 200 }))).toBe(false);
  });

  it("is false when the compiler's configuration changed after the output", () => {
    expect(distIsCurrent(pkg({ 'src/a.ts': 200, 'dist/a.js': 300, 'tsconfig.json': 400 }))).toBe(false);
    expect(distIsCurrent(pkg({ 'src/a.ts': 200, 'dist/a.js': 300, '../../tsconfig.base.json': 400 }))).toBe(false);
  });
});
