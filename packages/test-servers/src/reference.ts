// The reference server (apps/reference) run the way an integrator runs it: its CLI seeds the demo data into a database
// in a temporary folder (`seed --json` prints the demo accounts' keys and client credentials) and serves it as a
// separate process on a spare loopback port. The reference itself depends on this package (for `cluster`), so this
// package finds the reference's built CLI in the workspace instead of depending on it; a package whose tests use it
// lists `@cls-api/reference` among its own devDependencies, so that turbo builds the reference first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sparePort } from './ports.js';
import { startServer } from './process.js';

export type KeyArea = 'wms' | 'manager' | 'cam';

/** One demo account as `seed --json` prints it. */
export interface DemoAccount {
  account_id: string;
  api_keys: Array<{ area: KeyArea; env: 'test' | 'live'; api_key: string }>;
  client_id: string;
  client_secret: string;
}

export interface ReferenceServer {
  baseUrl: string;
  accounts: DemoAccount[];
  /** Stops the server and removes its database. */
  close(): Promise<void>;
}

/** The account's API key of one area and environment (test unless told). */
export const keyOf = (account: DemoAccount, area: KeyArea, env: 'test' | 'live' = 'test'): string => {
  const key = account.api_keys.find((k) => k.area === area && k.env === env);
  if (!key) throw new Error(`account ${account.account_id} has no ${env} key of the ${area} area`);
  return key.api_key;
};

/** The workspace's built `cls-reference` bin (this file is `packages/test-servers/dist/reference.js`). */
const cli = resolve(import.meta.dirname, '..', '..', '..', 'apps', 'reference', 'dist', 'cli.js');

/** Seeds the demo data and serves it; `env` adds to the environment of both (limits, timeouts, CORS origins). */
export async function startReference(options: { env?: Record<string, string> } = {}): Promise<ReferenceServer> {
  if (!existsSync(cli))
    throw new Error(`${cli} is missing: build the reference first (pnpm --filter @cls-api/reference build)`);
  const dir = mkdtempSync(join(tmpdir(), 'cls-reference-'));
  const env = {
    ...process.env,
    DATABASE: join(dir, 'reference.db'),
    HOST: '127.0.0.1',
    JWT_SECRET: 'reference-under-test-secret-0123456789-abcdefghij',
    LOG_LEVEL: 'silent',
    ...options.env,
  };
  try {
    const seeded = spawnSync(process.execPath, [cli, 'seed', '--json'], { env, encoding: 'utf8' });
    if (seeded.status !== 0) throw new Error(`cls-reference seed failed (${seeded.status}): ${seeded.stderr}`);
    const { accounts } = JSON.parse(seeded.stdout) as { accounts: DemoAccount[] };
    const port = await sparePort();
    const server = await startServer('the reference server', process.execPath, [cli, 'serve'], {
      port,
      env: { ...env, PORT: String(port) },
      log: () => undefined,
    });
    return {
      baseUrl: `http://127.0.0.1:${port}`,
      accounts,
      async close() {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
