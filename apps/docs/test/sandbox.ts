// The local sandbox the guides send a reader to: the reference server's CLI seeds demo data into a database of its
// own (`seed --json` prints the demo keys and client credentials, as `pnpm start` does) and serves it as a separate
// process. The environment a reader sets up in "Getting started" (spec/guides/getting-started.md) is made from it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { SAMPLE_ENV } from '../src/samples.js';

interface DemoAccount {
  api_keys: Array<{ area: string; env: 'test' | 'live'; api_key: string }>;
  client_id: string;
  client_secret: string;
}

export interface Sandbox {
  baseUrl: string;
  /** The variables of "Getting started", set to the demo seller's test credentials. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

const cli = join(dirname(createRequire(import.meta.url).resolve('@cls-api/reference/package.json')), 'dist', 'cli.js');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  // Bounded by attempts, not by the clock: a slow machine only makes each attempt wait longer.
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`the reference server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the reference server never answered /health');
}

export async function startSandbox(): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'cls-docs-sandbox-'));
  const env = {
    ...process.env,
    DATABASE: join(dir, 'reference.db'),
    HOST: '127.0.0.1',
    JWT_SECRET: 'docs-samples-secret-0123456789-abcdefghijkl',
    LOG_LEVEL: 'silent',
    // A reader sends one sample at a time; a runner sends them as fast as the machine allows, so the gateway's
    // per-second limits (spec/components/x-limits.yaml; the reference takes higher ones) must not depend on that.
    GATEWAY_RATE_PER_SECOND: '100000',
    GATEWAY_BURST: '100000',
    MCP_RATE_PER_SECOND: '100000',
    MCP_BURST: '100000',
  };
  const seeded = spawnSync(process.execPath, [cli, 'seed', '--json'], { env, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seed failed: ${seeded.stderr}`);
  const seller = (JSON.parse(seeded.stdout) as { accounts: DemoAccount[] }).accounts[0]!;
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [cli, 'serve'], { env: { ...env, PORT: String(port) }, stdio: 'ignore' });
  await waitForHealth(baseUrl, server);
  const sampleEnv: Record<string, string> = {
    [SAMPLE_ENV.baseUrl]: baseUrl,
    [SAMPLE_ENV.clientId]: seller.client_id,
    [SAMPLE_ENV.clientSecret]: seller.client_secret,
  };
  for (const key of seller.api_keys.filter((k) => k.env === 'test'))
    sampleEnv[SAMPLE_ENV.apiKey(key.area)] = key.api_key;
  return {
    baseUrl,
    env: sampleEnv,
    async stop() {
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once('exit', r));
        server.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The sandbox of one test file: started before its tests, stopped after them. Call it at the top of the file; the
 * function it returns gives the running sandbox.
 */
export function useSandbox(): () => Sandbox {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox();
  }, 120_000);
  afterAll(async () => {
    await sandbox?.stop();
  });
  return () => {
    if (!sandbox) throw new Error('the sandbox is not running: useSandbox() starts it before the tests');
    return sandbox;
  };
}
