// The reference server (apps/reference) run the way an integrator runs it: its CLI seeds the demo data into a database
// in a temporary folder (`seed --json` prints the demo accounts' keys and client credentials) and serves it as a
// separate process on a spare loopback port. The reference depends on this package for its development command
// (`cluster`), so this package does not depend on the reference: the CLI is resolved through the reference's exports
// (`@cls-api/reference/cli`) from the caller's module, whose package lists `@cls-api/reference` among its
// devDependencies (which also makes turbo build the reference first).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sparePort } from './ports.js';
import { type RunningServer, startServer } from './process.js';

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
  /** Its process (for a test that signals it: `HeldClock`) and what it printed. */
  server: Pick<RunningServer, 'process' | 'output'>;
  /** Stops the server and removes its database. */
  close(): Promise<void>;
}

/** The account's API key of one area and environment (test unless told). */
export const keyOf = (account: DemoAccount, area: KeyArea, env: 'test' | 'live' = 'test'): string => {
  const key = account.api_keys.find((k) => k.area === area && k.env === env);
  if (!key) throw new Error(`account ${account.account_id} has no ${env} key of the ${area} area`);
  return key.api_key;
};

export interface ReferenceOptions {
  /** The caller's `import.meta.url`: `@cls-api/reference/cli` is resolved from there. */
  from: string;
  /** Added to the environment of both commands (limits, timeouts, CORS origins). */
  env?: Record<string, string>;
}

/** Seeds the demo data and serves it. */
export async function startReference(options: ReferenceOptions): Promise<ReferenceServer> {
  const cli = createRequire(options.from).resolve('@cls-api/reference/cli');
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
      server,
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
