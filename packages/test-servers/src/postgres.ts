import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureDebianPackage, type Log, run } from './debian.js';
import { sparePort } from './ports.js';
import { type OwnGroup, type RunningServer, runCommand, startServer, stopProcessesIn } from './process.js';

const PG_ROOT = '/usr/lib/postgresql';
/** Debian 12's PostgreSQL: the binary checked for before installing the `postgresql` package. */
export const DEBIAN_POSTGRES = `${PG_ROOT}/15/bin/postgres`;
/** The superuser's password: the server asks for it over TCP, so a wrong one is a real authentication failure. */
export const POSTGRES_PASSWORD = 'cls-test-password';

/** The newest installed PostgreSQL's binaries, installing Debian's `postgresql` package first when none is. */
export async function ensurePostgres(log: Log): Promise<string> {
  const installed = () =>
    existsSync(PG_ROOT)
      ? readdirSync(PG_ROOT)
          .filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'postgres')))
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => join(PG_ROOT, v, 'bin'))[0]
      : undefined;
  const found = installed();
  if (found) return found;
  await ensureDebianPackage('postgresql', DEBIAN_POSTGRES, log);
  const bin = installed();
  if (!bin) throw new Error(`apt-get installed postgresql but no server binary is under ${PG_ROOT}`);
  return bin;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * A command as the unprivileged `postgres` user when this process is root (PostgreSQL refuses to run as root), else
 * as this user. `setpriv` replaces itself with the command, so a signal to the child reaches the server itself.
 */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return isRoot()
    ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]]
    : [command, args];
}

export interface RunningPostgres extends RunningServer {
  /** Its folder (the cluster's data, its socket), removed by `stop`. */
  dir: string;
  /**
   * Stops the server working on its folder now (the one it started, or one started again there by hand), then
   * removes the folder; resolves with the pids of the servers it stopped. `stop` is this, its answer dropped.
   */
  stopAll(): Promise<number[]>;
  /** `postgres://postgres:…@127.0.0.1:<port>/` followed by a database name. */
  urlOf(database: string): string;
  /** A new, empty database; its URL. */
  createDatabase(name: string): Promise<string>;
}

/**
 * A PostgreSQL server of its own: Debian's package (installed when missing), a cluster initialised in a temporary
 * directory, listening on a spare loopback port, with durability traded for speed (`fsync=off`: a test's data need
 * not survive the machine). Stopped with PostgreSQL's fast shutdown; the directory is removed.
 */
export async function startPostgres(
  log: Log = (l) => console.log(`[postgres] ${l}`),
  options: OwnGroup = {},
): Promise<RunningPostgres> {
  const bin = await ensurePostgres(log);
  const dir = mkdtempSync(join(tmpdir(), 'cls-postgres-'));
  // Whatever fails from here (initdb, the server, its readiness) leaves no folder behind.
  let server: RunningServer;
  let port: number;
  try {
    const data = join(dir, 'data');
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${POSTGRES_PASSWORD}\n`);
    if (isRoot()) await run('chown', ['-R', 'postgres:postgres', dir], () => undefined);
    chmodSync(dir, 0o700);
    const [initdb, initArgs] = asServerUser(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      `--pwfile=${pwfile}`,
      '--auth-host=scram-sha-256',
      '--auth-local=trust',
      '--encoding=UTF8',
      '--locale=C',
      // A throwaway cluster, removed when it stops and served with fsync=off below: waiting for initdb's files to
      // reach the disk took half of its time (2.5 of 5 s on an idle 2-core machine) and kept nothing it needs.
      '--no-sync',
    ]);
    // With `ownGroup` in a group of its own, as the server: a terminal's Ctrl-C to the program's group does not cut
    // initdb short; the program stops what it started itself.
    await runCommand(initdb, initArgs, options);
    port = await sparePort();
    const [postgres, args] = asServerUser(join(bin, 'postgres'), [
      '-D',
      data,
      '-k',
      dir,
      '-p',
      String(port),
      '-h',
      '127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=300',
    ]);
    server = await startServer('postgres', postgres, args, { port, log, ...options });
    // Listening is not yet accepting sessions ("the database system is starting up"): wait for pg_isready's yes, or
    // for the server to stop.
    for (;;) {
      if (server.process.exitCode !== null || server.process.signalCode !== null)
        throw new Error(`postgres exited while starting:\n${server.output()}`);
      try {
        await runCommand(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)], options);
        break;
      } catch {
        await sleep(100);
      }
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const urlOf = (database: string) => `postgres://postgres:${POSTGRES_PASSWORD}@127.0.0.1:${port}/${database}`;
  const stop = server.stop;
  const stopAll = async (): Promise<number[]> => {
    // SIGINT is PostgreSQL's fast shutdown: sessions end, the server exits.
    const stopped: number[] = [];
    if (server.process.exitCode === null && server.process.signalCode === null) {
      server.process.kill('SIGINT');
      stopped.push(server.process.pid!);
    }
    await stop();
    // A server restarted by hand on this folder runs there still: the folder is its data, not to be removed under it.
    stopped.push(...(await stopProcessesIn(dir, join(bin, 'postgres'), 'SIGINT')));
    rmSync(dir, { recursive: true, force: true });
    return stopped;
  };
  return Object.assign(server, {
    dir,
    urlOf,
    async createDatabase(name: string) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      const [psql, psqlArgs] = asServerUser(join(bin, 'psql'), [
        '-h',
        dir,
        '-p',
        String(port),
        '-U',
        'postgres',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        `CREATE DATABASE ${name}`,
      ]);
      await runCommand(psql, psqlArgs, options);
      return urlOf(name);
    },
    stopAll,
    async stop() {
      await stopAll();
    },
  });
}
