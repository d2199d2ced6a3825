#!/usr/bin/env node
// `pnpm start`: the main job. Builds what it runs through turbo, then starts together the reference server with
// demo data, the docs site and the mock, prints each URL and a working `curl` line, and stops them all on Ctrl-C.
//
//   PORT (3000) and DATABASE (./data/reference.db): the reference server, as for `pnpm reference serve`
//   DOCS_PORT (8080), MOCK_PORT (4010)
//
// The demo data is loaded once, into an empty database. API keys are stored only as hashes, so the demo keys
// printed by that first load are kept beside the database in demo-keys.json (local, git-ignored) to be shown
// again on later starts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', REDOCLY_TELEMETRY: 'off', DO_NOT_TRACK: '1' };
const ports = {
  reference: Number(process.env.PORT ?? 3000),
  docs: Number(process.env.DOCS_PORT ?? 8080),
  mock: Number(process.env.MOCK_PORT ?? 4010),
};
const database = resolve(root, process.env.DATABASE ?? './data/reference.db');
const demoKeysFile = resolve(dirname(database), 'demo-keys.json');
const cli = resolve(root, 'apps/reference/dist/cli.js');

function step(message) {
  console.log(`\n▶ ${message}`);
}

step('Building the contract, the reference server, the docs site and the mock (turbo; cached after the first run)');
const build = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', 'build', '--filter=@cls-api/reference', '--filter=@cls-api/docs', '--filter=@cls-api/mock'],
  { cwd: root, stdio: 'inherit', env },
);
if (build.status !== 0) {
  console.error('\nThe build failed; see the output above.');
  process.exit(build.status ?? 1);
}

const referenceEnv = { ...env, DATABASE: database, PORT: String(ports.reference), HOST: process.env.HOST ?? '127.0.0.1' };
if (!existsSync(database)) {
  step(`Loading the demo data into ${database}`);
  mkdirSync(dirname(database), { recursive: true });
  const seeded = spawnSync(process.execPath, [cli, 'seed', '--json'], { cwd: root, env: referenceEnv, encoding: 'utf8' });
  if (seeded.status !== 0) {
    console.error(seeded.stderr);
    process.exit(seeded.status ?? 1);
  }
  writeFileSync(demoKeysFile, seeded.stdout, { mode: 0o600 });
}
const demo = existsSync(demoKeysFile) ? JSON.parse(readFileSync(demoKeysFile, 'utf8')) : null;

const stops = [];
let stopping = false;
async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping…');
  await Promise.allSettled(stops.map((stop) => stop()));
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  step('Starting the reference server');
  const reference = spawn(process.execPath, [cli, 'serve'], { cwd: root, env: referenceEnv, stdio: ['ignore', 'ignore', 'inherit'] });
  stops.push(
    () =>
      new Promise((done) => {
        if (reference.exitCode !== null) return done();
        reference.once('exit', done);
        reference.kill('SIGTERM');
      }),
  );
  reference.once('exit', (code) => {
    if (!stopping) {
      console.error(`The reference server exited (${code}).`);
      void stopAll(1);
    }
  });
  const referenceUrl = `http://127.0.0.1:${ports.reference}`;
  await waitFor(`${referenceUrl}/health`, 'the reference server');

  step('Starting the docs site and the mock');
  const { startDocs } = await import(pathToFileURL(resolve(root, 'apps/docs/dist/lib/index.js')).href);
  const { startMock } = await import(pathToFileURL(resolve(root, 'apps/mock/dist/index.js')).href);
  const docs = await startDocs({ port: ports.docs });
  stops.push(() => docs.close());
  const mock = await startMock({ port: ports.mock });
  stops.push(() => mock.close());

  const managerKey = demo?.accounts?.[0]?.api_keys?.find((k) => k.area === 'manager' && k.env === 'test')?.api_key;
  console.log(`
Running (Ctrl-C stops everything):
  Reference server  ${referenceUrl}   (database ${database})
  Docs site         ${docs.url}
  Mock              ${mock.url}

Try:
${
  managerKey
    ? `  curl -sS "${referenceUrl}/v3/manager/orders?page=1&size=10" -H "X-API-Key: ${managerKey}"`
    : `  (no demo keys are known for ${database}: create one with pnpm reference admin key create …)`
}
  curl -sS "${mock.url}/v3/manager/orders?page=1&size=10" -H "X-API-Key: manager_test_mock"
  curl -sS "${mock.url}/v3/manager/orders" -H "X-API-Key: manager_test_mock" -H "Prefer: example=monthly_quota_exhausted" -i
${demo ? `\nDemo keys and client credentials: ${demoKeysFile}` : ''}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  await stopAll(1);
}

async function waitFor(url, what) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not answer ${url} within 60 s`);
}
