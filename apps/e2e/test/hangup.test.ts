// A closed terminal on `pnpm reference serve` (scripts/run-cli.mjs, as the root's script runs it): SIGHUP reaches
// the whole foreground group, run-cli and the server alike. run-cli waits for the server to close and passes on its
// exit code (129, as a shell reports a command SIGHUP stopped) instead of dying at once and leaving the server to
// finish alone.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runningInGroup } from '@cls-api/test-servers';
import { root, tempDir } from './support.js';

const dir = tempDir('cls-e2e-hangup-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SIGHUP to the group of pnpm reference serve', () => {
  it('run-cli waits for the server, which closes and exits 129; nothing is left in the group', async () => {
    // A group of its own, as a terminal's job; built already (pnpm test builds before the suites).
    const child = spawn(process.execPath, [join(root, 'scripts/run-cli.mjs'), '@cls-api/reference/cli', 'serve'], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CLS_NO_BUILD: '1', PORT: '0', DATABASE: join(dir, 'reference.db'), LOG_LEVEL: 'silent' },
    });
    let output = '';
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((done) =>
      child.once('exit', (code, signal) => done([code, signal])),
    );
    await new Promise<void>((ready, fail) => {
      const take = (c: Buffer) => {
        output += c.toString('utf8');
        if (output.includes('Ctrl-C stops it.')) ready();
      };
      child.stdout!.on('data', take);
      child.stderr!.on('data', take);
      void exited.then(() => fail(new Error(`exited before serving:\n${output}`)));
    });
    process.kill(-child.pid!, 'SIGHUP');
    expect(await exited, output).toEqual([129, null]);
    expect(runningInGroup(child.pid!)).toEqual([]);
  });
});
