// `cls-reference cluster` as an operator runs it (the built dist/cli.js, a process of its own): a signal at each step
// of its start stops everything started so far and says so, and a PORT already taken is an error before anything
// starts. "Nothing left" is checked on the machine itself: no process carries this run's mark in its environment
// (every server the cluster starts inherits it), and the run's TMPDIR and DATA_DIR are empty.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureDebianPackages, SERVER_PACKAGES, sparePort } from '@cls-api/test-servers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPostgresDatabase } from '../support/engines.js';

const cli = resolve(import.meta.dirname, '../../dist/cli.js');

// Each step is signalled as soon as its line is printed: a server still to be installed (a fresh machine) would be
// installing then, not running, and the report would rightly not name it. Installed first, in this hook's time.
beforeAll(() => ensureDebianPackages(SERVER_PACKAGES, (line) => console.log(`[debian] ${line}`)), 900_000);
const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

/** Processes whose environment holds `mark` (this test runs as root or as the servers' owner: it may read them). */
function marked(mark: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(mark)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

interface Run {
  child: ChildProcess;
  mark: string;
  tmp: string;
  data: string;
  output: () => string;
  exited: Promise<number | null>;
  /** Resolves once the output has a line containing `text`. */
  printed(text: string): Promise<void>;
}

function startCluster(port: number, database?: string): Run {
  const mark = `CLS_CLUSTER_TEST_MARK=${randomUUID()}`;
  const tmp = mkdtempSync(join(tmpdir(), 'cls-cluster-run-'));
  const data = mkdtempSync(join(tmpdir(), 'cls-cluster-data-'));
  folders.push(tmp, data);
  // PostgreSQL runs as its own user when the tests run as root: it must reach its folder inside this one.
  chmodSync(tmp, 0o755);
  const [name, value] = mark.split('=') as [string, string];
  // Its own Redis always; its own PostgreSQL unless a database is given.
  const environment: NodeJS.ProcessEnv = {
    ...process.env,
    [name]: value,
    TMPDIR: tmp,
    DATA_DIR: data,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    DATABASE: database ?? '',
  };
  delete environment.REDIS_URL;
  const child = spawn(process.execPath, [cli, 'cluster', '--instances', '1'], {
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiting: Array<{ text: string; resolve: () => void }> = [];
  const take = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const w of [...waiting])
      if (out.includes(w.text)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    child,
    mark,
    tmp,
    data,
    output: () => out,
    exited,
    printed: (text) =>
      out.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolvePrinted, reject) => {
            waiting.push({ text, resolve: resolvePrinted });
            void exited.then(() => reject(new Error(`exited before printing "${text}":\n${out}`)));
          }),
  };
}

async function expectNothingLeft(run: Run): Promise<void> {
  expect(marked(run.mark.split('=')[1]!), run.output()).toEqual([]);
  expect(readdirSync(run.tmp), run.output()).toEqual([]);
  expect(readdirSync(run.data), run.output()).toEqual([]);
}

describe.concurrent('cls-reference cluster interrupted while it starts', () => {
  // Each step's first line, what the report of the stop then names, and whether the cluster starts its own
  // PostgreSQL: the steps after Redis run on a database of the run's server (DATABASE given), which keeps the suite
  // short; stopping its own PostgreSQL is what the first two steps check.
  const steps: Array<[string, string[], 'own' | 'given']> = [
    ['Starting PostgreSQL', ['stopped PostgreSQL'], 'own'],
    ['Starting Redis', ['stopped redis-server', 'stopped PostgreSQL'], 'own'],
    ['Loading the demo data', ['stopped redis-server'], 'given'],
    ['reference instances and nginx', ['stopped nginx', 'stopped redis-server'], 'given'],
  ];

  it.each(steps)(
    'SIGINT at "%s": exit 130, every server stopped and every folder removed, each named',
    {
      timeout: 120_000,
    },
    async (line, named, database) => {
      const run = startCluster(await sparePort(), database === 'given' ? await newPostgresDatabase() : undefined);
      await run.printed(line);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
      for (const what of named) expect(run.output()).toContain(what);
      expect(run.output()).toContain('Everything the cluster started is stopped.');
      await expectNothingLeft(run);
    },
  );

  it('SIGINT once it serves: exit 0, everything stopped, cluster.env removed', { timeout: 120_000 }, async () => {
    const run = startCluster(await sparePort(), await newPostgresDatabase());
    await run.printed('Ctrl-C stops everything.');
    expect(readdirSync(run.data)).toEqual(['cluster.env']);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('stopped nginx');
    await expectNothingLeft(run);
  });
});

describe('cls-reference cluster on a PORT another server holds', () => {
  let other: Server;
  afterAll(() => other?.close());

  it('is an error before anything starts: exit 1, naming the port; nothing left', async () => {
    other = createServer(() => undefined);
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
    const port = (other.address() as { port: number }).port;
    const run = startCluster(port);
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(`port ${port} is already in use`);
    expect(run.output()).not.toContain('Serving through nginx');
    await expectNothingLeft(run);
  });
});
