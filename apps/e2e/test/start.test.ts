// `pnpm start` supervises its three servers: it prints where they are and the demo credentials of every area, stops
// them all on Ctrl-C without pnpm calling it a failure, stops the others when one dies and says which and why, and
// starts again after any crash, its own included.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { POSTGRES_PASSWORD, portHolders, runningInGroup, sparePort, startPostgres } from '@cls-api/test-servers';
import { describe, expect, it } from 'vitest';
import { contractLocal, root, tempDir } from './support.js';

// A command that ignored --help would start serving and never end: the child is killed after this long, so such a
// regression fails here instead of hanging the run (a help text takes a second or two even on a busy machine).
const HELP_GUARD_MS = 120_000;

interface Start {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  ports: { reference: number; docs: number; mock: number };
  dataDir: string;
}

async function launch(command: string[], dataDir: string, env: Record<string, string> = {}): Promise<Start> {
  const ports = { reference: await sparePort(), docs: await sparePort(), mock: await sparePort() };
  // Its own process group, like a shell job: a signal to the group is what Ctrl-C sends a terminal's job.
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(ports.reference),
      DOCS_PORT: String(ports.docs),
      MOCK_PORT: String(ports.mock),
      DATABASE: join(dataDir, 'reference.db'),
      ...env,
    },
  });
  let text = '';
  child.stdout!.on('data', (c: Buffer) => (text += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => text, exited, ports, dataDir };
}

/** Waits for `condition` while the process runs; the test's limit is the safety net, not a count of tries. */
async function until(what: string, condition: () => boolean, start: Start): Promise<void> {
  while (!condition()) {
    if (start.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(condition(), `${what}; output so far:\n${start.output()}`).toBe(true);
}

const running = (s: Start) =>
  until('the three servers run', () => s.output().includes('Running (Ctrl-C stops everything)'), s);

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
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

/** Whether any process is left in the process group `pgid` (each server runs in its own, with what it spawned). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes of process group `pgid`, from /proc (field 5 of stat, after the command in parentheses). */
function groupPids(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function pids(dataDir: string): Array<{ name: string; pid: number }> {
  return JSON.parse(readFileSync(join(dataDir, 'start-pids.json'), 'utf8')) as Array<{ name: string; pid: number }>;
}

/**
 * No server of this start outlives it: no process is left in any server's process group (what a server spawned, as
 * the mock's Prism, included), and no process of those groups listens on their ports. A port can answer all the same:
 * the suites beside this one take free ports too, and one may take a port the moment a server of ours released it
 * (a CI run met that), so a listener is named and judged by its process group, not by the port alone.
 */
async function expectAllStopped(s: Start, children: Array<{ pid: number }>): Promise<void> {
  for (const { pid } of children) {
    expect(alive(pid), `pid ${pid} still running`).toBe(false);
    expect(groupAlive(pid), `a process of the group of pid ${pid} still running`).toBe(false);
  }
  const groups = new Set(children.map((c) => c.pid));
  for (const port of Object.values(s.ports)) {
    if (!(await listening(port))) continue;
    const holders = portHolders(port);
    const ours = holders.filter((h) => groups.has(h.pgid));
    expect(ours, `port ${port} still held by this start's servers: ${JSON.stringify(holders)}`).toEqual([]);
  }
}

describe('pnpm start --help', () => {
  it('prints the usage and exits 0, starting nothing; an unknown option is named with the usage, exit 2', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ['scripts/start.mjs', ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: HELP_GUARD_MS,
      });
    for (const flag of ['--help', '-h']) {
      const help = run(flag);
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^Usage: pnpm start \[--no-build\]/);
      expect(help.stdout).not.toContain('▶');
    }
    const wrong = run('--nobuild');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--nobuild'");
    expect(wrong.stderr).toContain('Usage: pnpm start');
    expect(wrong.stdout).toBe('');
  });
});

describe('pnpm start where its data cannot be written', () => {
  // A path under a file: neither the data folder nor the database can be made there.
  const underFile = () => {
    const dir = tempDir('cls-start-file-');
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, '');
    return { dir, file };
  };
  const start = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['scripts/start.mjs', '--no-build'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: HELP_GUARD_MS,
    });
  const plain = (output: string) => {
    expect(output).not.toContain('{"error"');
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toContain('Node.js v');
  };

  it('a data folder that cannot be made: one line naming it, exit 1, nothing started', () => {
    const { file } = underFile();
    const run = start({ DATABASE: join(file, 'reference.db') });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.trim()).toBe(
      `error: the data folder ${file} cannot be made: EEXIST: file already exists, mkdir '${file}'. DATA_DIR, or the folder of DATABASE, must name a folder.`,
    );
    plain(run.stdout + run.stderr);
    expect(run.stdout).not.toContain('Loading the demo data');
  });

  it("a database the demo data cannot be loaded into: the reference's words on one line, exit 1", () => {
    const { dir, file } = underFile();
    const run = start({ DATA_DIR: dir, DATABASE: join(file, 'reference.db') });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toContain(`Loading the demo data into ${join(file, 'reference.db')}`);
    const said = run.stderr.trim();
    expect(said.startsWith(`error: DATABASE ${join(file, 'reference.db')} cannot be used: EEXIST`), said).toBe(true);
    expect(said.split('\n')).toHaveLength(1);
    plain(run.stdout + run.stderr);
  });
});

// Each test starts the three servers, two or three times: scripts/start.mjs waits up to 600 s for each to answer
// (the mock's Prism takes minutes on a busy machine), so each test may take that long.
describe('pnpm start', { timeout: 1_800_000 }, () => {
  it('prints the URLs, a demo key per area and the JWT client credentials; Ctrl-C stops all three, exit 0', async () => {
    const dataDir = tempDir('cls-e2e-start-');
    // In a terminal, as a person runs it: `script` gives pnpm a pseudo-terminal, and Ctrl-C is the byte 0x03 typed
    // into it, which the terminal turns into SIGINT for the whole foreground job (pnpm, its shell, the supervisor).
    // `script` runs its command through $SHELL -c, or /bin/sh when SHELL is unset; dash then waits on pnpm instead of
    // replacing itself with it, and dies of the same SIGINT with 130 after pnpm exited 0. `exec` makes pnpm the
    // terminal's job itself, as when a person types `pnpm start` at an interactive prompt, whatever the shell.
    const s = await launch(['script', '-qfec', 'exec pnpm start --no-build', '/dev/null'], dataDir);
    await running(s);
    const out = s.output();
    for (const area of ['wms', 'manager', 'cam'])
      expect(out).toMatch(new RegExp(`${area} key\\s+X-API-Key: ${area}_test_[A-Za-z0-9]+`));
    expect(out).toMatch(/JWT client\s+client_id=cli_test_\S+\s+client_secret=\S+/);
    expect(out).toContain(`http://127.0.0.1:${s.ports.docs}/`);
    const children = pids(dataDir);
    expect(children.map((c) => c.name).sort()).toEqual(['docs site', 'mock', 'reference server']);
    // The demo key printed works against the reference server it names.
    const key = /manager key\s+X-API-Key: (\S+)/.exec(out)![1]!;
    const res = await fetch(`http://127.0.0.1:${s.ports.reference}/v3/manager/orders?page=1&size=10`, {
      headers: { 'X-API-Key': key },
    });
    expect(res.status).toBe(200);
    // `pnpm contract:local` as the README gives it, without options: the kit's default run against what this start
    // serves, with the demo sellers it printed.
    const kit = await contractLocal([], { PORT: String(s.ports.reference), DATABASE: join(dataDir, 'reference.db') });
    expect(kit.code, kit.output).toBe(0);
    expect(kit.output).toMatch(/\d+ passed, 0 failed/);

    s.child.stdin!.write('\x03');
    expect(await s.exited).toBe(0);
    expect(s.output()).toContain('Stopping…');
    expect(s.output()).not.toMatch(/ELIFECYCLE|Command failed/);
    await expectAllStopped(s, children);
    expect(existsSync(join(dataDir, 'start-pids.json'))).toBe(false);
  });

  it('DATABASE=postgres://… serves that database: the demo data is loaded once, its password never shown, in either place', async () => {
    const postgres = await startPostgres();
    try {
      const url = await postgres.createDatabase('cls_e2e_start');
      const dataDir = tempDir('cls-e2e-pg-');
      const env = { DATABASE: url, DATA_DIR: dataDir };
      const first = await launch([process.execPath, 'scripts/start.mjs', '--no-build'], dataDir, env);
      await running(first);
      const key = /manager key\s+X-API-Key: (\S+)/.exec(first.output())![1]!;
      const res = await fetch(`http://127.0.0.1:${first.ports.reference}/v3/manager/orders?page=1&size=10`, {
        headers: { 'X-API-Key': key },
      });
      expect(res.status).toBe(200);
      expect(first.output()).toContain('postgres://postgres:***@127.0.0.1:');
      expect(first.output()).not.toContain(POSTGRES_PASSWORD);
      const children = pids(dataDir);
      process.kill(-first.child.pid!, 'SIGTERM');
      expect(await first.exited).toBe(0);
      await expectAllStopped(first, children);

      // The second start finds the data and the keys it printed: the same key still works.
      const second = await launch([process.execPath, 'scripts/start.mjs', '--no-build'], dataDir, env);
      await running(second);
      expect(second.output()).toContain(key);
      const again = pids(dataDir);
      process.kill(-second.child.pid!, 'SIGTERM');
      expect(await second.exited).toBe(0);
      await expectAllStopped(second, again);

      // The password given as `?password=` is hidden too (this checkout has no demo keys for that spelling).
      const inQuery = new URL(url);
      inQuery.password = '';
      inQuery.searchParams.set('password', POSTGRES_PASSWORD);
      const third = await launch([process.execPath, 'scripts/start.mjs', '--no-build'], dataDir, {
        ...env,
        DATABASE: inQuery.href,
      });
      await running(third);
      // Its seed finds the accounts the first start loaded: said as what happens, not as an error.
      expect(third.output()).toContain(
        'The database already has accounts: it is served as it is, without the demo data.',
      );
      expect(third.output()).not.toMatch(/\{"error"|^error:/m);
      expect(third.output()).toContain('password=***');
      expect(third.output()).not.toContain(POSTGRES_PASSWORD);
      const last = pids(dataDir);
      process.kill(-third.child.pid!, 'SIGTERM');
      expect(await third.exited).toBe(0);
      await expectAllStopped(third, last);
    } finally {
      await postgres.stop();
    }
  });

  it('when one server dies, says which and why, stops the others and exits 1; the next start works', async () => {
    const dataDir = tempDir('cls-e2e-crash-');
    const first = await launch([process.execPath, 'scripts/start.mjs', '--no-build'], dataDir);
    await running(first);
    const children = pids(dataDir);
    const docs = children.find((c) => c.name === 'docs site')!;
    process.kill(docs.pid, 'SIGKILL');
    expect(await first.exited).toBe(1);
    expect(first.output()).toMatch(/The docs site exited \(signal SIGKILL\)/);
    expect(first.output()).toContain('Stopping the others');
    await expectAllStopped(first, children);

    const second = await launch([process.execPath, 'scripts/start.mjs', '--no-build'], dataDir);
    await running(second);
    const again = pids(dataDir);
    process.kill(-second.child.pid!, 'SIGTERM');
    expect(await second.exited).toBe(0);
    await expectAllStopped(second, again);
  });

  it('when the mock is killed with kill -9, its Prism is stopped too and its folder removed; the next start works', async () => {
    const dataDir = tempDir('cls-e2e-mock-crash-');
    // The servers' temporary folders (Prism writes the contract into one) go below this start's TMPDIR.
    const tmp = tempDir('cls-e2e-mock-tmp-');
    const first = await launch([process.execPath, 'scripts/start.mjs', '--no-build'], dataDir, { TMPDIR: tmp });
    await running(first);
    const children = pids(dataDir);
    const mock = children.find((c) => c.name === 'mock')!;
    // The mock and the Prism it started, in the mock's process group.
    expect(groupPids(mock.pid).length).toBeGreaterThan(1);
    process.kill(mock.pid, 'SIGKILL');
    expect(await first.exited).toBe(1);
    expect(first.output()).toMatch(/The mock exited \(signal SIGKILL\)/);
    await expectAllStopped(first, children);
    expect(groupPids(mock.pid), "Prism outlived the mock's supervisor").toEqual([]);
    expect(readdirSync(tmp)).toEqual([]);

    const second = await launch([process.execPath, 'scripts/start.mjs', '--no-build'], dataDir, { TMPDIR: tmp });
    await running(second);
    const again = pids(dataDir);
    process.kill(-second.child.pid!, 'SIGTERM');
    expect(await second.exited).toBe(0);
    await expectAllStopped(second, again);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('after the supervisor itself is killed, the next start stops what it left running and starts', async () => {
    const dataDir = tempDir('cls-e2e-orphans-');
    const tmp = tempDir('cls-e2e-orphans-tmp-');
    const first = await launch([process.execPath, 'scripts/start.mjs', '--no-build'], dataDir, { TMPDIR: tmp });
    await running(first);
    const orphans = pids(dataDir);
    process.kill(first.child.pid!, 'SIGKILL');
    await first.exited;
    // kill -9 leaves no chance to clean up: the servers run on, in their own process groups.
    expect(orphans.every((o) => alive(o.pid))).toBe(true);
    // And with no supervisor left, the mock killed too: its Prism runs on alone in the mock's group.
    const mock = orphans.find((o) => o.name === 'mock')!;
    process.kill(mock.pid, 'SIGKILL');
    while (alive(mock.pid)) await new Promise((r) => setTimeout(r, 50));
    expect(groupAlive(mock.pid)).toBe(true);

    const second = await launch([process.execPath, 'scripts/start.mjs', '--no-build'], dataDir, { TMPDIR: tmp });
    await running(second);
    expect(second.output()).toMatch(
      /Stopping the (reference server|docs site|mock) \(pid \d+\) that an earlier start left running/,
    );
    for (const o of orphans)
      expect(runningInGroup(o.pid).length > 0, `${o.name} (group ${o.pid}) left running`).toBe(false);
    // The earlier start's folder is gone: only this start's own is left while it runs.
    expect(readdirSync(tmp)).toHaveLength(1);
    const children = pids(dataDir);
    process.kill(-second.child.pid!, 'SIGINT');
    expect(await second.exited).toBe(0);
    await expectAllStopped(second, children);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
