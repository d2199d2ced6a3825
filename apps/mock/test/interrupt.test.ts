// Ctrl-C (SIGINT) on `pnpm mock` at each stage of its start: before Prism runs its first line, while it starts (the
// contract loaded, about to listen), and once the mock serves. Whatever the stage, nothing is left behind: no Prism
// process, nothing in the temporary folder, and the command says what it did. Interrupted before it served, it exits
// 130; stopped while serving, 0 (its ordinary end). The signal goes to the command's process group, Prism's too, as
// a terminal sends Ctrl-C. Prism is held at a stage by test/fixtures/hold-prism.mjs (loaded
// through NODE_OPTIONS), and the signal is sent once the stage's marker or log line is there, never after a pause.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startMock } from '../src/index.js';

const pkgDir = resolve(import.meta.dirname, '..');
const hold = pathToFileURL(join(import.meta.dirname, 'fixtures', 'hold-prism.mjs')).href;
const work = mkdtempSync(join(tmpdir(), 'cls-mock-interrupt-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes whose command line names `text` (Prism's names the snapshot in the temporary folder it was given). */
function processesNaming(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(text)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // ended while listed
    }
  }
  return found;
}

async function until(what: string, child: ChildProcess, output: () => string, ready: () => boolean): Promise<void> {
  while (!ready()) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the command ended before ${what}:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Target = 'group' | 'command';

/** `pnpm mock`'s command with its own temporary folder, Prism held at `holdAt` (or not held), SIGINT once `ready`. */
async function interruptAt(
  name: string,
  holdAt: 'spawned' | 'listen' | undefined,
  ready: (output: string, marker: string) => boolean,
  to: Target = 'group',
) {
  const dir = join(work, name);
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const marker = join(dir, 'held');
  const child = spawn(process.execPath, [join(pkgDir, 'dist', 'cli.js'), '--quiet'], {
    env: {
      ...process.env,
      PORT: '0',
      TMPDIR: tmp,
      ...(holdAt
        ? {
            NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${hold}`,
            CLS_MOCK_HOLD: holdAt,
            CLS_MOCK_HOLD_MARKER: marker,
          }
        : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a terminal's foreground job: Ctrl-C is SIGINT to the whole group, Prism included.
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  try {
    await until(
      `stage "${name}"`,
      child,
      () => output,
      () => ready(output, marker),
    );
  } finally {
    // A terminal's Ctrl-C reaches the whole group; `kill -INT <pid>` (a supervisor) the command alone.
    process.kill(to === 'group' ? -child.pid! : child.pid!, 'SIGINT');
  }
  const code = await exited;
  const prismPid = Number(/^Prism \(process (\d+)\) is loading the contract/m.exec(output)?.[1]);
  return { code, output, tmp, prismPid, held: existsSync(marker) ? readFileSync(marker, 'utf8') : '' };
}

function expectNothingLeft(run: { tmp: string; prismPid: number; output: string }): void {
  expect(run.prismPid, run.output).toBeGreaterThan(0);
  expect(alive(run.prismPid), `Prism (process ${run.prismPid}) is still running`).toBe(false);
  expect(processesNaming(run.tmp)).toEqual([]);
  expect(readdirSync(run.tmp)).toEqual([]);
}

describe('Ctrl-C on pnpm mock', { timeout: 900_000 }, () => {
  const stopped = 'SIGINT: the mock was stopped before it served; Prism and its temporary files are gone.';

  it.each<Target>(['group', 'command'])(
    'before Prism runs its first line (SIGINT to the %s): Prism stopped, its snapshot removed, exit 130',
    async (to) => {
      const run = await interruptAt(`spawned-${to}`, 'spawned', (_, marker) => existsSync(marker), to);
      expect(run.held).toBe(`${run.prismPid} spawned\n`);
      expect(run.output).toContain('SIGINT: stopping the mock before it serves...');
      expect(run.output).toContain(stopped);
      expect(run.output).not.toContain('Mock listening');
      expect(run.code).toBe(130);
      expectNothingLeft(run);
    },
  );

  it.each<Target>(['group', 'command'])(
    'while Prism starts, the contract loaded and about to listen (SIGINT to the %s): the same, exit 130',
    async (to) => {
      const run = await interruptAt(`listen-${to}`, 'listen', (_, marker) => existsSync(marker), to);
      expect(run.held).toBe(`${run.prismPid} listen\n`);
      expect(run.output).toContain(stopped);
      expect(run.code).toBe(130);
      expectNothingLeft(run);
    },
  );

  it('once the mock serves: stopped, exit 0', async () => {
    const run = await interruptAt('serving', undefined, (output) => /^Mock listening on /m.test(output));
    expect(run.output).toContain('SIGINT: stopping the mock...');
    expect(run.code).toBe(0);
    expectNothingLeft(run);
  });
});

describe('startMock with a signal', () => {
  it('aborted before Prism is spawned: rejects with the reason, spawns nothing and leaves no folder', async () => {
    const tmp = join(work, 'library');
    mkdirSync(tmp);
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = tmp; // this worker's own: os.tmpdir() reads it on each call
    try {
      const starting = new AbortController();
      const spawned: number[] = [];
      const started = startMock({ signal: starting.signal, onPrismSpawn: (pid) => spawned.push(pid) });
      starting.abort(new Error('stopped by the test'));
      await expect(started).rejects.toThrow('stopped by the test');
      expect(spawned).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      process.env.TMPDIR = previous;
    }
  });
});
