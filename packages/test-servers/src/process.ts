import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Log } from './debian.js';

export interface RunningServer {
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL after `graceMs`) and resolves once it has exited. */
  stop(): Promise<void>;
  /** Kills it at once with SIGKILL, as a crash would, and resolves once it has exited. */
  kill(): Promise<void>;
  readonly process: ChildProcess;
  /** Everything it printed, for the message of a failed test. */
  output(): string;
}

/** Every server started and not yet stopped: killed if the test process exits first, so none outlives its tests. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts `command` and resolves once it accepts TCP connections on `port` of 127.0.0.1. It fails with the server's
 * own output if the process exits first, or if it is not listening after `readyWithinMs` (a bound for a server that
 * hangs, far above any healthy start: no test waits on it otherwise).
 */
export async function startServer(
  name: string,
  command: string,
  args: string[],
  options: { port: number; log: Log; env?: NodeJS.ProcessEnv; readyWithinMs?: number; graceMs?: number },
): Promise<RunningServer> {
  const { port, log } = options;
  log(`starting ${name} on 127.0.0.1:${port}`);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
  running.add(child);
  let printed = '';
  const keep = (chunk: Buffer) => {
    printed = (printed + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const gone = exited(child).then(() => running.delete(child));
  let failedToSpawn: Error | undefined;
  child.once('error', (err) => {
    failedToSpawn = err;
  });

  const deadline = Date.now() + (options.readyWithinMs ?? 60_000);
  for (;;) {
    if (failedToSpawn) throw new Error(`${name} could not be started: ${failedToSpawn.message}`);
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it listened:\n${printed}`);
    if (await accepts(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not listen on 127.0.0.1:${port}:\n${printed}`);
    }
    await sleep(50);
  }

  const graceMs = options.graceMs ?? 10_000;
  return {
    port,
    process: child,
    output: () => printed,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await gone;
      clearTimeout(timer);
    },
    async kill() {
      child.kill('SIGKILL');
      await gone;
    },
  };
}
