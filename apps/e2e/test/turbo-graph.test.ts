// Turbo's graph is the workspace's own: `pnpm build` plans only tasks that exist (a package's `bundle` or `generate`
// only where its package.json has that script), an edit of one spec file changes the hash of the spec package's
// tasks and of the packages that depend on it and no other, and `pnpm breaking` and `pnpm docs:build` build what the
// gate and the site run on (their package and its runtime dependencies), not what their tests start. Run on a copy of
// the repository's files, where a spec file is edited without touching the checkout other suites read.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from './support.js';

const testReports = pathToFileURL(join(root, 'scripts', 'test-reports.mjs')).href;
const { runEnvOf } = (await import(testReports)) as { runEnvOf: (task: { hash?: string }) => Record<string, string> };

interface DryTask {
  taskId: string;
  package: string;
  task: string;
  hash: string;
  command: string;
  dependencies: string[];
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

const manifests: Array<Manifest & { dir: string }> = ['apps', 'packages'].flatMap((group) =>
  readdirSync(join(root, group), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => {
      try {
        const dir = join(group, d.name);
        return [{ ...(JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest), dir }];
      } catch {
        return [];
      }
    }),
);
const workspaceNames = new Set(manifests.map((m) => m.name));
const ours = (deps: Record<string, string> | undefined) => Object.keys(deps ?? {}).filter((n) => workspaceNames.has(n));

/** `name` and every workspace package it reaches through `fields` of each package.json on the way. */
function closure(name: string, fields: Array<'dependencies' | 'devDependencies'>): Set<string> {
  const seen = new Set<string>();
  const visit = (n: string) => {
    if (seen.has(n)) return;
    seen.add(n);
    const m = manifests.find((x) => x.name === n)!;
    for (const field of fields) for (const dep of ours(m[field])) visit(dep);
  };
  visit(name);
  return seen;
}

/** Whether a task of the package in `dir` names `file` (from the root) among its inputs, as a `$TURBO_ROOT$/` glob. */
function readsFile(dir: string, file: string): boolean {
  let config: { tasks?: Record<string, { inputs?: string[] }> };
  try {
    config = JSON.parse(readFileSync(join(root, dir, 'turbo.json'), 'utf8'));
  } catch {
    return false; // no turbo.json of its own: its tasks read its own folder
  }
  return Object.values(config.tasks ?? {})
    .flatMap((t) => t.inputs ?? [])
    .filter((g) => g.startsWith('$TURBO_ROOT$/'))
    .some((g) => {
      const pattern = g
        .slice('$TURBO_ROOT$/'.length)
        .split(/(\*\*|\*)/)
        .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      return new RegExp(`^${pattern}$`).test(file);
    });
}

describe("turbo's task graph", () => {
  let copy: string;

  const dry = (args: string[], env: Record<string, string> = {}): DryTask[] => {
    const run = spawnSync(join(root, 'node_modules', '.bin', 'turbo'), ['run', ...args, '--dry=json'], {
      cwd: copy,
      encoding: 'utf8',
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.status !== 0) throw new Error(`turbo ${args.join(' ')} --dry=json exited ${run.status}: ${run.stderr}`);
    return (JSON.parse(run.stdout) as { tasks: DryTask[] }).tasks;
  };

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), 'cls-turbo-graph-'));
    // The repository's files as git sees them (committed or not, nothing ignored), and its installed node_modules.
    const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    })
      .stdout.split('\0')
      .filter(Boolean);
    for (const file of files) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      try {
        cpSync(join(root, file), join(copy, file));
      } catch {
        // deleted in the checkout but not yet in git's index
      }
    }
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  });

  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('plans only tasks that exist: bundle and generate only where a package has that script', () => {
    const tasks = dry(['build']);
    expect(tasks.filter((t) => t.command === '<NONEXISTENT>').map((t) => t.taskId)).toEqual([]);
    const expected = manifests.flatMap((m) =>
      ['bundle', 'generate', 'build'].filter((s) => m.scripts?.[s]).map((s) => `${m.name}#${s}`),
    );
    expect(tasks.map((t) => t.taskId).sort()).toEqual(expected.sort());
  });

  it('rebuilds, after an edit of one spec file, the spec package and what depends on it, nothing else', () => {
    const before = new Map(dry(['build']).map((t) => [t.taskId, t.hash]));
    const schemas = join(copy, 'spec', 'components', 'schemas');
    const edited = join(schemas, readdirSync(schemas).find((f) => f.endsWith('.yaml'))!);
    appendFileSync(edited, '# one line more\n');
    const after = dry(['build']);
    const changed = new Set(after.filter((t) => before.get(t.taskId) !== t.hash).map((t) => t.package));
    // Everything whose package.json reaches the spec package, for its users or its own development.
    const dependants = manifests
      .filter((m) => closure(m.name, ['dependencies', 'devDependencies']).has('@cls-api/spec'))
      .map((m) => m.name);
    expect([...changed].sort()).toEqual(dependants.sort());
    // And some are left alone: the packages that read no spec.
    expect(manifests.length - dependants.length).toBeGreaterThan(0);
  });

  // Turbo folds every file of each workspace package the root package.json depends on into every task's hash: with
  // the packages listed there, one edit of the reference server made every task of the repository miss its cache.
  it.each([
    ['@cls-api/reference', 'apps/reference/README.md'],
    ['@cls-api/test-servers', 'packages/test-servers/README.md'],
  ])('rebuilds, after an edit of a file of %s, that package and what depends on it, nothing else', (name, file) => {
    // Its build, and the builds and suites of the packages that declare it (a suite starts the servers it declares).
    const before = new Map(dry(['build', 'test']).map((t) => [t.taskId, t.hash]));
    const edited = join(copy, file);
    const text = readFileSync(edited, 'utf8');
    appendFileSync(edited, '\nOne line more.\n');
    try {
      const after = dry(['build', 'test']);
      const changed = new Set(after.filter((t) => before.get(t.taskId) !== t.hash).map((t) => t.package));
      const dependants = manifests
        .filter((m) => closure(m.name, ['dependencies', 'devDependencies']).has(name))
        .map((m) => m.name);
      // And the packages whose turbo.json names the file among a task's inputs (the spec's boundary tests read
      // every package's sources).
      const readers = manifests.filter((m) => readsFile(m.dir, file)).map((m) => m.name);
      expect([...changed].sort()).toEqual([...new Set([...dependants, ...readers])].sort());
    } finally {
      writeFileSync(edited, text);
    }
  });

  // `pnpm test` runs each suite in a turbo run of its own, with `--only` (scripts/test-all.mjs), where turbo leaves
  // the tasks it depends on out of its hash: without the task's hash in the whole graph (runEnvOf), an edit of the
  // mock replayed the client's suite, which runs against the mock, from the cache.
  it('gives a suite, run as pnpm test runs it, a new cache key when a package it depends on changes', () => {
    const suite = '@cls-api/client#test';
    const ownRun = () => {
      const planned = dry(['test']).find((t) => t.taskId === suite)!;
      const own = dry(['test', '--filter=@cls-api/client', '--only'], runEnvOf(planned));
      return own.find((t) => t.taskId === suite)!.hash;
    };
    const before = ownRun();
    const edited = join(copy, 'apps', 'mock', 'README.md');
    const text = readFileSync(edited, 'utf8');
    appendFileSync(edited, '\nOne line more.\n');
    try {
      expect(ownRun()).not.toBe(before);
    } finally {
      writeFileSync(edited, text);
    }
    // And an unchanged graph keeps its key: a second pnpm test replays it.
    expect(ownRun()).toBe(before);
  });

  // The release suite builds a copy of the repository through turbo with this checkout's cache. A suite's own run
  // is given its hash in the whole graph as an environment variable that turbo hashes into every task (runEnvOf), and
  // had the suite handed it on, every build of that copy would miss the cache and run cold.
  it("lets a turbo build started by a suite's test, run as pnpm test runs it, find the builds pnpm test made", () => {
    const planned = dry(['test']).find((t) => t.taskId === '@cls-api/release#test')!;
    const project = mkdtempSync(join(copy, '.nested-suite-'));
    const seen = join(project, 'hashes.json');
    try {
      writeFileSync(
        join(project, 'vitest.config.mjs'),
        "import { packageTestConfig } from '../vitest.shared.mjs';\n" +
          'export default packageTestConfig({ testTimeout: 120_000, globals: true });\n',
      );
      mkdirSync(join(project, 'test'));
      writeFileSync(
        join(project, 'test', 'nested.test.ts'),
        [
          "import { spawnSync } from 'node:child_process';",
          "import { writeFileSync } from 'node:fs';",
          'test("builds through turbo", () => {',
          `  const run = spawnSync(${JSON.stringify(join(root, 'node_modules', '.bin', 'turbo'))},`,
          "    ['run', 'build', '--dry=json'], { cwd: process.env.COPY, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });",
          '  const tasks = JSON.parse(run.stdout).tasks.map((t) => [t.taskId, t.hash]);',
          `  writeFileSync(${JSON.stringify(seen)}, JSON.stringify(Object.fromEntries(tasks)));`,
          '});',
          '',
        ].join('\n'),
      );
      const vitest = spawnSync(
        join(root, 'apps', 'e2e', 'node_modules', '.bin', 'vitest'),
        ['run', '--root', project, '--config', join(project, 'vitest.config.mjs')],
        {
          cwd: project,
          encoding: 'utf8',
          env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', COPY: copy, ...runEnvOf(planned) },
        },
      );
      expect(vitest.status, vitest.stdout + vitest.stderr).toBe(0);
      const checkout = Object.fromEntries(dry(['build']).map((t) => [t.taskId, t.hash]));
      expect(JSON.parse(readFileSync(seen, 'utf8'))).toEqual(checkout);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('the root package.json depends on no workspace package: the scripts reach them through scripts/workspace.mjs', () => {
    const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
    expect([...ours(rootManifest.dependencies), ...ours(rootManifest.devDependencies)]).toEqual([]);
  });

  it('builds, before a package, every package of ours its package.json depends on, whatever its turbo.json names', () => {
    // A package's turbo.json may narrow its build to what the build reads (the kit's and the MCP server's name the
    // spec and the client): a dependency added to package.json must still be built first.
    const tasks = new Map(dry(['build']).map((t) => [t.taskId, t]));
    const upstream = (id: string, seen = new Set<string>()) => {
      for (const d of tasks.get(id)?.dependencies ?? []) if (!seen.has(d)) upstream(d, seen.add(d));
      return seen;
    };
    const built = (name: string) => tasks.has(`${name}#build`);
    const missing = manifests
      .filter((m) => built(m.name))
      .flatMap((m) => {
        const planned = new Set([...upstream(`${m.name}#build`)].map((id) => tasks.get(id)?.package));
        return [...closure(m.name, ['dependencies'])]
          .filter((dep) => dep !== m.name && built(dep) && !planned.has(dep))
          .map((dep) => `${m.name} before ${dep}`);
      });
    expect(missing).toEqual([]);
  });

  it("builds for pnpm breaking only the gate's package and what it runs on, not the servers its tests start", () => {
    const release = manifests.find((m) => m.name === '@cls-api/release')!;
    // Its tests start the reference server (a devDependency), which does not compile against a contract with an
    // operation removed: the gate must still run and name the removal.
    expect(ours(release.devDependencies)).toContain('@cls-api/reference');
    const packages = new Set(dry(['build', '--filter=@cls-api/release']).map((t) => t.package));
    expect([...packages].sort()).toEqual([...closure(release.name, ['dependencies'])].sort());
  });

  it("builds for pnpm docs:build (the release's site job) the site and the spec it reads, not what its tests start", () => {
    const docs = manifests.find((m) => m.name === '@cls-api/docs')!;
    // Its tests start the reference server, the mock and the client: building them too made the site job's build more
    // than twice as costly as the site's own.
    expect(ours(docs.devDependencies)).toEqual(expect.arrayContaining(['@cls-api/reference', '@cls-api/mock']));
    const packages = new Set(dry(['build', '--filter=@cls-api/docs']).map((t) => t.package));
    expect([...packages].sort()).toEqual([...closure(docs.name, ['dependencies'])].sort());
    // Its tests still get every package they start, built first.
    const tested = new Set(dry(['test', '--filter=@cls-api/docs']).map((t) => t.package));
    for (const dep of closure(docs.name, ['dependencies', 'devDependencies'])) expect(tested, dep).toContain(dep);
  });
});
