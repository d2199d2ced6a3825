import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
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

export interface OwnGroup {
  /**
   * Each process in a process group of its own. A terminal's Ctrl-C or hang-up goes to its whole foreground group: a
   * program that stops its servers itself, in its own order, cleaning up after them (`cls-reference cluster`), must
   * not have them die under it first. Off by default: a test run stopped with Ctrl-C takes its servers with it.
   */
  ownGroup?: boolean;
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
  options: {
    port: number;
    log: Log;
    env?: NodeJS.ProcessEnv;
    readyWithinMs?: number;
    graceMs?: number;
    /** See `OwnGroup`. */
    ownGroup?: boolean;
  },
): Promise<RunningServer> {
  const { port, log } = options;
  log(`starting ${name} on 127.0.0.1:${port}`);
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
    detached: options.ownGroup === true,
  });
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

/** Runs a command to its end (in a process group of its own with `ownGroup`); rejects with its output when it fails. */
export function runCommand(command: string, args: string[], options: OwnGroup = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: options.ownGroup === true });
    let printed = '';
    const keep = (chunk: Buffer) => {
      printed = (printed + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code, signal) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} failed (${code ?? signal}):\n${printed}`)),
    );
  });
}

/** A process's state and parent from /proc/<pid>/stat; undefined once it is gone (a zombie is gone: it has exited). */
function statOf(pid: number): { ppid: number; pgid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' || state === 'X' ? undefined : { ppid: Number(ppid), pgid: Number(pgid) };
  } catch {
    return undefined;
  }
}

/**
 * `pid` and every process that still runs below it, read from Linux's /proc (only `pid` where there is none). A
 * process's children outlive it and move to another parent, so the tree is read before any of it is stopped.
 */
export function processTree(pid: number): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [pid];
  }
  const children = new Map<number, number[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const parent = statOf(Number(name))?.ppid;
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []));
  return tree;
}

/**
 * The processes of process group `pgid` that still run, read from Linux's /proc: one killed but not yet reaped by its
 * parent holds no port and runs nothing, though `kill(-pgid, 0)` still finds it.
 */
export function runningInGroup(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && statOf(Number(name))?.pgid === pgid)
    .map(Number);
}

/**
 * The processes working in `dir` or a folder inside it, read from Linux's /proc (those this user may read); with
 * `executable`, only those running that program (a shell an operator left in the folder is no server). A server works
 * in its data folder (PostgreSQL in its data directory, Redis in its `--dir`), so this finds the server that runs on
 * a folder now: the one started there, or one an operator started again by hand on the same folder.
 */
export function processesIn(dir: string, executable?: string): number[] {
  let root: string;
  let program: string | undefined;
  try {
    root = realpathSync(dir);
    program = executable === undefined ? undefined : realpathSync(executable);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (!(cwd === root || cwd.startsWith(`${root}/`)) || !statOf(Number(name))) continue;
      if (program === undefined || readlinkSync(`/proc/${name}/exe`) === program) found.push(Number(name));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/**
 * Stops every process of `executable` working in `dir` (see `processesIn`): `signal` to each one whose parent is not
 * itself one of them (a server's own workers stop with it), SIGKILL to whatever is still there after `graceMs`;
 * resolves, once none is left, with the pids signalled.
 */
export async function stopProcessesIn(
  dir: string,
  executable: string,
  signal: NodeJS.Signals,
  graceMs = 10_000,
): Promise<number[]> {
  const inside = processesIn(dir, executable);
  const leaders = inside.filter((pid) => !inside.includes(statOf(pid)?.ppid ?? -1));
  for (const pid of leaders) {
    try {
      process.kill(pid, signal);
    } catch {
      // Exited meanwhile.
    }
  }
  const deadline = Date.now() + graceMs;
  for (;;) {
    const left = processesIn(dir, executable);
    if (left.length === 0) return leaders;
    if (Date.now() > deadline)
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Exited meanwhile.
        }
      }
    await sleep(50);
  }
}
