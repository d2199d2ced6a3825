// A PostgreSQL server of the test run's own, from Debian's package: installed by the set-up itself when missing (the
// machines have apt but no other download, as for Chromium in packages/chromium), initialised in a temporary
// directory, listening on a spare loopback port, run as an unprivileged user when the tests run as root (PostgreSQL
// refuses root), and stopped and removed after the run. Started once per run by test/global-setup.ts.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const PG_ROOT = '/usr/lib/postgresql';
/** The superuser's password: the server asks for it over TCP, so a wrong one is a real authentication failure. */
export const PG_PASSWORD = 'cls-test-password';

function binDir(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(PG_ROOT, versions[0], 'bin');
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** The PostgreSQL server binaries, installing Debian's `postgresql` package first when they are missing. */
export function ensurePostgres(log: (line: string) => void = (l) => console.log(`[postgres] ${l}`)): string {
  const found = binDir();
  if (found) return found;
  log("PostgreSQL is missing: installing Debian's postgresql package");
  const sudo = isRoot() ? [] : ['sudo', '-n'];
  const apt = (args: string[]) => {
    const [command, ...rest] = [...sudo, 'apt-get', ...args];
    execFileSync(command!, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  apt(['update']);
  apt(['install', '-y', '--no-install-recommends', 'postgresql']);
  const installed = binDir();
  if (!installed) throw new Error(`apt-get installed postgresql but no server binary is under ${PG_ROOT}`);
  return installed;
}

function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Runs a command as the unprivileged `postgres` user when this process is root, else as this user. `setpriv` execs
 * the command in its own process, so a signal to the child reaches the server itself.
 */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return isRoot()
    ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]]
    : [command, args];
}

export interface PgServer {
  /** `postgres://postgres:…@127.0.0.1:<port>/` plus a database name gives a database's URL. */
  urlOf(database: string): string;
  /** A new, empty database; its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startPgServer(): Promise<PgServer> {
  const bin = ensurePostgres();
  const dir = mkdtempSync(join(tmpdir(), 'cls-postgres-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`);
  if (isRoot()) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
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
  execFileSync(initdb, initArgs, { stdio: 'pipe' });
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
  const child: ChildProcess = spawn(postgres, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  });
  const urlOf = (database: string) => `postgres://postgres:${PG_PASSWORD}@127.0.0.1:${port}/${database}`;

  // Ready when a connection succeeds; the server's own exit ends the wait at once.
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`postgres exited while starting:\n${output}`);
    const client = new pg.Client({ connectionString: urlOf('postgres') });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  return {
    urlOf,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: urlOf('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
      return urlOf(name);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        // SIGINT: PostgreSQL's fast shutdown (ends sessions, then exits).
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
