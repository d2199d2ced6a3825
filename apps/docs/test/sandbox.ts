// The local sandbox the guides send a reader to: the reference server's CLI seeds demo data into a database of its
// own (`seed --json` prints the demo keys and client credentials, as `pnpm start` does) and serves it as a separate
// process (`startReference` of @cls-api/test-servers). The environment a reader sets up in "Getting started"
// (spec/guides/getting-started.md) is made from it.
import { afterAll, beforeAll } from 'vitest';
import { startReference } from '@cls-api/test-servers';
import { SAMPLE_ENV } from '../src/samples.js';

export interface Sandbox {
  baseUrl: string;
  /** The variables of "Getting started", set to the demo seller's test credentials. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startSandbox(): Promise<Sandbox> {
  const reference = await startReference({
    from: import.meta.url,
    env: {
      // A reader sends one sample at a time; a runner sends them as fast as the machine allows, so the gateway's
      // per-second limits (spec/components/x-limits.yaml; the reference takes higher ones) must not depend on that.
      GATEWAY_RATE_PER_SECOND: '100000',
      GATEWAY_BURST: '100000',
      MCP_RATE_PER_SECOND: '100000',
      MCP_BURST: '100000',
    },
  });
  const seller = reference.accounts[0]!;
  const sampleEnv: Record<string, string> = {
    [SAMPLE_ENV.baseUrl]: reference.baseUrl,
    [SAMPLE_ENV.clientId]: seller.client_id,
    [SAMPLE_ENV.clientSecret]: seller.client_secret,
  };
  for (const key of seller.api_keys.filter((k) => k.env === 'test'))
    sampleEnv[SAMPLE_ENV.apiKey(key.area)] = key.api_key;
  return { baseUrl: reference.baseUrl, env: sampleEnv, stop: () => reference.close() };
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
