// scripts/with-load.mjs, which CI runs `pnpm -s test` under: the command runs with the busy loops beside it for its
// whole run, its exit code is passed on, and no loop outlives the run, even when the load's owner is killed with -9.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { root } from './support.js';

const script = join(root, 'scripts', 'with-load.mjs');
const { parseArguments } = (await import(pathToFileURL(script).href)) as {
  parseArguments: (
    args: string[],
    cores?: number,
  ) => { loops?: number; command?: string[]; error?: string; help?: boolean };
};

/** The processes whose parent is `ppid`, with their command line, from /proc. */
function childrenOf(ppid: number): Array<{ pid: number; command: string }> {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== ppid) return [];
        return [{ pid: Number(name), command: readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ') }];
      } catch {
        return [];
      }
    });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits while `pid` runs: the test's limit is the safety net. */
async function gone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
}

// The command below prints what runs beside it: the other children of its parent (the load's owner).
const besideMe = `const fs=require('fs');const out=[];for(const n of fs.readdirSync('/proc')){if(!/^\\d+$/.test(n)||Number(n)===process.pid)continue;try{const s=fs.readFileSync('/proc/'+n+'/stat','utf8');if(Number(s.slice(s.lastIndexOf(')')+2).split(' ')[1])===process.ppid)out.push({pid:Number(n)})}catch{}}console.log(JSON.stringify(out));process.exit(3)`;

describe('with-load', () => {
  it('reads its options: one loop per core unless --loops says, the command after them or after --', () => {
    expect(parseArguments(['pnpm', '-s', 'test'], 2)).toEqual({ loops: 2, command: ['pnpm', '-s', 'test'] });
    expect(parseArguments(['--loops', '3', 'pnpm', 'test'], 2)).toEqual({ loops: 3, command: ['pnpm', 'test'] });
    expect(parseArguments(['--loops=0', '--', '--odd-command'], 2)).toEqual({ loops: 0, command: ['--odd-command'] });
    expect(parseArguments(['--loops', 'two', 'x']).error).toBe("--loops takes a whole number, not 'two'");
    expect(parseArguments(['--bogus', 'x']).error).toBe("Unknown option '--bogus'");
    expect(parseArguments(['--loops', '2']).error).toBe('no command to run');
    expect(parseArguments(['--help']).help).toBe(true);
  });

  it('runs the command with the loops beside it, passes on its exit code and stops the loops', () => {
    const run = spawnSync(process.execPath, [script, '--loops', '2', '--', process.execPath, '-e', besideMe], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(3);
    expect(run.stderr).toContain('with-load: 2 busy loop(s) beside:');
    const loops = JSON.parse(run.stdout) as Array<{ pid: number }>;
    expect(loops).toHaveLength(2);
    for (const loop of loops) expect(alive(loop.pid), `loop ${loop.pid} outlived the command`).toBe(false);
  });

  it("is how CI runs the README's test command: the last command of .ci/run, with one busy loop", () => {
    const lines = readFileSync(join(root, '.ci', 'run'), 'utf8')
      .trim()
      .split('\n');
    expect(lines.at(-1)).toBe('node scripts/with-load.mjs --loops 1 -- pnpm -s test');
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(
      '`node scripts/with-load.mjs --loops 1 -- pnpm -s test`',
    );
  });

  it('a wrong option is named in one line before the usage, exit 2, and nothing is run', () => {
    const run = spawnSync(process.execPath, [script, '--bogus', 'true'], { cwd: root, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe("with-load: Unknown option '--bogus'");
    expect(run.stderr).toContain('Usage: node scripts/with-load.mjs');
  });

  it('killed with -9, its loops end by themselves', async () => {
    const owner = spawn(
      process.execPath,
      [script, '--loops', '2', '--', process.execPath, '-e', 'setInterval(()=>{},1000)'],
      {
        cwd: root,
        stdio: 'ignore',
      },
    );
    const pid = owner.pid!;
    // Until both loops and the command run: the test's limit is the safety net.
    while (childrenOf(pid).length < 3) await new Promise((r) => setTimeout(r, 50));
    const children = childrenOf(pid);
    const loops = children.filter((c) => c.command.includes('process.ppid'));
    expect(loops).toHaveLength(2);
    owner.kill('SIGKILL');
    for (const loop of loops) await gone(loop.pid);
    // The command itself is the caller's to stop (a test run's own servers do the same when orphaned).
    for (const c of children) if (!loops.includes(c)) process.kill(c.pid, 'SIGKILL');
  });
});
