// A shell step still running when its test ends is stopped with what it started (test/support/shell.ts): the first
// test leaves a step waiting on a long `sleep`, as a timed-out test would; the second finds neither left. A step is
// tied to the test through the hook it is given: concurrent tests must each give their own context's.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, type OnTestFinishedHandler, type TestContext, test } from 'vitest';
import { bash } from './support/shell.js';

const dir = mkdtempSync(join(tmpdir(), 'cls-shell-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether `pid` still runs (a zombie has ended: only its parent's reaping is left). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The step's shell and its `sleep`, as the step writes them to `file` once both run. */
async function pidsIn(file: string): Promise<[number, number]> {
  for (let i = 0; i < 600; i++) {
    let said = '';
    try {
      said = readFileSync(file, 'utf8');
    } catch {
      // Not written yet.
    }
    const [shell, sleeper] = said.trim().split(' ').map(Number);
    if (said.endsWith('\n') && shell && sleeper) return [shell, sleeper];
    await sleep(50);
  }
  throw new Error(`${file} was not written`);
}

let step: { shell: number; sleep: number } | undefined;

test.skipIf(process.platform !== 'linux')('a test ends while its step still runs', async ({ onTestFinished }) => {
  void bash('sleep 600 & echo "$$ $!" > pids; wait', dir, { PATH: process.env.PATH ?? '' }, onTestFinished);
  const [shell, sleeper] = await pidsIn(join(dir, 'pids'));
  expect(running(shell) && running(sleeper)).toBe(true);
  step = { shell, sleep: sleeper };
});

test.skipIf(process.platform !== 'linux')('neither the step nor what it started runs after its test', async () => {
  expect(step).toBeDefined();
  // Killed as the first test ended; a moment more for their parents to reap them.
  for (let i = 0; i < 200 && (running(step!.shell) || running(step!.sleep)); i++) await sleep(50);
  expect(running(step!.shell), `bash ${step!.shell} still runs`).toBe(false);
  expect(running(step!.sleep), `sleep ${step!.sleep} still runs`).toBe(false);
});

test.skipIf(process.platform !== 'linux')(
  'the step is stopped by the hook it was given: concurrent tests each give their own',
  async () => {
    const given: OnTestFinishedHandler[] = [];
    const finished = bash('sleep 600 & echo "$$ $!" > pids-given; wait', dir, { PATH: process.env.PATH ?? '' }, (fn) =>
      given.push(fn),
    );
    const [shell, sleeper] = await pidsIn(join(dir, 'pids-given'));
    expect(given).toHaveLength(1);
    expect(running(shell) && running(sleeper)).toBe(true);
    await given[0]!({} as TestContext);
    expect((await finished).code).toBeNull();
    for (let i = 0; i < 200 && running(sleeper); i++) await sleep(50);
    expect(running(sleeper), `sleep ${sleeper} still runs`).toBe(false);
  },
);
