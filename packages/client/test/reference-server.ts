// The reference server (apps/reference) run the way an integrator runs it: its CLI seeds a database in a temporary
// directory (`seed --json` prints the demo keys and client credentials) and serves it as a separate process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface DemoAccount {
  account_id: string;
  api_keys: Array<{ area: 'wms' | 'manager' | 'cam'; env: 'test' | 'live'; api_key: string }>;
  client_id: string;
  client_secret: string;
}

export interface ReferenceServer {
  baseUrl: string;
  accounts: DemoAccount[];
  close(): Promise<void>;
}

export const keyOf = (account: DemoAccount, area: 'wms' | 'manager' | 'cam', env: 'test' | 'live' = 'test') =>
  account.api_keys.find((k) => k.area === area && k.env === env)!.api_key;

const cli = join(dirname(createRequire(import.meta.url).resolve('@cls-api/reference/package.json')), 'dist', 'cli.js');

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Until the server answers or exits; the caller's hook limit is the safety net, not a guess at how fast it starts. */
async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the reference server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Seeds the demo data and serves it on a free loopback port; `env` adds to the server's environment. */
export async function startReference(env: Record<string, string> = {}): Promise<ReferenceServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cls-client-reference-'));
  const base = {
    ...process.env,
    DATABASE: join(dir, 'reference.db'),
    HOST: '127.0.0.1',
    JWT_SECRET: 'client-integration-secret-0123456789-abcdefghij',
    LOG_LEVEL: 'silent',
  };
  const seeded = spawnSync(process.execPath, [cli, 'seed', '--json'], { env: base, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seed failed: ${seeded.stderr}`);
  const { accounts } = JSON.parse(seeded.stdout) as { accounts: DemoAccount[] };
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [cli, 'serve'], {
    env: { ...base, PORT: String(port), ...env },
    stdio: 'ignore',
  });
  await waitForHealth(baseUrl, server);
  return {
    baseUrl,
    accounts,
    async close() {
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once('exit', r));
        server.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
