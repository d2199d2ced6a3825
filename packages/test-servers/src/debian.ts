// Servers and tools from Debian's packages, installed by the tests themselves when missing: the machines reach
// Debian's apt and the npm registry, nothing else, and a fresh one has only Node and npm.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export type Log = (line: string) => void;

/** Runs a command, relaying its output line by line to `log`; rejects on a non-zero exit. */
export function run(command: string, args: string[], log: Log): Promise<void> {
  return new Promise((resolve, reject) => {
    log(`$ ${command} ${args.join(' ')}`);
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    const relay = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) log(`  ${line}`);
    };
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

let updated: Promise<void> | undefined;
// One install at a time in this process: two suites asking at once must not run two apt-gets against one lock.
let installing: Promise<unknown> = Promise.resolve();

/**
 * Returns `binary`, installing Debian's package `name` first when it is missing (as root, or through `sudo -n`).
 * `apt-get update` runs once per process, before the first install.
 */
export function ensureDebianPackage(name: string, binary: string, log: Log): Promise<string> {
  const next = installing.then(async () => {
    if (existsSync(binary)) return binary;
    log(`${binary} is missing: installing Debian's ${name} package`);
    const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const apt = (args: string[]) => (asRoot ? run('apt-get', args, log) : run('sudo', ['-n', 'apt-get', ...args], log));
    updated ??= apt(['update']);
    await updated;
    await apt(['install', '-y', '--no-install-recommends', name]);
    if (!existsSync(binary)) throw new Error(`apt-get installed ${name} but ${binary} does not exist`);
    log(`installed ${binary}`);
    return binary;
  });
  installing = next.catch(() => undefined);
  return next;
}
