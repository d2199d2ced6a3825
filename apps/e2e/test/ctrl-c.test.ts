// Ctrl-C on the root's server commands stops the server. `pnpm docs:preview` and `pnpm mock` exit 0, as `pnpm start`
// does: no "ELIFECYCLE Command failed" and no 130. `pnpm reference serve --demo` exits 130, as `pnpm reference
// cluster` does and as a shell reports a command Ctrl-C stopped, so pnpm prints its "Command failed" line after it. Run in a terminal as a person runs it: `script` gives pnpm a pseudo-terminal, and Ctrl-C is the byte
// 0x03 typed into it, which the terminal turns into SIGINT for the whole foreground job.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { sparePort } from '@cls-api/test-servers';
import { describe, expect, it } from 'vitest';
import { root, tempDir } from './support.js';

async function ctrlC(command: string, ready: RegExp, env: Record<string, string>) {
  const port = await sparePort();
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: root,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    // As at a prompt: the script entry runs through the shell pnpm picks, the terminal's job is pnpm. Built already
    // (pnpm test builds before the suites): a turbo run here would restore the build outputs from its cache while the
    // suites beside this one read them (a CI run met the spec bundle half-written that way).
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', CLS_NO_BUILD: '1', ...env },
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  while (!ready.test(output) && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  expect(ready.test(output), output).toBe(true);
  child.stdin!.write('\x03');
  return { code: await exited, output: () => output };
}

describe('scripts/run-cli.mjs', () => {
  it('builds the package through turbo first, and not with CLS_NO_BUILD=1', () => {
    const run = (cli: string, env: Record<string, string> = {}) =>
      spawnSync(process.execPath, ['scripts/run-cli.mjs', cli, '--help'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
    // An unknown package: turbo refuses the filter, so the build step shows; skipped, the name fails to resolve.
    const built = run('@cls-api/no-such-package/cli');
    expect(built.status).not.toBe(0);
    expect(built.stderr).toContain('Building @cls-api/no-such-package failed');
    const unbuilt = run('@cls-api/no-such-package/cli', { CLS_NO_BUILD: '1' });
    expect(unbuilt.status).toBe(2);
    expect(unbuilt.stderr).not.toContain('Building');
    expect(unbuilt.stderr).toContain('does not resolve');
    // A package that is built: its CLI runs at once.
    const skipped = run('@cls-api/reference/cli', { CLS_NO_BUILD: '1' });
    expect(`${skipped.stdout}${skipped.stderr}`).toContain('Usage: cls-reference');
  });
});

describe('Ctrl-C on a server command of the root', { timeout: 600_000 }, () => {
  it('pnpm docs:preview stops and exits 0', async () => {
    const run = await ctrlC('exec pnpm docs:preview', /Documentation site: http/, {});
    expect(run.output(), run.output()).not.toMatch(/ELIFECYCLE|Command failed/);
    expect(run.code, run.output()).toBe(0);
  });

  it('pnpm mock stops and exits 0', async () => {
    const run = await ctrlC('exec pnpm mock', /Mock listening on http/, {});
    expect(run.output(), run.output()).not.toMatch(/ELIFECYCLE|Command failed/);
    expect(run.code, run.output()).toBe(0);
  });

  it('pnpm reference serve --demo stops and exits 130, with pnpm\'s "Command failed" line', async () => {
    const dir = tempDir('cls-e2e-ctrl-c-');
    const run = await ctrlC('exec pnpm reference serve --demo', /curl /, { DATABASE: join(dir, 'reference.db') });
    expect(run.output(), run.output()).toMatch(/Command failed with exit code 130/);
    expect(run.code, run.output()).toBe(130);
  });
});
