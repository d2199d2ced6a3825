// Ctrl-C in the middle of a scenario: the harness stops its servers and removes what it created, and says the run
// was interrupted. Here in the profile scenario, after the reference wrote its profile, while the SQLite floor starts:
// test/hold-floor.mjs holds the floor before its server starts and says so, so the Ctrl-C never arrives after the
// scenario ended, however slowly this test reads the harness's output.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const cli = resolve(import.meta.dirname, '..', 'dist', 'cli.js');
const hold = new URL('./hold-floor.mjs', import.meta.url).href;
let scratch: string | undefined;
let floorPid: number | undefined;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterAll(async () => {
  if (floorPid && alive(floorPid)) process.kill(floorPid, 'SIGKILL');
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('pnpm bench interrupted', () => {
  it('while the floor starts: exits 130, and leaves no server running and no directory or profile behind', async () => {
    // The harness's own temporary directories go here, so that whatever it leaves can be seen.
    scratch = await mkdtemp(join(tmpdir(), 'cls-bench-interrupt-'));
    const args = ['--quick', '--only', 'profile', '--seconds', '0.5', '--out', join(scratch, 'out.md')];
    const child = spawn(process.execPath, ['--import', hold, cli, ...args], {
      env: { ...process.env, TMPDIR: scratch },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const watch = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const held = /\[hold-floor\] forked the floor, pid (\d+)/.exec(output);
      // One Ctrl-C: a second one means "stop now" and skips the clean-up.
      if (held && floorPid === undefined) {
        floorPid = Number(held[1]);
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    const exitCode = await new Promise<number | null>((done) => child.once('close', done));
    expect(floorPid, output).toBeDefined();
    // The reference profiled first: what was interrupted is the scenario's second server.
    expect(output).toContain('profiled the reference');
    expect(exitCode, output).toBe(130);
    expect(output).toContain('interrupted');
    expect(alive(floorPid!), `the floor (pid ${floorPid}) still runs:\n${output}`).toBe(false);
    const left = (await readdir(scratch)).filter((name) => name.startsWith('cls-bench-'));
    expect(left, output).toEqual([]);
  });
});
