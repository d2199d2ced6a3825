// HeldClock holds `Date` in a process of its own at the instant a test sets, and tells the test when it took it.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HeldClock } from '../src/index.js';

const clock = new HeldClock();
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});
afterAll(() => clock.dispose());

/** A process with the clock loaded that answers each line on stdin with `Date.now()` and `new Date()`'s time. */
function startClockReader(): { server: { process: ChildProcess; output(): string }; read(): Promise<number[]> } {
  const script = `process.stdin.on('data', () => process.stdout.write(JSON.stringify([Date.now(), new Date().getTime()]) + '\\n'));`;
  child = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, ...clock.env() },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const started = child;
  let printed = '';
  started.stderr?.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  return {
    server: { process: started, output: () => printed },
    read: () =>
      new Promise((resolve) => {
        started.stdout?.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString('utf8')) as number[]));
        started.stdin?.write('\n');
      }),
  };
}

describe('HeldClock', () => {
  it("holds the process's Date at the instant set once it has acknowledged it, and lets it run again on null", async () => {
    const reader = startClockReader();
    // Running, and so with the clock loaded (`--import` runs first): the signal would end a process without it.
    await reader.read();
    const at = Date.UTC(2026, 10, 20, 1, 15, 42);
    await clock.hold(at, [reader.server]);
    expect(await reader.read()).toEqual([at, at]);
    await clock.hold(at + 42, [reader.server]);
    expect(await reader.read()).toEqual([at + 42, at + 42]);
    await clock.hold(null, [reader.server]);
    const before = Date.now();
    const [now, constructed] = (await reader.read()) as [number, number];
    expect(now).toBeGreaterThanOrEqual(before);
    expect(constructed).toBeGreaterThanOrEqual(before);
  });

  it('rejects with what the process printed when it exits before it took the change', async () => {
    const reader = startClockReader();
    await reader.read();
    await clock.hold(Date.now(), [reader.server]);
    reader.server.process.kill('SIGKILL');
    await new Promise((resolve) => reader.server.process.once('exit', resolve));
    await expect(clock.hold(Date.now(), [reader.server])).rejects.toThrow(/exited before it took the clock change/);
  });
});
