// Debian's Chromium for the browser tests (apps/docs, packages/client), installed by the test set-up itself when
// missing: the machines have no browser download but do have Debian's apt. Never `playwright install`: it downloads
// from a CDN.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

/** The flags a headless Chromium needs as root in a container on a small machine, with no network of its own. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function run(command: string, args: string[], log: (line: string) => void): Promise<void> {
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

/** Returns the Chromium binary, installing Debian's `chromium` package first when it is missing. */
export async function ensureChromium(
  log: (line: string) => void = (l) => console.log(`[chromium] ${l}`),
): Promise<string> {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  log(`${CHROMIUM} is missing: installing Debian's chromium package (a few minutes on a slow machine)`);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0 ? [] : ['sudo', '-n'];
  const apt = (args: string[]) =>
    asRoot.length ? run(asRoot[0]!, [...asRoot.slice(1), 'apt-get', ...args], log) : run('apt-get', args, log);
  await apt(['update']);
  await apt(['install', '-y', '--no-install-recommends', 'chromium']);
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} does not exist`);
  log(`installed ${CHROMIUM}`);
  return CHROMIUM;
}
