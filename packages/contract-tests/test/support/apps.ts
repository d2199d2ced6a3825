// The repository's own servers, driven through their public interfaces: the reference server through its CLI
// (`admin … --json` to provision, `serve --json` on an ephemeral port with a temporary SQLite file), the mock
// through `startMock`. Neither is a dependency of this package; the tests find them in the workspace.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const repoRoot = resolve(import.meta.dirname, '..', '..', '..', '..');
export const referenceDir = join(repoRoot, 'apps', 'reference');
export const mockDir = join(repoRoot, 'apps', 'mock');
export const referenceCli = join(referenceDir, 'dist', 'cli.js');
export const mockEntry = join(mockDir, 'dist', 'index.js');

/** Why an app cannot be used: absent from the workspace (skip), or present but not built (fail). */
export function appState(dir: string, entry: string): 'absent' | 'unbuilt' | 'ready' {
  if (!existsSync(join(dir, 'package.json'))) return 'absent';
  return existsSync(entry) ? 'ready' : 'unbuilt';
}

export interface ReferenceServer {
  url: string;
  database: string;
  keys: { primary: Record<string, string>; other: Record<string, string> };
  client: { id: string; secret: string };
  otherClient: { id: string; secret: string };
  admin: (args: string[]) => Record<string, unknown>;
  stop: () => Promise<void>;
}

export async function startReference(): Promise<ReferenceServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cls-reference-'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    DATABASE: join(dir, 'reference.db'),
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    // Idle connections stay open for the run: with the default 5 s a busy machine can leave the kit idle that long,
    // and a POST sent on a connection the server is just closing is an ECONNRESET (support/fake-server.ts).
    KEEP_ALIVE_TIMEOUT_MS: '600000',
  };
  const admin = (args: string[]): Record<string, unknown> => {
    const res = spawnSync(process.execPath, [referenceCli, 'admin', ...args, '--json'], { env, encoding: 'utf8' });
    if (res.status !== 0)
      throw new Error(`cls-reference admin ${args.join(' ')} failed (${res.status}): ${res.stderr}`);
    return JSON.parse(res.stdout) as Record<string, unknown>;
  };
  const seller = (name: string, areas: string[]) => {
    const account = String(admin(['account', 'create', '--name', name]).account_id);
    const keys: Record<string, string> = {};
    for (const area of areas)
      keys[area] = String(admin(['key', 'create', '--account', account, '--area', area, '--env', 'test']).api_key);
    return { account, keys };
  };
  const primary = seller('Contract kit seller', ['wms', 'manager', 'cam']);
  const other = seller('Contract kit other seller', ['wms', 'manager']);
  const client = admin(['client', 'create', '--account', primary.account]);
  const otherClient = admin(['client', 'create', '--account', other.account]);

  const child: ChildProcess = spawn(process.execPath, [referenceCli, 'serve', '--json'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    let err = '';
    // Until it prints its address or exits: the calling hook's limit is the safety net, not a guess at its speed.
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"base_url"'));
      if (line) {
        done(String((JSON.parse(line) as { base_url: string }).base_url));
      }
    });
    child.on('exit', (code) => fail(new Error(`the reference server exited (${code}): ${out}${err}`)));
  });
  return {
    url,
    database: env.DATABASE,
    keys: { primary: primary.keys, other: other.keys },
    client: { id: String(client.client_id), secret: String(client.client_secret) },
    otherClient: { id: String(otherClient.client_id), secret: String(otherClient.client_secret) },
    admin,
    stop: async () => {
      await new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface MockServer {
  url: string;
  close: () => Promise<void>;
}

export async function startMockServer(): Promise<MockServer> {
  const mod = (await import(pathToFileURL(mockEntry).href)) as {
    startMock: (options?: { port?: number }) => Promise<MockServer>;
  };
  return mod.startMock({ port: 0 });
}
