// The Runtimes table is what the runtime matrices run: a README whose table is missing, renamed or empty must stop the
// matrix, never let it pass on no row.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { npmSpec, runtimeTable } from '../src/runtimes.js';

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
