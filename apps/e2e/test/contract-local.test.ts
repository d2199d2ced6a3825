// `pnpm contract:local` runs the contract-test kit against this checkout's demo server with the demo credentials its
// first start kept: the first demo seller under test, the second for the isolation checks, on the server's address.
import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractLocal, type Running, referenceCli, root, startProcess, tempDir } from './support.js';

const script = resolve(root, 'scripts', 'contract-local.mjs');
const { demoEnvironment, localBaseUrl } = (await import(pathToFileURL(script).href)) as {
  demoEnvironment: (demo: unknown) => Record<string, string> | undefined;
  localBaseUrl: (env: Record<string, string | undefined>) => string;
};

describe('pnpm contract:local', () => {
  const dataDir = tempDir('cls-contract-local-');
  const env = { DATA_DIR: dataDir, DATABASE: join(dataDir, 'reference.db') };
  let server: Running | undefined;

  beforeAll(async () => {
    server = await startProcess([referenceCli, 'serve', '--demo'], env, '/health');
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the kit against the demo server with both demo sellers, and passes', async () => {
    const { code, output } = await contractLocal(['--operation', 'listManagerOrders', '--max-requests', '60'], {
      ...env,
      PORT: String(server!.port),
      HOST: '127.0.0.1',
    });
    expect(code, output).toBe(0);
    // Both sellers' keys reached the server: the kit reports each one's quota as the service counted it.
    expect(output).toMatch(/primary seller: \d+ of 1000 left this month/);
    expect(output).toMatch(/other seller: \d+ of 1000 left this month/);
    expect(output).toMatch(/\d+ passed, 0 failed/);
  });

  it('takes the first demo seller as the account under test and the second as the other', () => {
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-keys.json'), 'utf8')) as {
      accounts: Array<{ api_keys: Array<{ env: string; api_key: string }>; clients: Array<Record<string, string>> }>;
    };
    const [first, second] = demo.accounts;
    const testKeys = (a: typeof first) =>
      a!.api_keys
        .filter((k) => k.env === 'test')
        .map((k) => k.api_key)
        .join(',');
    const client = (a: typeof first) => a!.clients.find((c) => c.env === 'test')!;
    expect(demoEnvironment(demo)).toEqual({
      CLS_API_KEYS: testKeys(first),
      CLS_CLIENT_ID: client(first).client_id,
      CLS_CLIENT_SECRET: client(first).client_secret,
      CLS_OTHER_API_KEYS: testKeys(second),
      CLS_OTHER_CLIENT_ID: client(second).client_id,
      CLS_OTHER_CLIENT_SECRET: client(second).client_secret,
    });
    // The demo's live keys stay out of a run that writes.
    expect(demoEnvironment(demo)!.CLS_API_KEYS).not.toMatch(/_live_/);
  });

  it('listens where pnpm start and pnpm reference serve do', () => {
    expect(localBaseUrl({})).toBe('http://127.0.0.1:3000');
    expect(localBaseUrl({ PORT: '4100', HOST: '0.0.0.0' })).toBe('http://127.0.0.1:4100');
    expect(localBaseUrl({ PORT: '4100', HOST: '::1' })).toBe('http://[::1]:4100');
  });

  it('says to start the demo server first when no demo credentials are kept, exit 2', async () => {
    const empty = tempDir('cls-contract-local-empty-');
    try {
      const { code, output } = await contractLocal([], { DATA_DIR: empty, DATABASE: join(empty, 'reference.db') });
      expect(code).toBe(2);
      expect(output).toContain(`no demo credentials in ${join(empty, 'demo-keys.json')}`);
      expect(output).toContain('pnpm start');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
