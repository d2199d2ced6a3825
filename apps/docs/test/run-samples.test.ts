// The sample runner gives every TypeScript sample a home of its own, inside the sample's working directory, and the
// test run's temporary folder: whatever a sample writes to its home (a browser's profile, a tool's cache) stays there,
// removed with the directory, instead of in the machine's home. A shell sample runs in a shell that reads no startup
// file of the machine's.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CodeBlock } from '../src/code-blocks.js';
import { compileTypeScript, runShell, runTypeScript, workDir } from './run-samples.js';

const block = (source: string): CodeBlock => ({
  info: 'ts',
  language: 'typescript',
  source,
  line: 1,
  mark: { kind: 'run' },
});

describe('the sample runner', () => {
  it("runs a TypeScript sample with HOME in its own directory and TMPDIR the run's temporary folder", () => {
    const dir = workDir('runner-home');
    const source =
      "import { tmpdir, homedir } from 'node:os';\nconsole.log(JSON.stringify({ home: homedir(), tmp: tmpdir() }));\n";
    expect(compileTypeScript(dir, { 'env.ts': source })).toBe('');
    const run = runTypeScript(block(source), dir, 'env.ts', {});
    expect(run.ok, run.output).toBe(true);
    const { home, tmp } = JSON.parse(run.output.trim()) as { home: string; tmp: string };
    expect(home).toBe(dir);
    expect(tmp).toBe(tmpdir());
  });

  it("runs a shell sample without the home's ~/.bashrc, even where bash would read it (no SHLVL, a socket as input)", () => {
    const dir = workDir('runner-bashrc');
    writeFileSync(join(dir, '.bashrc'), 'echo "the machine\'s .bashrc ran"\nexport CLS_FROM_BASHRC=1\n');
    const run = runShell({ ...block('echo "sample ran"\n'), info: 'bash', language: 'shell' }, dir, { HOME: dir });
    expect(run.ok, run.output).toBe(true);
    expect(run.output).toBe('sample ran\n');
  });

  it("runs a sample that starts Chromium (packages/chromium/README.md's)", { timeout: 300_000 }, async () => {
    const dir = workDir('runner-chromium');
    const source = [
      "import { CHROMIUM_ARGS, ensureChromium } from '@cls-api/chromium';",
      "import { chromium } from 'playwright-core';",
      'const browser = await chromium.launch({ executablePath: await ensureChromium(), args: CHROMIUM_ARGS });',
      'console.log(browser.version());',
      'await browser.close();',
      '',
    ].join('\n');
    expect(compileTypeScript(dir, { 'browser.ts': source })).toBe('');
    const run = runTypeScript(block(source), dir, 'browser.ts', {});
    expect(run.ok, run.output).toBe(true);
    // Its last line is the browser's version (a first run may print the installation's lines before it).
    expect(run.output.trim().split('\n').at(-1)).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  });
});
