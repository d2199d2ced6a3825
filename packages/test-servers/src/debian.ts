// Servers and tools from Debian's packages, installed by the tests themselves when missing: the machines reach
// Debian's apt and the npm registry, nothing else, and a fresh one has only Node and npm.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export type Log = (line: string) => void;

/** A command that exited non-zero, with the last of what it printed. */
export class CommandFailed extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(message);
  }
}

/** Runs a command, relaying its output line by line to `log`; rejects with {@link CommandFailed} on a non-zero exit. */
export function run(command: string, args: string[], log: Log): Promise<void> {
  return new Promise((resolve, reject) => {
    log(`$ ${command} ${args.join(' ')}`);
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    let tail = '';
    const relay = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-4096);
      for (const line of text.split('\n')) if (line.trim()) log(`  ${line}`);
    };
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new CommandFailed(`${command} ${args.join(' ')} exited with ${code}`, tail)),
    );
  });
}

// What apt prints when another apt or dpkg holds its lock: on a fresh CI machine, suites of other packages (and
// commands the tests start, such as `cluster`) install what they need at the same time as this process.
const LOCK_HELD =
  /Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock directory|is another process using it/;

export interface InstallOptions {
  /** The apt-get to run (tests pass a stand-in); by default `apt-get` as root, else `sudo -n apt-get`. */
  aptGet?: string;
  /** How long to keep retrying while another process holds apt's lock; 15 minutes by default. */
  lockWaitMs?: number;
  /** The pause between tries while the lock is held; 2 s by default. */
  retryDelayMs?: number;
}

let updated: Promise<void> | undefined;
// One install at a time in this process: two suites asking at once must not run two apt-gets against one lock.
let installing: Promise<unknown> = Promise.resolve();

/** A Debian package and the file it installs that tells whether it is there. */
export type DebianPackage = readonly [name: string, binary: string];

/**
 * Returns `binary`, installing Debian's package `name` first when it is missing (as root, or through `sudo -n`).
 * `apt-get update` runs once per process, before the first install. While another process holds apt's lock, it
 * waits and tries again (and installs nothing if that process installed the binary meanwhile).
 */
export async function ensureDebianPackage(
  name: string,
  binary: string,
  log: Log,
  options: InstallOptions = {},
): Promise<string> {
  await ensureDebianPackages([[name, binary]], log, options);
  return binary;
}

/** Installs, in one apt-get call, each of `wanted` whose binary is missing; see {@link ensureDebianPackage}. */
export function ensureDebianPackages(
  wanted: readonly DebianPackage[],
  log: Log,
  options: InstallOptions = {},
): Promise<void> {
  const next = installing.then(async () => {
    const missing = () => wanted.filter(([, binary]) => !existsSync(binary));
    if (missing().length === 0) return;
    for (const [name, binary] of missing()) log(`${binary} is missing: installing Debian's ${name} package`);
    const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const runApt = (args: string[]) =>
      options.aptGet
        ? run(options.aptGet, args, log)
        : asRoot
          ? run('apt-get', args, log)
          : run('sudo', ['-n', 'apt-get', ...args], log);
    const giveUpAt = Date.now() + (options.lockWaitMs ?? 15 * 60_000);
    const apt = async (args: () => string[]): Promise<void> => {
      for (;;) {
        try {
          return await runApt(['-o', 'DPkg::Lock::Timeout=60', ...args()]);
        } catch (error) {
          const held = error instanceof CommandFailed && LOCK_HELD.test(error.output);
          if (!held || Date.now() >= giveUpAt) throw error;
          log(`apt's lock is held by another process: trying again`);
          await new Promise((r) => setTimeout(r, options.retryDelayMs ?? 2000));
          if (missing().length === 0) return; // that process installed them
        }
      }
    };
    if (options.aptGet) await apt(() => ['update']);
    else {
      updated ??= apt(() => ['update']).catch((error) => {
        updated = undefined; // a later install tries the update again
        throw error;
      });
      await updated;
    }
    if (missing().length === 0) return;
    await apt(() => ['install', '-y', '--no-install-recommends', ...missing().map(([name]) => name)]);
    for (const [name, binary] of wanted) {
      if (!existsSync(binary)) throw new Error(`apt-get installed ${name} but ${binary} does not exist`);
      log(`installed ${binary}`);
    }
  });
  installing = next.catch(() => undefined);
  return next;
}
