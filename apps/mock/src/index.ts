// The mock of the Commerce and Logistics Service API v3: Prism serving the bundled contract (engine.ts), behind a
// small front server that keeps every answer inside the contract: what it refuses itself (refusals.ts), how a request
// goes through (handler.ts), how Prism's answer is shaped (shape.ts), and its HTTP listener (listener.ts).
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadSpec, type OpenApiDocument } from '@cls-api/spec';
import { Contract } from './contract.js';
import { Engine } from './engine.js';
import { createHandler } from './handler.js';
import { createListener, displayHost, listen, TIMEOUTS } from './listener.js';
import { SandboxHelpers } from './sandbox.js';
import type { PrismOptions } from './prism.js';

export interface MockOptions {
  /** Port to listen on; 0 (the default) takes a free one. The `pnpm mock` command uses 4010. */
  port?: number;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** The contract to serve; default the bundle of `@cls-api/spec`. */
  spec?: OpenApiDocument;
  /** Receives one line per request (`GET /v3/manager/orders -> 200 first_page`). */
  onRequest?: (line: string) => void;
  /** Receives Prism's own log output. */
  onPrismOutput?: (line: string) => void;
  /** How long Prism may take to start; default 600 s (a guard against a hang: an exit is seen at once). */
  startupTimeoutMs?: number;
  /** Stops the start (Prism included, nothing left behind); the start then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Told the process id of Prism as soon as it is spawned, before it listens. */
  onPrismSpawn?: (pid: number) => void;
  /** Shorter slow-client timeouts than `TIMEOUTS` (tests). */
  timeouts?: { headersMs: number; requestMs: number };
}

export interface MockServer {
  /** Base address without a trailing slash, e.g. `http://127.0.0.1:4010`. Paths start with `/v3/`. */
  url: string;
  port: number;
  /** The process id of the Prism engine now serving, undefined while it restarts. */
  readonly enginePid: number | undefined;
  /** How often the engine was restarted after it died. */
  readonly engineRestarts: number;
  /** Stops the front server and Prism. */
  close(): Promise<void>;
}

export { Contract, MAX_BODY_BYTES, RESPONSE_HEADERS_EXTENSION, ERROR_ROLES, type Scenario } from './contract.js';
export { checkingIntervalMs, TIMEOUTS } from './listener.js';
export { SANDBOX_PREFIX, SandboxHelpers } from './sandbox.js';
export { curlFor, exampleRequest, type ExampleRequest } from './requests.js';

/**
 * Starts the mock and resolves once it answers requests.
 *
 * @example
 * const mock = await startMock({ port: 4010 });
 * const res = await fetch(`${mock.url}/v3/manager/orders?page=1&size=10`, { headers: { 'X-API-Key': 'manager_test_mock' } });
 * await mock.close();
 */
export async function startMock(options: MockOptions = {}): Promise<MockServer> {
  const doc = options.spec ?? loadSpec();
  const contract = new Contract(doc);
  const prismOptions: PrismOptions = {};
  if (options.startupTimeoutMs !== undefined) prismOptions.startupTimeoutMs = options.startupTimeoutMs;
  if (options.onPrismOutput) prismOptions.onOutput = options.onPrismOutput;
  if (options.signal) prismOptions.signal = options.signal;
  if (options.onPrismSpawn) prismOptions.onSpawn = options.onPrismSpawn;
  const engine = new Engine(doc, prismOptions, (line) => options.onPrismOutput?.(line));
  await engine.start();
  const agent = new Agent({ keepAlive: true });
  const sandbox = new SandboxHelpers(contract);
  const handle = createHandler({ contract, engine, agent, onRequest: options.onRequest, sandbox });
  const server = createListener(contract, options.timeouts ?? TIMEOUTS, handle);
  const host = options.host ?? '127.0.0.1';
  try {
    await listen(server, options.port ?? 0, host);
    options.signal?.throwIfAborted();
  } catch (err) {
    server.close();
    agent.destroy();
    await engine.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${displayHost(host)}:${port}`,
    port,
    get enginePid() {
      return engine.pid;
    },
    get engineRestarts() {
      return engine.restarts;
    },
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        agent.destroy();
        await engine.close();
      })();
      return closing;
    },
  };
}
