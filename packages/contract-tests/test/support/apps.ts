// The repository's own servers, driven through their public interfaces: the reference server through its CLI
// (`admin … --json` to provision, `serve --json` on an ephemeral port with a temporary SQLite file), the mock
// through `startMock`. Both are devDependencies of this package, reached only through their exports.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Upstream } from './fault-proxy.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);

/** Where an export of a package lies, or undefined when it does not resolve (the package absent or not built). */
function located(specifier: string): string | undefined {
  try {
    const file = require.resolve(specifier);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** The reference server's CLI (`cls-reference`), exported as `@cls-api/reference/cli`. */
export const referenceCli = '@cls-api/reference/cli';
/** The mock's entry (`startMock`), exported as `@cls-api/mock`. */
export const mockEntry = '@cls-api/mock';

/** Why an app cannot be used: not installed beside this package (skip), or installed but not built (fail). */
export function appState(specifier: string): 'absent' | 'unbuilt' | 'ready' {
  const name = specifier.split('/').slice(0, 2).join('/');
  if (located(`${name}/package.json`) === undefined) return 'absent';
  return located(specifier) === undefined ? 'unbuilt' : 'ready';
}

/** The file of `specifier`'s export, for a command line: it must be built (appState is 'ready'). */
function fileOf(specifier: string): string {
  const file = located(specifier);
  if (file === undefined) throw new Error(`${specifier} does not resolve: build it first`);
  return file;
}

export interface ReferenceServer {
  url: string;
  database: string;
  keys: { primary: Record<string, string>; other: Record<string, string> };
  accounts: { primary: string; other: string };
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
    // and a POST sent on a connection the server is just closing is an ECONNRESET the kit rightly does not repeat.
    KEEP_ALIVE_TIMEOUT_MS: '600000',
  };
  const cli = fileOf(referenceCli);
  const admin = (args: string[]): Record<string, unknown> => {
    const res = spawnSync(process.execPath, [cli, 'admin', ...args, '--json'], { env, encoding: 'utf8' });
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

  const child: ChildProcess = spawn(process.execPath, [cli, 'serve', '--json'], {
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
    accounts: { primary: primary.account, other: other.account },
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

/** The kit's credentials for a reference server: both sellers' keys and client credentials. */
export function sellersOf(server: ReferenceServer) {
  return {
    baseUrl: server.url,
    apiKeys: Object.values(server.keys.primary),
    otherApiKeys: Object.values(server.keys.other),
    clientId: server.client.id,
    clientSecret: server.client.secret,
    otherClientId: server.otherClient.id,
    otherClientSecret: server.otherClient.secret,
  };
}

/** The reference server as the fault proxy reaches it: both sellers' accounts, test keys and clients. */
export function upstreamOf(server: ReferenceServer): Upstream {
  const seller = (who: 'primary' | 'other') => ({
    account: server.accounts[who],
    keys: { test: server.keys[who] },
    clients: { test: who === 'primary' ? server.client : server.otherClient },
  });
  return { url: server.url, sellers: { primary: seller('primary'), other: seller('other') } };
}

export interface MockServer {
  url: string;
  close: () => Promise<void>;
}

export async function startMockServer(): Promise<MockServer> {
  const { startMock } = await import('@cls-api/mock');
  return startMock({ port: 0 });
}
