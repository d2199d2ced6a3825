// What `pnpm lint` and `pnpm bundle` print of Redocly: its notice that Node 20 support is ending, printed on every run
// under Node 20, is dropped; anything else it prints, another box included, is kept.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withoutNodeNotice } from '../scripts/tool-output.mjs';

const pkgDir = resolve(import.meta.dirname, '..');
// As Redocly CLI 2.77 prints it under Node 20.
const NOTICE = [
  '    ╔═════════════════════════════════════════════════════════════════╗',
  '    ║                                                                 ║',
  '    ║  Deprecation warning: Node.js 20 support is ending              ║',
  '    ║  Node.js 20 reached end-of-life on April 30, 2026.              ║',
  '    ║  You are using Node.js v20.20.2.                                ║',
  '    ╚═════════════════════════════════════════════════════════════════╝',
  '',
];

describe('withoutNodeNotice', () => {
  it('drops the Node notice and the blank line after it, and keeps the rest as printed', () => {
    const rest = ['validating spec/openapi.yaml...', 'spec/openapi.yaml: validated in 543ms', ''];
    expect(withoutNodeNotice(['', ...NOTICE, ...rest].join('\n'))).toBe(['', ...rest].join('\n'));
    expect(withoutNodeNotice(rest.join('\n'))).toBe(rest.join('\n'));
  });

  it('keeps a box that says something else, and a box left open', () => {
    const other = ['╔══╗', '║ 3 problems ║', '╚══╝', 'done'].join('\n');
    expect(withoutNodeNotice(other)).toBe(other);
    const open = NOTICE.slice(0, 3).join('\n');
    expect(withoutNodeNotice(open)).toBe(open);
  });
});

describe('the lint script', () => {
  it('prints no Node notice, and passes on the contract', () => {
    const run = spawnSync(process.execPath, ['scripts/lint.mjs'], { cwd: pkgDir, encoding: 'utf8' });
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain('Node.js 20');
    expect(run.stdout.trim().split('\n').at(-1)).toBe('Lint passed.');
  });
});
