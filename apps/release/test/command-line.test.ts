// `pnpm release --help` and `pnpm breaking --help` print their usage; an unknown option is named, with the usage,
// exit 2 and no stack trace. Run as the root's scripts run them (the package's exports, through scripts/run-cli.mjs).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../src/repo.js';

const root = repoRoot(import.meta.dirname);
const run = (command: string, flag: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [join(root, 'scripts', 'run-cli.mjs'), `@cls-api/release/${command}`, flag], {
    cwd: root,
    encoding: 'utf8',
    // Built already (pnpm test builds first); a turbo run here would restore outputs other suites are reading.
    env: { ...process.env, CLS_NO_BUILD: '1', ...env },
  });

describe.each(['release', 'breaking'])('pnpm %s', (command) => {
  it('--help and -h print the usage and exit 0, doing nothing else', () => {
    for (const flag of ['--help', '-h']) {
      const r = run(command, flag);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: pnpm ${command} `));
      expect(r.stdout).toContain('--help');
      expect(r.stdout).not.toMatch(/^release: /m);
    }
  });

  it('an unknown option is named on stderr with the usage, exit 2, and no stack trace', () => {
    const r = run(command, '--no-such-option');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${command}: Unknown option '--no-such-option'`);
    expect(r.stderr).toContain(`Usage: pnpm ${command} `);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe('');
  });

  it('answers --help and a wrong option without loading the gate or the tarball checks (seconds to load)', () => {
    for (const flag of ['--help', '--no-such-option']) {
      // NODE_DEBUG=module names every CommonJS module Node loads; Optic's are CommonJS, and so is the TypeScript
      // compiler that "are the types wrong" loads.
      const r = run(command, flag, { NODE_DEBUG: 'module' });
      expect(r.stderr, flag).toMatch(/MODULE/);
      expect(r.stderr, flag).not.toContain('@useoptic');
      expect(r.stderr, flag).not.toMatch(/typescript@[^/]+\/node_modules\/typescript\/lib\/typescript\.js/);
    }
  });
});
