import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureDebianPackage, type Log, run } from './debian.js';
import { sparePort } from './ports.js';
import { type RunningServer, startServer } from './process.js';

const run$ = promisify(execFile);
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
export async function startPostgres(log: Log = (l) => console.log(`[postgres] ${l}`)): Promise<RunningPostgres> {
  const bin = await ensurePostgres(log);
  const dir = mkdtempSync(join(tmpdir(), 'cls-postgres-'));
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
  ]);
  await run$(initdb, initArgs);
  const port = await sparePort();
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
  let server: RunningServer;
  try {
    server = await startServer('postgres', postgres, args, { port, log });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  // Listening is not yet accepting sessions ("the database system is starting up"): wait for pg_isready's yes, or
  // for the server to stop.
  for (;;) {
    if (server.process.exitCode !== null || server.process.signalCode !== null)
      throw new Error(`postgres exited while starting:\n${server.output()}`);
    try {
      await run$(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]);
      break;
    } catch {
      await sleep(100);
    }
  }
  const urlOf = (database: string) => `postgres://postgres:${POSTGRES_PASSWORD}@127.0.0.1:${port}/${database}`;
  const stop = server.stop;
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
      await run$(psql, psqlArgs);
      return urlOf(name);
    },
    async stop() {
      // SIGINT is PostgreSQL's fast shutdown: sessions end, the server exits.
      server.process.kill('SIGINT');
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
