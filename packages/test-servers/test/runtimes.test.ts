// The Runtimes table is what the runtime matrices run: a README whose table is missing, renamed or empty must stop the
// matrix, never let it pass on no row. Each runtime a row names is installed once, however many tests ask for it.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureNpmRuntime, npmSpec, runtimeTable } from '../src/runtimes.js';

const dir = mkdtempSync(join(tmpdir(), 'cls-runtime-table-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const readme = (text: string) => {
  const file = join(dir, `README-${files++}.md`);
  writeFileSync(file, text);
  return file;
};

const TABLE = [
  '| Runtime | Version | From | How it runs |',
  '|---|---|---|---|',
  '| Node.js 20 | 20 | the Node.js the tests run on | `node x.mjs` |',
  '| Node.js 22 | 22.23.3 | npm `node@22.23.3` | `node x.mjs` |',
].join('\n');

describe('runtimeTable', () => {
  test('reads every row of the section, up to the next section or the end of the file', () => {
    const rows = [
      { runtime: 'Node.js 20', version: '20', from: 'the Node.js the tests run on' },
      { runtime: 'Node.js 22', version: '22.23.3', from: 'npm `node@22.23.3`' },
    ];
    expect(runtimeTable(readme(`# P\n\n## Runtimes\n\nText.\n\n${TABLE}\n\n## Next\n\n| a | b |\n`))).toEqual(rows);
    expect(runtimeTable(readme(`# P\n\n## Runtimes\n\n${TABLE}\n`))).toEqual(rows);
  });

  test('throws on a README without the section, with other columns, or with no row', () => {
    expect(() => runtimeTable(readme(`# P\n\n## Runtime\n\n${TABLE}\n`))).toThrow(/has no Runtimes table/);
    expect(() =>
      runtimeTable(readme('## Runtimes\n\n| Name | Version | From |\n|---|---|---|\n| a | 1 | b |\n')),
    ).toThrow(/has no Runtimes table/);
    expect(() => runtimeTable(readme('## Runtimes\n\n| Runtime | Version | From |\n|---|---|---|\n'))).toThrow(
      /has no row/,
    );
  });
});

test('npmSpec is the npm package a row names, if any', () => {
  expect(npmSpec({ runtime: 'Node.js 22', version: '22.23.3', from: 'npm `node@22.23.3`' })).toBe('node@22.23.3');
  expect(npmSpec({ runtime: 'Deno', version: '2.9.6', from: 'npm `deno@2.9.6`' })).toBe('deno@2.9.6');
  expect(npmSpec({ runtime: 'Node.js 20', version: '20', from: 'the Node.js the tests run on' })).toBeUndefined();
});

describe('ensureNpmRuntime', () => {
  // An npm of the test's own, first on PATH: it notes each install and makes the package's folder, as npm would.
  const fake = mkdtempSync(join(tmpdir(), 'cls-fake-npm-'));
  const calls = join(fake, 'calls');
  writeFileSync(join(fake, 'npm'), `#!/bin/sh\necho "$2" >> ${JSON.stringify(calls)}\nmkdir -p node_modules/.bin\n`, {
    mode: 0o755,
  });
  const path = process.env.PATH;
  beforeAll(() => {
    process.env.PATH = `${fake}${delimiter}${path ?? ''}`;
  });
  afterAll(() => {
    process.env.PATH = path;
    rmSync(fake, { recursive: true, force: true });
  });

  test('tests asking at once for a runtime being installed share one install; a later call reuses the folder', async () => {
    const cache = join(fake, 'cache');
    const dirs = await Promise.all([
      ensureNpmRuntime('node@22.23.3', cache),
      ensureNpmRuntime('node@22.23.3', cache),
      ensureNpmRuntime('deno@2.9.6', cache),
      ensureNpmRuntime('node@22.23.3', cache),
    ]);
    expect(dirs).toEqual([
      join(cache, 'node@22.23.3'),
      join(cache, 'node@22.23.3'),
      join(cache, 'deno@2.9.6'),
      join(cache, 'node@22.23.3'),
    ]);
    expect(readFileSync(calls, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['deno@2.9.6', 'node@22.23.3']);
    expect(existsSync(join(cache, 'node@22.23.3', '.installed'))).toBe(true);
    expect(await ensureNpmRuntime('node@22.23.3', cache)).toBe(join(cache, 'node@22.23.3'));
    expect(readFileSync(calls, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });
});
