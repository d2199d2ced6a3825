// Runs `redocly respect` (the @redocly/cli pinned by @cls-api/spec) on the contract's Arazzo workflows.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '..', '..', '..', '..');
export const arazzoFile = join(repoRoot, 'spec', 'arazzo', 'contract-workflows.arazzo.yaml');

/** The redocly CLI entry point, or undefined when @cls-api/spec's dev dependencies are not installed. */
export function redoclyBin(): string | undefined {
  try {
    const require = createRequire(join(repoRoot, 'packages', 'spec', 'package.json'));
    const pkgFile = require.resolve('@redocly/cli/package.json');
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { bin: string | Record<string, string> };
    const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin.redocly ?? Object.values(pkg.bin)[0]!);
    const file = join(dirname(pkgFile), bin);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

export function respect(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const bin = redoclyBin();
  if (!bin) throw new Error('@redocly/cli is not installed (a dev dependency of @cls-api/spec)');
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, 'respect', arazzoFile, ...args], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        REDOCLY_TELEMETRY: 'off',
        NO_COLOR: '1',
        FORCE_COLOR: '0',
        ...env,
      },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => done({ code, output }));
  });
}
