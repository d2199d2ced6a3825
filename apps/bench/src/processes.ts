// Each server under test runs in a child process of its own, so that its memory and CPU time are its own: they are
// read from /proc for the child and every process it started (the Prism mock is two processes).
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { startPostgres } from '@cls-api/test-servers';

const PROC = '/proc';

let clockTicks: number | undefined;
/** Kernel clock ticks per second, the unit of utime and stime in /proc/<pid>/stat. */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

export function procfsAvailable(): boolean {
  try {
    readFileSync(`${PROC}/self/stat`, 'utf8');
    return true;
  } catch {
    return false;
  }
}

interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime in clock ticks */
  cpuTicks: number;
  /** cutime + cstime: the CPU of its children that have exited and that it has waited for, in clock ticks */
  reapedChildTicks: number;
  /** stime + cstime: the part of the two above spent in the kernel (system calls, the network stack, waking others) */
  systemTicks: number;
}

function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`${PROC}/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces or parentheses: fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state(3) ppid(4) … utime(14) stime(15), numbered from 1 with pid and comm as 1 and 2.
  // cutime(16) and cstime(17) follow.
  return {
    pid,
    ppid: Number(fields[1]),
    cpuTicks: Number(fields[11]) + Number(fields[12]),
    reapedChildTicks: Number(fields[13]) + Number(fields[14]),
    systemTicks: Number(fields[12]) + Number(fields[14]),
  };
}

/** Every process alive now, by parent. */
function childrenByParent(): Map<number, Stat[]> {
  const children = new Map<number, Stat[]>();
  for (const entry of readdirSync(PROC)) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(stat);
    children.set(stat.ppid, list);
  }
  return children;
}

function treeOf(pid: number, children: Map<number, Stat[]>): number[] {
  const tree: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next) ?? []).map((c) => c.pid));
  }
  return tree;
}

/** `pid` and all its descendants that are alive now. */
export function processTree(pid: number): number[] {
  return treeOf(pid, childrenByParent());
}

/**
 * CPU seconds used so far by each root's process tree as it is now, counting the processes of the tree that have
 * exited since: a server that forks a process per connection and reaps it (PostgreSQL's backends, which its
 * clients' pools close when idle) has their CPU in its cutime and cstime. Read afresh on every call, so that
 * processes started after the last call are found. `systemSeconds` is the kernel's part of `seconds`; `processes` is
 * how many are alive now.
 */
export function treeCpu(roots: readonly number[]): { seconds: number; systemSeconds: number; processes: number } {
  const children = childrenByParent();
  let ticks = 0;
  let systemTicks = 0;
  let processes = 0;
  for (const root of roots) {
    for (const pid of treeOf(root, children)) {
      const stat = readStat(pid);
      if (!stat) continue;
      ticks += stat.cpuTicks + stat.reapedChildTicks;
      systemTicks += stat.systemTicks;
      processes++;
    }
  }
  return { seconds: ticks / ticksPerSecond(), systemSeconds: systemTicks / ticksPerSecond(), processes };
}

/** CPU seconds (user + system) used so far by the processes. */
export function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) ticks += readStat(pid)?.cpuTicks ?? 0;
  return ticks / ticksPerSecond();
}

function statusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`${PROC}/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Sum of the peak resident set sizes (VmHWM) of the processes, in MiB. */
export function peakRssMiB(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + statusKiB(pid, 'VmHWM'), 0) / 1024;
}

/**
 * A server in a child process: its tree's CPU time and peak memory, and a stop that waits for the exit.
 * `stop` sends SIGTERM (the servers shut down gracefully on it) and SIGKILL after `graceMs`.
 */
export class ServerProcess {
  private exited: Promise<void>;
  private hasExited = false;
  private pids: number[] | undefined;

  constructor(
    readonly child: ChildProcess,
    readonly label: string,
  ) {
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        this.hasExited = true;
        resolve();
        return;
      }
      child.once('exit', () => {
        this.hasExited = true;
        resolve();
      });
    });
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.label} has no process id`);
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.hasExited;
  }

  /** The processes of this server; read once it is ready (children started later are found by `refreshTree`). */
  tree(): number[] {
    this.pids ??= processTree(this.pid);
    return this.pids;
  }

  refreshTree(): number[] {
    this.pids = processTree(this.pid);
    return this.pids;
  }

  cpuSeconds(): number {
    return cpuSeconds(this.tree());
  }

  peakRssMiB(): number {
    return peakRssMiB(this.tree());
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (this.hasExited) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const pid of [...this.tree()].reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }, graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Every server started in this run, so that an interrupted run leaves none behind. */
export const running = new Set<ServerProcess>();

export function track(server: ServerProcess): ServerProcess {
  running.add(server);
  server.child.once('exit', () => running.delete(server));
  return server;
}

/** Servers this harness did not fork itself (PostgreSQL, Redis, nginx and the instances behind it): their stops. */
const otherStops = new Set<() => Promise<void>>();

/**
 * Registers the stop of a server started some other way, so that `stopAll` stops it too; returns that stop, which
 * runs once whoever calls it first (the scenario's `finally` or an interrupted run) and unregisters itself.
 */
export function trackStop(stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  const once = () => {
    stopping ??= stop().finally(() => otherStops.delete(once));
    return stopping;
  };
  otherStops.add(once);
  return once;
}

/**
 * Stops the forked servers, then the others newest first: a server stops before the database, Redis or temporary
 * directory it was started on, which were registered before it.
 */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((s) => s.stop(5_000)));
  for (const stop of [...otherStops].reverse()) await stop().catch(() => undefined);
}

/** A PostgreSQL server of the scenario's own with an empty database, stopped by `stopAll` too if the run is cut. */
export async function ownPostgres(log: (line: string) => void) {
  const pg = await startPostgres((line) => log(`postgres: ${line}`));
  const stop = trackStop(() => pg.stop());
  try {
    return { url: await pg.createDatabase('reference'), pid: () => pg.process.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
