// The exit codes are written once (src/report/exit-codes.ts); --help prints them from there and the README's table must
// say the same, code for code.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';
import { EXIT_CODES, USAGE } from '../src/index.js';

test('the codes are 0 to 3, each once; --help and the README list each with its meaning', () => {
  expect(EXIT_CODES.map((e) => e.code)).toEqual([0, 1, 2, 3]);
  const readme = readFileSync(resolve(import.meta.dirname, '..', 'README.md'), 'utf8');
  const rows = [...readme.matchAll(/^\| `(\d)` \| (.+) \|$/gm)].map((m) => ({ code: Number(m[1]), meaning: m[2] }));
  expect(rows).toEqual(EXIT_CODES.map((e) => ({ code: e.code, meaning: e.meaning })));
  for (const { code, meaning } of EXIT_CODES) expect(USAGE).toContain(`  ${code}  ${meaning}`);
});
