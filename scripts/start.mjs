#!/usr/bin/env node
// `pnpm start`: the main job. Builds what it runs through turbo, then starts the reference server with demo data,
// the docs site and the mock, each as its own process, prints each URL, the demo credentials and working `curl`
// lines, and supervises them: if one dies, it says which and why (its last output), stops the others and exits 1;
// Ctrl-C stops all three and exits 0. Its options and environment: USAGE below. DATA_DIR also keeps the servers'
// process ids.
//
// The servers run in process groups of their own, so that Ctrl-C reaches this supervisor alone and it stops them in
// order; a stopped server never looks like a crashed one. The root package.json runs this file with `exec`, so
// that no shell sits between pnpm and it: a shell that dies of the terminal's SIGINT makes pnpm report
// "Command failed" although everything stopped cleanly. What a server spawns runs in its group (the mock's Prism):
// when a server dies, its whole group is stopped, not only the others'. Each server's temporary files go into a
// folder of its own (its TMPDIR) under one folder of this start, removed when it ends: a server killed with
// `kill -9` (the mock, whose Prism writes the contract to a temporary folder) cannot remove its own. The groups and
// that folder are kept in start-pids.json beside the database, so a start after this supervisor itself was killed
// first stops what it left behind, Prism included (ports free), and removes the folder.
//
// The demo data is loaded once, into an empty database. API keys are stored only as hashes, so the demo keys and
// client credentials printed by that first load are kept beside the database in demo-keys.json (local,
// git-ignored) to be shown again on later starts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { importExport, resolveExport } from './workspace.mjs';

const USAGE = `Usage: pnpm start [--no-build]

Builds, then runs the reference server with demo data, the docs site and the mock until Ctrl-C, printing their
URLs, the demo credentials and curl lines to try.

  --no-build   skip the build (when you know it is current)
  -h, --help   show this help

Environment: PORT (3000) and DATABASE (./data/reference.db, or postgres://…) for the reference server; DATA_DIR
(the database's folder, or ./data) for the demo keys; DOCS_PORT (8080), MOCK_PORT (4010), HOST (127.0.0.1).`;

let noBuild = false;
try {
  const { values } = parseArgs({
    options: { 'no-build': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  noBuild = values['no-build'] === true;
} catch (err) {
  console.error(`${err.message}\n\n${USAGE}`);
  process.exit(2);
}

const root = resolve(import.meta.dirname, '..');
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', REDOCLY_TELEMETRY: 'off', DO_NOT_TRACK: '1' };
const host = process.env.HOST || '127.0.0.1';
const ports = {
  reference: Number(process.env.PORT ?? 3000),
  docs: Number(process.env.DOCS_PORT ?? 8080),
  mock: Number(process.env.MOCK_PORT ?? 4010),
};
// DATABASE is a SQLite file (relative to the root) or a PostgreSQL URL, which is passed on as it is and shown with
// its password hidden. With a URL there is no file to tell an empty database by: the demo data is loaded when this
// checkout has no demo keys for that URL yet, and `seed` itself refuses a database that already has data.
const rawDatabase = process.env.DATABASE ?? './data/reference.db';
const databaseIsUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(rawDatabase);
const database = databaseIsUrl ? rawDatabase : resolve(root, rawDatabase);
const SHOWN_HOST = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;

function step(message) {
  console.log(`\n▶ ${message}`);
}

if (!noBuild) {
  step('Building the contract, the reference server, the docs site and the mock (turbo; cached after the first run)');
  const build = spawnSync(
    'pnpm',
    [
      'exec',
      'turbo',
      'run',
      'build',
      '--filter=@cls-api/reference',
      '--filter=@cls-api/docs',
      '--filter=@cls-api/mock',
      '--output-logs=errors-only',
    ],
    // Turbo's banner, logs and summary are shown only when the build fails: the step line above says what runs.
    { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env },
  );
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}${build.error ? `${build.error.message}\n` : ''}`);
    console.error('\nThe build failed; see the output above.');
    process.exit(build.status ?? 1);
  }
}

// The three servers' commands, through their packages' exports (scripts/workspace.mjs), now that they are built.
const referenceCli = resolveExport('@cls-api/reference/cli');
// The reference's own rules: a URL shown without its password (before the host or as `?password=`), where the demo
// credentials are kept (which `serve --demo` and `seed` follow too), and the code of the seed's refusal of a database
// that already has accounts.
const { DATABASE_NOT_EMPTY, dataDirOf, demoKeysPath, withoutPassword } = await importExport('@cls-api/reference');
const dataDir = dataDirOf(process.env, root);
const demoKeysFile = demoKeysPath({ ...process.env, DATABASE: rawDatabase }, root);
const pidsFile = resolve(dataDir, 'start-pids.json');
const shownDatabase = databaseIsUrl ? withoutPassword(rawDatabase) : database;

try {
  mkdirSync(dataDir, { recursive: true });
} catch (error) {
  console.error(
    `error: the data folder ${dataDir} cannot be made: ${error.message}. DATA_DIR, or the folder of DATABASE, must name a folder.`,
  );
  process.exit(1);
}
stopLeftovers();

const referenceEnv = { ...env, DATABASE: database, PORT: String(ports.reference), HOST: host };
if (databaseIsUrl ? !existsSync(demoKeysFile) : !existsSync(database)) {
  step(`Loading the demo data into ${shownDatabase}`);
  const seeded = spawnSync(process.execPath, [referenceCli, 'seed', '--json'], {
    cwd: root,
    env: referenceEnv,
    encoding: 'utf8',
  });
  if (seeded.status !== 0) {
    // A database that already has data is served as it is; anything else is an error of its own.
    if (databaseIsUrl && seedErrorCode(seeded.stderr) === DATABASE_NOT_EMPTY) {
      console.log('  The database already has accounts: it is served as it is, without the demo data.');
    } else {
      console.error(seedError(seeded.stderr));
      // No half-loaded file for the next start to serve. A path under something that is not a folder holds no file.
      if (!databaseIsUrl) {
        try {
          rmSync(database, { force: true });
        } catch {}
      }
      process.exit(seeded.status ?? 1);
    }
  }
  // `seed` itself keeps the credentials it printed in demoKeysFile.
}
const demo = existsSync(demoKeysFile) ? JSON.parse(readFileSync(demoKeysFile, 'utf8')) : null;

const urls = {
  reference: `http://${SHOWN_HOST}:${ports.reference}`,
  docs: `http://${SHOWN_HOST}:${ports.docs}/`,
  mock: `http://${SHOWN_HOST}:${ports.mock}`,
};
const servers = [
  {
    name: 'reference server',
    args: [referenceCli, 'serve'],
    env: referenceEnv,
    ready: `${urls.reference}/health`,
  },
  {
    name: 'docs site',
    args: [resolveExport('@cls-api/docs/preview')],
    env: { ...env, PORT: String(ports.docs), HOST: host },
    ready: urls.docs,
  },
  {
    name: 'mock',
    args: [resolveExport('@cls-api/mock/cli'), '--quiet'],
    env: { ...env, PORT: String(ports.mock), HOST: host },
    // Any answer will do: the mock answers an unknown path 404 in the envelope once Prism is up.
    ready: `${urls.mock}/v3/`,
  },
];

let stopping = false;
const running = new Map();
/** Every server started, running or not: a dead server's group may still hold what it spawned. */
const started = [];

function recordPids() {
  const pids = started.map((s) => ({ name: s.name, pid: s.child.pid, command: s.args.join(' '), tmpdir: s.tmpdir }));
  writeFileSync(pidsFile, `${JSON.stringify(pids, null, 2)}\n`);
}

/** The processes of process group `pgid` whose environment has TMPDIR=`dir`: what one of our servers started. */
function groupMembers(pgid, dir) {
  const members = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Field 5 of /proc/<pid>/stat, after the command in parentheses (which may hold spaces), is the group.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (environ.includes(`TMPDIR=${dir}`)) members.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return members;
}

/**
 * Stops the process groups a killed supervisor left running (their ports would make this start fail), what a dead
 * server spawned included (the mock's Prism outlives a mock killed with `kill -9`), and removes their folders.
 */
function stopLeftovers() {
  if (!existsSync(pidsFile)) return;
  let left = [];
  try {
    left = JSON.parse(readFileSync(pidsFile, 'utf8'));
  } catch {
    // unreadable: nothing to stop
  }
  const killed = [];
  for (const { name, pid, command, tmpdir: dir } of left) {
    // Only processes that still carry that start's folder in their environment: a recycled id is someone else's.
    // (A file written before servers had folders of their own names the command its leader ran.)
    const runs = () => (typeof dir === 'string' ? groupMembers(pid, dir).length > 0 : leaderRuns(pid, command));
    if (!runs()) continue;
    console.log(`Stopping the ${name} (pid ${pid}) that an earlier start left running`);
    signalGroup(pid, 'SIGKILL');
    killed.push({ name, pid, runs });
  }
  // A killed process holds its port until the kernel has torn it down: this start's servers would find it taken.
  // (A dead process not yet reaped shows no environment, so it no longer counts as running.)
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; killed.some((k) => k.runs()) && waited < 10_000; waited += 50) Atomics.wait(sleeper, 0, 0, 50);
  for (const k of killed.filter((k) => k.runs())) {
    console.error(`The ${k.name} (pid ${k.pid}) an earlier start left running is still stopping; starting anyway.`);
  }
  const folders = new Set(left.map((s) => (typeof s.tmpdir === 'string' ? dirname(s.tmpdir) : '')));
  for (const dir of folders) {
    if (basename(dir).startsWith('cls-start-')) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
  rmSync(pidsFile, { force: true });
}

function leaderRuns(pid, command) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(String(command).split(' ')[0]);
  } catch {
    return false; // gone
  }
}

function start(server) {
  const dir = join(scratch, server.name.replace(/\W+/g, '-'));
  mkdirSync(dir);
  const child = spawn(process.execPath, server.args, {
    cwd: root,
    env: { ...server.env, TMPDIR: dir },
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const entry = { ...server, child, tail: [], tmpdir: dir };
  running.set(server.name, entry);
  started.push(entry);
  child.stderr.on('data', (chunk) => {
    process.stderr.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      entry.tail.push(line);
      if (entry.tail.length > 15) entry.tail.shift();
    }
  });
  child.once('exit', (code, signal) => {
    running.delete(server.name);
    // What it spawned is in its group and outlives it: the mock's Prism.
    if (claim(entry)) signalGroup(child.pid, 'SIGTERM');
    if (stopping) return;
    console.error(`\n✖ The ${server.name} exited (${signal ? `signal ${signal}` : `code ${code}`}).`);
    if (entry.tail.length > 0) console.error(`  Its last output:\n${entry.tail.map((l) => `    ${l}`).join('\n')}`);
    console.error('  Stopping the others.');
    void stopAll(1);
  });
  return entry;
}

async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  if (code === 0) console.log('\nStopping…');
  // Every group, a dead server's too, until no process is left in it: SIGTERM, then SIGKILL after 10 s.
  await Promise.all(
    started.map(async (server) => {
      if (!claim(server)) return;
      signalGroup(server.child.pid, 'SIGTERM');
      const force = Date.now() + 10_000;
      while (groupAlive(server.child.pid)) {
        if (Date.now() > force) signalGroup(server.child.pid, 'SIGKILL');
        await new Promise((r) => setTimeout(r, 100));
      }
    }),
  );
  rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
  rmSync(pidsFile, { force: true });
  process.exit(code);
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a server's process group is still ours to signal: the server runs, or, once it is gone, what it spawned
 * does (found by the folder in its environment: the id of a group whose processes all ended can be given to someone
 * else's). Once seen, a group stays ours until it is empty: its id is not reused while any process of it, an
 * unreaped one too, is left.
 */
function claim(server) {
  if (server.claimed && groupAlive(server.child.pid)) return true;
  const { child, tmpdir: dir } = server;
  server.claimed = (child.exitCode === null && child.signalCode === null) || groupMembers(child.pid, dir).length > 0;
  return server.claimed;
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone
  }
}

// The servers' temporary folders, made now that nothing before the servers' start can end this process early.
const scratch = mkdtempSync(join(tmpdir(), 'cls-start-'));
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
process.on('SIGHUP', () => void stopAll(0));
// Whatever ends this process, no server outlives it.
process.on('exit', () => {
  for (const server of started) if (claim(server)) signalGroup(server.child.pid, 'SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

try {
  step('Starting the reference server, the docs site and the mock');
  for (const server of servers) start(server);
  recordPids();
  await Promise.all(servers.map((s) => waitFor(s.ready, s.name)));
  if (stopping) await new Promise(() => {});
  console.log(`
Running (Ctrl-C stops everything):
  Reference server  ${urls.reference}   (database ${shownDatabase})
  Docs site         ${urls.docs}
  Mock              ${urls.mock}
${credentials()}`);
} catch (err) {
  if (!stopping) {
    console.error(`\n✖ ${err instanceof Error ? err.message : err}`);
    await stopAll(1);
  }
}

/** One demo key per area, the client credentials for a JWT, and a curl line for each. */
function credentials() {
  const account = demo?.accounts?.[0];
  if (!account) {
    return `\nNo demo credentials are known for ${shownDatabase}: create some with pnpm reference admin key create … (see apps/reference/README.md).`;
  }
  const lines = ['', `Demo credentials (test environment; all of them in ${demoKeysFile}):`];
  const keys = {};
  for (const area of ['wms', 'manager', 'cam']) {
    const key = account.api_keys?.find((k) => k.area === area && k.env === 'test')?.api_key;
    if (key) {
      keys[area] = key;
      lines.push(`  ${`${area} key`.padEnd(12)} X-API-Key: ${key}`);
    }
  }
  const client = account.clients?.find((c) => c.env === 'test') ?? account.clients?.[0];
  if (client)
    lines.push(`  ${'JWT client'.padEnd(12)} client_id=${client.client_id}  client_secret=${client.client_secret}`);
  lines.push('', 'Try:');
  if (keys.manager)
    lines.push(`  curl -sS "${urls.reference}/v3/manager/orders?page=1&size=10" -H "X-API-Key: ${keys.manager}"`);
  if (keys.wms) lines.push(`  curl -sS "${urls.reference}/v3/wms/products?page=1&size=10" -H "X-API-Key: ${keys.wms}"`);
  if (client) {
    lines.push(
      `  curl -sS -X POST "${urls.reference}/v3/auth/token" -H "Content-Type: application/json" -d '{"client_id":"${client.client_id}","client_secret":"${client.client_secret}"}'`,
    );
  }
  lines.push(`  curl -sS "${urls.mock}/v3/manager/orders?page=1&size=10" -H "X-API-Key: manager_test_mock"`);
  return lines.join('\n');
}

async function waitFor(url, what) {
  // A guard against a server that hangs, not a guess at its speed (one that exits stops everything at once): the
  // mock's Prism took more than two minutes to load the contract on a busy two-core machine (apps/mock/src/prism.ts).
  const limitS = 600;
  const deadline = Date.now() + limitS * 1000;
  while (Date.now() < deadline) {
    if (stopping) return;
    try {
      await fetch(url);
      return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the ${what} did not answer ${url} within ${limitS} s`);
}

/** The code of the seed's JSON error (`reference seed --json`), if its last line is one. */
function seedErrorCode(stderr) {
  try {
    return JSON.parse(stderr.trim().split('\n').at(-1))?.error?.code;
  } catch {
    return undefined;
  }
}

/** What `seed --json` wrote on stderr, as a reader reads it: each `{"error":{"message":…}}` line as `error: …`. */
function seedError(stderr) {
  return stderr
    .trim()
    .split('\n')
    .map((line) => {
      try {
        const message = JSON.parse(line)?.error?.message;
        if (typeof message === 'string') return `error: ${message}`;
      } catch {}
      return line;
    })
    .join('\n');
}
