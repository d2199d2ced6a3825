// Starting the servers under test, each in a child process of its own, on loopback ports chosen by the system.
import { execFile, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServerProcess, track, trackStop } from '../processes.js';
import type { Ready } from './announce.js';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export interface RunningServer {
  label: string;
  url: string;
  process: ServerProcess;
  close(): Promise<void>;
}

interface ForkOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  execArgv?: string[];
}

/** Forks one of this package's server entries and waits for its address. */
async function forkServer(
  entry: string,
  args: string[],
  label: string,
  timeoutMs: number,
  options: ForkOptions = {},
): Promise<RunningServer> {
  const child = fork(join(here, entry), args, {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    execArgv: options.execArgv ?? [],
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const server = track(new ServerProcess(child, label));
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr.push(chunk.toString('utf8'));
    if (stderr.length > 50) stderr.shift();
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${label} did not start within ${timeoutMs} ms`)), timeoutMs);
      child.once('message', (message: Ready) => {
        clearTimeout(timer);
        resolve(message.url);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${label} exited (${code}) before it was ready:\n${stderr.join('')}`));
      });
    });
    server.refreshTree();
    return { label, url, process: server, close: () => server.stop() };
  } catch (err) {
    await server.stop(1_000);
    throw err;
  }
}

/** The bare Fastify ceiling, answering `path` with exactly `body`. */
export async function startBare(path: string, body: Buffer, contentType: string): Promise<RunningServer> {
  const dir = await mkdtemp(join(tmpdir(), 'cls-bench-bare-'));
  const removeDir = trackStop(() => rm(dir, { recursive: true, force: true }));
  try {
    const bodyFile = join(dir, 'body');
    await writeFile(bodyFile, body);
    const server = await forkServer('bare.js', [path, bodyFile, contentType], 'bare Fastify', 30_000);
    return {
      ...server,
      async close() {
        await server.close();
        await removeDir();
      },
    };
  } catch (err) {
    await removeDir();
    throw err;
  }
}

/**
 * The floor of the reference's GET (`servers/floor.ts`): Fastify and the reference's own page read on `database`,
 * for the live orders of `accountId`, and nothing else.
 */
export function startFloor(
  path: string,
  database: string,
  accountId: string,
  label: string,
  nodeArgs: string[] = [],
): Promise<RunningServer> {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), DATABASE: database };
  return forkServer('floor.js', [path, accountId], label, 60_000, { env, execArgv: nodeArgs });
}

/** The Prism mock of `@cls-api/mock` (front server and Prism). Prism takes seconds to load the contract. */
export function startPrismMock(): Promise<RunningServer> {
  return forkServer('mock.js', [], 'Prism mock', 180_000);
}

export interface DemoKey {
  area: string;
  env: string;
  api_key: string;
}

export interface DemoAccount {
  account_id: string;
  name: string;
  paid: boolean;
  api_keys: DemoKey[];
  product_codes?: string[];
}

export interface ReferenceServer extends RunningServer {
  /** The demo account the keys belong to: paid, so that its live keys are accepted. */
  account: DemoAccount;
  /** A live key of the paid demo account for `area`: quota counting runs on every call and never refuses one. */
  liveKey(area: 'wms' | 'manager'): string;
  env: Record<string, string>;
}

export interface ReferenceOptions {
  /** Extra node options for the server process, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** Extra environment for the server process. */
  env?: Record<string, string>;
  /** Its name in the log and the report (default `reference`). */
  label?: string;
}

/** The reference server's command line entry (the `cls-reference` bin, exported as `@cls-api/reference/cli`). */
export function referenceCli(): string {
  return require.resolve('@cls-api/reference/cli');
}

function runReferenceCli(cli: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { env, cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`cls-reference ${args.join(' ')} failed: ${err.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/**
 * The environment the reference runs with in every scenario: production's (NODE_ENV=production, a fixed JWT secret),
 * with the gateway limit raised so that a load test from one address is not throttled (the limiter still runs on
 * every request), strict-contract response checking off (a test-only mode), and request logging off (LOG_LEVEL=warn).
 * Of the bench's own environment, only DB_CONNECT_TIMEOUT_MS is passed on.
 */
export function referenceEnv(): Record<string, string> {
  // How long a PostgreSQL connection may take to open: the reference's own default, unless the bench's environment
  // says otherwise (DB_CONNECT_TIMEOUT_MS: a database far away, or this package's tests on a machine whose cores
  // other suites share).
  const connectTimeout = process.env.DB_CONNECT_TIMEOUT_MS;
  return {
    ...(connectTimeout ? { DB_CONNECT_TIMEOUT_MS: connectTimeout } : {}),
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'warn',
    STRICT_CONTRACT: '0',
    GATEWAY_RATE_PER_SECOND: '1000000000',
    GATEWAY_BURST: '1000000000',
  };
}

/** A live key of a paid demo account for `area`: quota counting runs on every call and never refuses one. */
export function liveKeyOf(account: DemoAccount, area: 'wms' | 'manager'): string {
  const key = account.api_keys.find((k) => k.area === area && k.env === 'live');
  if (!key) throw new Error(`the demo account has no live ${area} key`);
  return key.api_key;
}

/**
 * Loads the demo data set into the (empty) database of `env.DATABASE` with `cls-reference seed`, in a process of its
 * own so that a server's memory is only the server's, and returns the paid account with live keys.
 */
export async function seedDemo(env: Record<string, string>, cwd: string): Promise<DemoAccount> {
  const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env };
  const seeded = JSON.parse(await runReferenceCli(referenceCli(), ['seed', '--json'], childEnv, cwd)) as {
    accounts: DemoAccount[];
  };
  const account = seeded.accounts.find((a) => a.paid && a.api_keys.some((k) => k.env === 'live'));
  if (!account) throw new Error('the demo data set has no paid account with live keys');
  return account;
}

/**
 * The reference server as partners run it (`cls-reference serve`, in `servers/reference.ts`), by default on a SQLite
 * file in a fresh temporary directory (`options.env.DATABASE` names another database), loaded with the demo data set
 * first (`seedDemo`), configured by `referenceEnv()`.
 */
export async function startReference(options: ReferenceOptions = {}): Promise<ReferenceServer> {
  const dir = await mkdtemp(join(tmpdir(), 'cls-bench-ref-'));
  // Removed by `close`, or by `stopAll` when the run is interrupted.
  const removeDir = trackStop(() => rm(dir, { recursive: true, force: true }));
  const env: Record<string, string> = {
    ...referenceEnv(),
    DATABASE: join(dir, 'reference.db'),
    ...options.env,
  };
  const childEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...env };
  try {
    const account = await seedDemo(env, dir);
    const server = await forkServer('reference.js', [], options.label ?? 'reference', 60_000, {
      env: childEnv,
      cwd: dir,
      execArgv: options.nodeArgs ?? [],
    });
    return {
      ...server,
      account,
      env,
      liveKey: (area) => liveKeyOf(account, area),
      async close() {
        await server.close();
        await removeDir();
      },
    };
  } catch (err) {
    await removeDir();
    throw err;
  }
}
