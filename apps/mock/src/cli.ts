#!/usr/bin/env node
// `pnpm mock`: the mock on port 4010 (PORT and HOST override) until Ctrl-C.
import { parseArgs } from 'node:util';
import { listenRefusal, loadSpec } from '@cls-api/spec';
import { Contract } from './contract.js';
import { curlFor, exampleRequest } from './requests.js';
import { startMock, type MockServer } from './index.js';

const DEFAULT_PORT = 4010;

const USAGE = `Usage: pnpm mock [--quiet]

Serves the contract's examples on http://127.0.0.1:4010 until Ctrl-C (apps/mock/README.md).

  --quiet      do not log each request
  -h, --help   show this help

Environment: PORT (default 4010), HOST (default 127.0.0.1).`;

let quiet = false;
try {
  const { values } = parseArgs({
    options: { quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  quiet = values.quiet === true;
} catch (err) {
  console.error(`${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}

function portFromEnv(): number {
  const raw = process.env.PORT;
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be an integer from 0 to 65535, got "${raw}"`);
    process.exit(2);
  }
  return port;
}

// Ctrl-C is handled from the first line: one that comes while Prism still loads the contract stops it and removes its
// files too, and the command exits 130 (it was interrupted before it served); once the mock serves, Ctrl-C is
// its ordinary end, exit 0.
let mock: MockServer | undefined;
let stopping: string | undefined;
const starting = new AbortController();
const stop = (signal: string) => {
  if (stopping) return;
  stopping = signal;
  if (!mock) {
    console.log(`\n${signal}: stopping the mock before it serves...`);
    starting.abort();
    return;
  }
  console.log(`\n${signal}: stopping the mock...`);
  mock.close().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));

const port = portFromEnv();
const doc = loadSpec();
console.log(`Starting the mock of ${doc.info.title} ${doc.info.version} (Prism)...`);
try {
  mock = await startMock({
    spec: doc,
    port,
    host: process.env.HOST || '127.0.0.1',
    signal: starting.signal,
    onPrismSpawn: (pid) => console.log(`Prism (process ${pid}) is loading the contract...`),
    ...(quiet ? {} : { onRequest: (line: string) => console.log(`  ${line}`) }),
  });
} catch (err) {
  if (!starting.signal.aborted) {
    const refused = listenRefusal(err, { port: 'PORT', host: 'HOST' });
    if (!refused) throw err;
    console.error(`The mock cannot start: ${refused}.`);
    process.exit(1);
  }
  console.log(`${stopping}: the mock was stopped before it served; Prism and its temporary files are gone.`);
  process.exit(130);
}

// The first operation the service itself describes (not a designed one) without path parameters.
const contract = new Contract(doc);
const first =
  contract.operations.find((op) => !op.provisional && op.method === 'get' && op.security.length > 0) ??
  contract.operations[0]!;
console.log(`Mock listening on ${mock.url}`);
console.log(`Try:  ${curlFor(mock.url, exampleRequest(doc, first))}`);
console.log(`Any documented scenario: add -H "Prefer: example=<name>" (see apps/mock/README.md). Ctrl-C stops.`);
