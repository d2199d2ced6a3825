// `cls-reference cluster` as an operator runs it (the built dist/cli.js, leading a process group as a terminal's
// foreground job does): SIGINT, SIGTERM or SIGHUP sent to the whole group (Ctrl-C, a stop, a closed terminal) at
// each step of its start, or once it serves, stops everything started so far and exits 130, 143 or 129; a server
// restarted by hand meanwhile is the one stopped; a PORT already taken is an error before anything starts.
// "Nothing left" is checked on the machine itself: no process is left in the group or carries this run's mark in its
// environment (every server the cluster starts inherits it), and the run's TMPDIR and DATA_DIR are empty.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureDebianPackages, processesIn, runningInGroup, SERVER_PACKAGES, sparePort } from '@cls-api/test-servers';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli.js';
import { newPostgresDatabase } from '../support/engines.js';

const cli = resolve(import.meta.dirname, '../../dist/cli.js');

// Each step is signalled as soon as its line is printed: a server still to be installed (a fresh machine) would be
// installing then, not running, and the report would rightly not name it. Installed first, in this hook's time.
beforeAll(() => ensureDebianPackages(SERVER_PACKAGES, (line) => console.log(`[debian] ${line}`)), 900_000);
const folders: string[] = [];
const runs: Run[] = [];
/** Servers a test started by hand (each leading a group of its own): killed should a failed test leave them. */
const byHand: number[] = [];
afterAll(async () => {
  for (const pgid of byHand) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Stopped, as it should be.
    }
  }
  // A run a failed test left serving: stopped as its terminal would, before its folders go.
  for (const run of runs)
    if (run.child.exitCode === null && run.child.signalCode === null) {
      process.kill(-run.child.pid!, 'SIGINT');
      await run.exited;
    }
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

/** Processes whose environment holds `mark` (this test runs as root or as the servers' owner: it may read them). */
function marked(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(mark)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** The marked processes' command lines, by pid. */
function commandLines(mark: string): Map<number, string[]> {
  const lines = new Map<number, string[]>();
  for (const pid of marked(mark)) {
    try {
      lines.set(pid, readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean));
    } catch {
      // Gone meanwhile.
    }
  }
  return lines;
}

/** Resolves once a process of the run (its mark, or its folder) runs whose command line `running` accepts. */
async function started(run: Run, running: (argv: string, pid: number, run: Run) => boolean): Promise<void> {
  const mark = run.mark.split('=')[1]!;
  for (;;) {
    for (const pid of new Set([...marked(mark), ...processesIn(run.tmp)])) {
      try {
        if (running(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '), pid, run)) return;
      } catch {
        // Gone meanwhile.
      }
    }
    if (run.child.exitCode !== null) throw new Error(`the cluster exited first:\n${run.output()}`);
    await sleep(20);
  }
}

/** Resolves once no process `pid` runs (a zombie has exited). Waits on the event, however long it takes. */
async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return;
    } catch {
      return;
    }
    await sleep(50);
  }
}

/** Resolves once something accepts TCP connections on `port` of 127.0.0.1. */
async function listening(port: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((done) => {
      const socket = connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (ok) return;
    await sleep(50);
  }
}

interface Run {
  child: ChildProcess;
  mark: string;
  tmp: string;
  data: string;
  output: () => string;
  exited: Promise<number | null>;
  /** Resolves once the output has a line containing `text`. */
  printed(text: string): Promise<void>;
}

function startCluster(port: number, database?: string): Run {
  const mark = `CLS_CLUSTER_TEST_MARK=${randomUUID()}`;
  const tmp = mkdtempSync(join(tmpdir(), 'cls-cluster-run-'));
  const data = mkdtempSync(join(tmpdir(), 'cls-cluster-data-'));
  folders.push(tmp, data);
  // PostgreSQL runs as its own user when the tests run as root: it must reach its folder inside this one.
  chmodSync(tmp, 0o755);
  const [name, value] = mark.split('=') as [string, string];
  // Its own Redis always; its own PostgreSQL unless a database is given.
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    [name]: value,
    TMPDIR: tmp,
    DATA_DIR: data,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    DATABASE: database ?? '',
  };
  delete environment.REDIS_URL;
  // A group of its own, as a shell gives a job: the test signals the whole group, as the terminal does.
  const child = spawn(process.execPath, [cli, 'cluster', '--instances', '1'], {
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const waiting: Array<{ text: string; resolve: () => void }> = [];
  const take = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const w of [...waiting])
      if (out.includes(w.text)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  // 'close', not 'exit': Node promises every line read only at 'close' (its streams may still be open at 'exit'), and
  // the lines that name what was stopped, which the tests check, are the last ones written before the exit.
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  const run: Run = {
    child,
    mark,
    tmp,
    data,
    output: () => out,
    exited,
    printed: (text) =>
      out.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolvePrinted, reject) => {
            waiting.push({ text, resolve: resolvePrinted });
            void exited.then(() => reject(new Error(`exited before printing "${text}":\n${out}`)));
          }),
  };
  runs.push(run);
  return run;
}

/** What a terminal does: the signal to every process of the foreground group. */
const signalGroup = (run: Run, signal: NodeJS.Signals) => process.kill(-run.child.pid!, signal);

async function expectNothingLeft(run: Run): Promise<void> {
  expect(runningInGroup(run.child.pid!), run.output()).toEqual([]);
  expect(marked(run.mark.split('=')[1]!), run.output()).toEqual([]);
  // Redis writes its title over its environment, mark included: it is found by the folder it works in.
  expect(processesIn(run.tmp), run.output()).toEqual([]);
  expect(readdirSync(run.tmp), run.output()).toEqual([]);
  expect(readdirSync(run.data), run.output()).toEqual([]);
}

describe.concurrent('cls-reference cluster interrupted while it starts', () => {
  // Each step's first line, the process whose start it waits on (the signal comes while it runs, as a terminal's
  // does: to it too), what the report of the stop then names, and whether the cluster starts its own PostgreSQL: the
  // steps after Redis run on a database of the run's server (DATABASE given), which keeps the suite short; stopping
  // its own PostgreSQL is what the first two steps check. A step's process is found running (it has left the
  // cluster's group for one of its own, or never will) before the signal is sent.
  type Running = (argv: string, pid: number, run: Run) => boolean;
  const inFolder: Running = (_, pid, run) => processesIn(run.tmp).includes(pid);
  const steps: Array<[string, Running | undefined, string[], 'own' | 'given']> = [
    // initdb, or the server itself should initdb be done before it is seen.
    ['Starting PostgreSQL', (argv) => /\/(initdb|postgres) /.test(argv), ['stopped PostgreSQL'], 'own'],
    // Redis writes its title over its command line and works in its folder.
    [
      'Starting Redis',
      (argv, pid, run) => argv.includes('redis-server') && inFolder(argv, pid, run),
      ['stopped redis-server', 'stopped PostgreSQL'],
      'own',
    ],
    ['Loading the demo data', undefined, ['stopped redis-server'], 'given'],
    [
      'reference instances and nginx',
      (argv) => argv.includes('cli.js serve'),
      ['stopped nginx', 'stopped redis-server'],
      'given',
    ],
  ];

  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const cases = steps.flatMap(([line, running, named, database]) =>
    signals.map((signal) => [signal, line, running, named, database] as const),
  );

  it.each(cases)(
    '%s to the group at "%s": its exit code, every server stopped by the cluster and every folder removed, each named',
    {
      timeout: 180_000,
    },
    async (signal, line, running, named, database) => {
      const run = startCluster(await sparePort(), database === 'given' ? await newPostgresDatabase() : undefined);
      await run.printed(line);
      if (running) await started(run, running);
      signalGroup(run, signal);
      expect(await run.exited, run.output()).toBe(exitCodeOf(signal));
      for (const what of named) expect(run.output()).toContain(what);
      expect(run.output()).toContain('Everything the cluster started is stopped.');
      await expectNothingLeft(run);
    },
  );

  it.each(signals)(
    '%s to the group once it serves: its exit code, everything stopped, cluster.env removed',
    { timeout: 180_000 },
    async (signal) => {
      const run = startCluster(await sparePort(), await newPostgresDatabase());
      await run.printed('Ctrl-C stops everything.');
      expect(readdirSync(run.data)).toEqual(['cluster.env']);
      signalGroup(run, signal);
      // Again once the stop is under way, as an impatient operator does: it neither cuts the stop short nor repeats
      // its line. (The group is still there: at worst its leader has exited and is not yet reaped, which this test's
      // process does only after it has read every line written before the exit.)
      await run.printed(`${signal}: stopping the cluster…`);
      signalGroup(run, signal);
      expect(await run.exited, run.output()).toBe(exitCodeOf(signal));
      expect(run.output().split(`${signal}: stopping the cluster…`), run.output()).toHaveLength(2);
      expect(run.output()).toContain('stopped nginx');
      expect(run.output()).toContain('stopped redis-server');
      expect(run.output()).toContain(`removed ${join(run.data, 'cluster.env')}`);
      await expectNothingLeft(run);
    },
  );

  it('SIGHUP once it serves, its terminal gone (nothing reads its output): exit 129, everything stopped', {
    timeout: 180_000,
  }, async () => {
    const run = startCluster(await sparePort());
    await run.printed('Ctrl-C stops everything.');
    // A closed terminal: every report the cluster writes from now on fails (EPIPE).
    run.child.stdout!.destroy();
    run.child.stderr!.destroy();
    signalGroup(run, 'SIGHUP');
    expect(await run.exited).toBe(129);
    await expectNothingLeft(run);
  });
});

describe('cls-reference cluster stopped after its PostgreSQL and Redis were restarted by hand', () => {
  it('stops the servers running on their folders now, names them, and leaves nothing', {
    timeout: 240_000,
  }, async () => {
    const run = startCluster(await sparePort());
    await run.printed('Ctrl-C stops everything.');
    const mark = run.mark.split('=')[1]!;
    // PostgreSQL's server keeps its command line; Redis writes its title over it ("redis-server 127.0.0.1:PORT").
    const postgres = [...commandLines(mark)].filter(
      ([, argv]) => argv[0]!.endsWith('/postgres') && argv.includes('-D'),
    );
    expect(postgres, run.output()).toHaveLength(1);
    const [postgresPid, postgresArgv] = postgres[0]!;
    const redis = processesIn(run.tmp).filter((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis-server'),
    );
    expect(redis, run.output()).toHaveLength(1);
    const redisPid = redis[0]!;
    const redisDir = readlinkSync(`/proc/${redisPid}/cwd`);
    const redisPort = /:(\d+)/.exec(readFileSync(`/proc/${redisPid}/cmdline`, 'utf8'))![1]!;
    // What an operator does: stop each server, and start it again on the same folder and port.
    const environment = { ...process.env, [run.mark.split('=')[0]!]: mark };
    const again = async (pid: number, signal: NodeJS.Signals, argv: string[], port: string) => {
      process.kill(pid, signal);
      await gone(pid);
      // PostgreSQL refuses to run as root: as its own user, as the cluster runs it.
      const asUser =
        argv[0]!.endsWith('/postgres') && process.getuid?.() === 0
          ? ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--']
          : [];
      const [command, ...args] = [...asUser, ...argv];
      const replacement = spawn(command!, args, { env: environment, stdio: 'ignore', detached: true });
      replacement.unref();
      byHand.push(replacement.pid!);
      await listening(Number(port));
      return replacement.pid!;
    };
    const redisAgain = await again(
      redisPid,
      'SIGTERM',
      ['/usr/bin/redis-server', '--port', redisPort, '--bind', '127.0.0.1', '--dir', redisDir, '--appendonly', 'yes'],
      redisPort,
    );
    const postgresAgain = await again(
      postgresPid,
      'SIGINT',
      postgresArgv,
      postgresArgv[postgresArgv.indexOf('-p') + 1]!,
    );
    // The operator's shell, still in Redis's folder: no server, not the cluster's to stop.
    const shell = spawn('sleep', ['3600'], { cwd: redisDir, stdio: 'ignore', detached: true });
    shell.unref();
    byHand.push(shell.pid!);

    signalGroup(run, 'SIGINT');
    expect(await run.exited, run.output()).toBe(130);
    expect(run.output()).toContain(`stopped redis-server (pid ${redisAgain}: ${redisAgain} started again by hand`);
    expect(run.output()).toContain(`stopped PostgreSQL (pid ${postgresAgain}: ${postgresAgain} started again by hand`);
    expect(readFileSync(`/proc/${shell.pid}/stat`, 'utf8'), 'the shell in the folder was left running').not.toMatch(
      /\) Z /,
    );
    process.kill(shell.pid!, 'SIGKILL');
    await gone(shell.pid!);
    await expectNothingLeft(run);
  });
});

describe('cls-reference cluster on a PORT another server holds', () => {
  let other: Server;
  afterAll(() => other?.close());

  it('is an error before anything starts: exit 1, naming the port; nothing left', async () => {
    other = createServer(() => undefined);
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
    const port = (other.address() as { port: number }).port;
    const run = startCluster(port);
    expect(await run.exited).toBe(1);
    // In the words of a refused listen of `serve` (listenRefusal), with the setting to change.
    expect(run.output()).toContain(
      `127.0.0.1:${port} is in use: stop what holds it, or set PORT to another port (0 picks a free one)`,
    );
    expect(run.output()).not.toContain('Serving through nginx');
    await expectNothingLeft(run);
  });
});
