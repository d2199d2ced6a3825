// Ctrl-C in the middle of a scenario: the harness stops its servers and removes what it created, and says the run
// was interrupted. Here during the profile scenario's second server, the floor, after the reference wrote its profile.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const cli = resolve(import.meta.dirname, '..', 'dist', 'cli.js');
let scratch: string | undefined;

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('pnpm bench interrupted', () => {
  it('during the floor profile: exits 130 and leaves no server directory or profile behind', async () => {
    // The harness's own temporary directories go here, so that whatever it leaves can be seen.
    scratch = await mkdtemp(join(tmpdir(), 'cls-bench-interrupt-'));
    // A half-second profile of the reference: what is interrupted is the floor's, whatever came before.
    const args = ['--quick', '--only', 'profile', '--seconds', '0.5', '--out', join(scratch, 'out.md')];
    const child = spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, TMPDIR: scratch },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const interrupted = new Promise<void>((done) => {
      let sent = false;
      const watch = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        // One Ctrl-C: a second one means "stop now" and skips the clean-up.
        if (!sent && output.includes('starting the SQLite floor')) {
          sent = true;
          child.kill('SIGINT');
          done();
        }
      };
      child.stdout.on('data', watch);
      child.stderr.on('data', watch);
    });
    const exitCode = await new Promise<number | null>((done) => child.once('exit', done));
    await interrupted;
    expect(exitCode, output).toBe(130);
    expect(output).toContain('interrupted');
    const left = (await readdir(scratch)).filter((name) => name.startsWith('cls-bench-'));
    expect(left, output).toEqual([]);
  });
});
