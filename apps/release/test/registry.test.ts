// The release, proven against a real registry: a throwaway Verdaccio (its storage in a temp dir, on a spare loopback
// port), and the release workflow's (.github/workflows/release.yml) steps run as written in a copy of this working
// tree (the copy is versioned and tagged, never this checkout), with npm configured as actions/setup-node configures
// it and a local bare repository as `origin`: "Version and tag" (which publishes nothing), the publish job's "Publish
// the tagged packages" before the tag is pushed (refused: nothing published), "Push the version commit and the tag",
// then "Publish the tagged packages" again; then, in a new directory outside the repository, what an integrator does:
// `npm install @cls-api/client @cls-api/contract-tests @cls-api/mcp` from that registry, the client README's first
// example against the reference server, `npx cls-contract --help` and `npx cls-mcp --help`.
//
// Verdaccio serves @cls-api/* only from what was published to it (no uplink for that scope); every other package
// comes through its uplink, the registry that this machine's npm configuration names.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { sparePort } from '@cls-api/test-servers';
import { bumpFor, bumpVersion, readChangesets, type Bump } from '../src/changesets.js';
import { git, publicPackages, repoRoot } from '../src/repo.js';
import { runStep, runSteps, type Step } from './support/workflows.js';

const run = promisify(execFile);

/**
 * This process's environment without the npm configuration `pnpm run` hands its scripts (`npm_config_registry` and
 * the rest): a runner's step starts with none, and an inherited `npm_config_registry` would outrank the npm
 * configuration the test gives (npm reads the environment before any npmrc file).
 */
const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^p?npm_config_/i.test(k)));

/**
 * The version `pnpm release` publishes: this checkout's, moved by the changesets still pending in it (one fixed
 * group, so the largest bump any of them gives a public package moves every package).
 */
function releasedVersion(root: string): string {
  const pending = readChangesets(join(root, '.changeset'));
  const bumps = publicPackages(root).map((p) => bumpFor(pending, p.name));
  const largest = (['major', 'minor', 'patch'] as Bump[]).find((b) => bumps.includes(b));
  const current = publicPackages(root)[0]!.version;
  return largest ? bumpVersion(current, largest) : current;
}
const WORKSPACE_SCOPE = '@cls-api';
const root = repoRoot(import.meta.dirname);
const work = mkdtempSync(join(tmpdir(), 'cls-release-registry-'));
const copy = join(work, 'repo');
const consumer = join(work, 'consumer');
const origin = join(work, 'origin.git');
const children: ChildProcess[] = [];
let registry: string;
let env: NodeJS.ProcessEnv;
type StepRun = ReturnType<typeof runStep>;
let release: StepRun;
let publishedAfterTagging: string[] = [];
let publishBeforePush: StepRun | undefined;
let push: StepRun | undefined;
let publish: StepRun | undefined;
/** The same step run first on a commit whose MCP server names missing types, and the copy as that run left it. */
let refused: StepRun | undefined;
let afterRefusal: { status: string; head: string; tags: string } | undefined;
let brokenHead: string | undefined;
let before: { head: string; tags: string; files: Map<string, string> };
/** `git commit` of every tracked change, as the tests' own author. */
const commit = ['-c', 'user.name=release test', '-c', 'user.email=release@test.invalid', 'commit', '-q', '-a'];

/** What a release changes, read from this checkout: HEAD, the tags, and the files versioning writes. */
function releaseState() {
  const files = new Map<string, string>();
  const paths = [
    'spec/openapi.yaml',
    ...readdirSync(join(root, '.changeset')).map((f) => `.changeset/${f}`),
    ...publicPackages(root).flatMap((p) => [`${p.dir}/package.json`, `${p.dir}/CHANGELOG.md`]),
  ];
  for (const path of paths) {
    const file = path.startsWith('/') ? path : join(root, path);
    files.set(path, existsSync(file) ? readFileSync(file, 'utf8') : '');
  }
  return { head: git(root, ['rev-parse', 'HEAD']), tags: git(root, ['tag', '--list']), files };
}

async function waitFor(url: string, child: ChildProcess, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer ${url}`);
}

/** The working tree as it is (tracked and untracked files, not ignored ones), as a new git repository. */
function copyWorkingTree(): void {
  const files = git(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(root, file))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file), { verbatimSymlinks: true });
  }
  // The installed dependencies are this checkout's, linked rather than installed again. The workspace's own
  // packages (pnpm links them relatively, `../../packages/spec`) are linked inside the copy, so the copy's tools
  // read the copy's contract.
  for (const dir of ['.', ...['packages', 'apps'].flatMap((g) => readdirSync(join(root, g)).map((d) => join(g, d)))]) {
    const from = join(root, dir, 'node_modules');
    if (!existsSync(from) || !existsSync(join(copy, dir))) continue;
    const to = join(copy, dir, 'node_modules');
    mkdirSync(to);
    for (const entry of readdirSync(from)) {
      if (entry === WORKSPACE_SCOPE) {
        mkdirSync(join(to, entry));
        for (const pkg of readdirSync(join(from, entry))) {
          symlinkSync(readlinkSync(join(from, entry, pkg)), join(to, entry, pkg));
        }
      } else {
        symlinkSync(join(from, entry), join(to, entry));
      }
    }
  }
  const g = (args: string[]) => git(copy, args);
  g(['init', '-q', '-b', 'main']);
  g(['add', '-A']);
  g(['-c', 'user.name=release test', '-c', 'user.email=release@test.invalid', 'commit', '-q', '-m', 'working tree']);
  // `origin` as a runner's checkout has it: the repository's main, here a bare repository beside the copy.
  git(work, ['init', '-q', '--bare', '-b', 'main', origin]);
  g(['remote', 'add', 'origin', origin]);
  g(['push', '-q', 'origin', 'main']);
}

/** The public packages the registry has (any version), as `npm view` finds them (one `npm view` a package, at once). */
async function onRegistry(): Promise<string[]> {
  const names = publicPackages(root).map((p) => p.name);
  const found = await Promise.all(
    names.map((name) =>
      run('npm', ['view', name, 'version'], { cwd: work, env }).then(
        () => true,
        () => false,
      ),
    ),
  );
  return names.filter((_, i) => found[i]);
}

/** The release workflow's step of that name. */
function releaseStep(name: string): Step {
  const step = runSteps('release.yml').find((s) => s.name === name);
  if (!step) throw new Error(`release.yml has no step "${name}"`);
  return step;
}

beforeAll(async () => {
  before = releaseState();
  // The uplink is reached as npm reaches it: its registry, its proxy and its certificate authorities (a machine
  // whose traffic passes a proxy with its own CA names it in npm's `cafile`, which Verdaccio does not read).
  const npmConfig = async (key: string) => {
    // An npm that cannot read its configuration names nothing: the defaults below apply.
    const { stdout } = await run('npm', ['config', 'get', key], { cwd: work, encoding: 'utf8' }).catch(() => ({
      stdout: '',
    }));
    const value = stdout.trim();
    return value && value !== 'null' && value !== 'undefined' ? value : undefined;
  };
  const [registryConfig, cafile, httpsProxy, plainProxy] = await Promise.all(
    ['registry', 'cafile', 'https-proxy', 'proxy'].map(npmConfig),
  );
  const upstream = registryConfig ?? 'https://registry.npmjs.org/';
  const proxy = httpsProxy ?? plainProxy;
  // Verdaccio and the reference server below bind their port seconds after it is chosen: it comes from outside the
  // range listen(0) and outgoing connections draw from, so that nothing the suites beside this one do takes it first
  // (a reference server of another suite on it would answer the health check in this one's place).
  const port = await sparePort();
  registry = `http://127.0.0.1:${port}/`;
  const config = join(work, 'verdaccio.yaml');
  writeFileSync(
    config,
    [
      `storage: ${join(work, 'storage')}`,
      `auth:\n  htpasswd:\n    file: ${join(work, 'htpasswd')}\n    max_users: 10`,
      `uplinks:\n  upstream:\n    url: ${upstream}\n    timeout: 120s${proxy ? `\n    https_proxy: ${proxy}` : ''}`,
      'packages:',
      "  '@cls-api/*':\n    access: $all\n    publish: $authenticated",
      "  '**':\n    access: $all\n    publish: $authenticated\n    proxy: upstream",
      'log: { type: stdout, format: pretty, level: warn }',
      'publish:\n  allow_offline: true',
      '',
    ].join('\n'),
  );
  const verdaccio = spawn(
    join(import.meta.dirname, '..', 'node_modules', '.bin', 'verdaccio'),
    ['--config', config, '--listen', `127.0.0.1:${port}`],
    {
      stdio: 'ignore',
      env: {
        ...process.env,
        VERDACCIO_HANDLE_KILL_SIGNALS: 'true',
        ...(cafile && existsSync(cafile) ? { NODE_EXTRA_CA_CERTS: cafile } : {}),
      },
    },
  );
  children.push(verdaccio);
  await waitFor(`${registry}-/ping`, verdaccio, 'Verdaccio');

  // A user of the throwaway registry, and its token in an npm configuration of the test's own.
  const user = await fetch(`${registry}-/user/org.couchdb.user:release`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'release', password: 'release-test-password', type: 'user', roles: [] }),
  });
  const { token } = (await user.json()) as { token: string };
  expect(token).toEqual(expect.any(String));
  const npmrc = join(work, 'npmrc');
  writeFileSync(npmrc, `registry=${registry}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  env = {
    ...cleanEnv(),
    NPM_CONFIG_REGISTRY: registry,
    NPM_CONFIG_USERCONFIG: npmrc,
    // The copy builds through turbo with this checkout's cache: an unchanged package is not built again.
    TURBO_CACHE_DIR: join(root, '.turbo', 'cache'),
    TURBO_TELEMETRY_DISABLED: '1',
    REDOCLY_TELEMETRY: 'off',
  };

  copyWorkingTree();
  // npm as actions/setup-node (registry-url) leaves it for the job: its own user configuration naming the registry
  // with the token read from NODE_AUTH_TOKEN, and a placeholder there that the publish step's env must replace.
  const setupNodeNpmrc = join(work, 'setup-node.npmrc');
  writeFileSync(setupNodeNpmrc, `//127.0.0.1:${port}/:_authToken=\${NODE_AUTH_TOKEN}\nregistry=${registry}\n`);
  const { NPM_CONFIG_REGISTRY: _registry, ...job } = env;
  const jobEnv = { ...job, NPM_CONFIG_USERCONFIG: setupNodeNpmrc, NODE_AUTH_TOKEN: 'XXXXX-XXXXX-XXXXX-XXXXX' };
  // First the step on a commit whose MCP server's types name a missing file: it versions, builds, and must stop at
  // the checks with the copy as it found it. What it built is turbo's cache for the release after it, which versions
  // to the same numbers (nothing depends on the MCP server, so nothing else builds again).
  const mcpManifest = join(copy, 'packages', 'mcp', 'package.json');
  const mcp = JSON.parse(readFileSync(mcpManifest, 'utf8'));
  mcp.exports['.'].types = './dist/src/gone.d.ts';
  writeFileSync(mcpManifest, `${JSON.stringify(mcp, null, 2)}\n`);
  git(copy, [...commit, '-m', 'types that name a missing file']);
  brokenHead = git(copy, ['rev-parse', 'HEAD']);
  refused = runStep(releaseStep('Version and tag'), copy, jobEnv);
  afterRefusal = {
    status: git(copy, ['status', '--porcelain']),
    head: git(copy, ['rev-parse', 'HEAD']),
    tags: git(copy, ['tag', '--list']),
  };
  git(copy, ['reset', '-q', '--hard', 'HEAD~1']);
  git(copy, ['clean', '-d', '--force', '--quiet']);

  release = runStep(releaseStep('Version and tag'), copy, jobEnv);
  if (release.status === 0) {
    publishedAfterTagging = await onRegistry();
    // The publish job's step, as if it ran while the tag is not on origin (a push that failed): it must refuse.
    publishBeforePush = runStep(releaseStep('Publish the tagged packages'), copy, jobEnv, {
      'secrets.NPM_TOKEN': token,
    });
    push = runStep(releaseStep('Push the version commit and the tag'), copy, jobEnv);
    if (push.status === 0) {
      publish = runStep(releaseStep('Publish the tagged packages'), copy, jobEnv, { 'secrets.NPM_TOKEN': token });
      if (publish.status !== 0) console.error(publish.stdout, publish.stderr);
    }
  } else console.error(release.stdout, release.stderr);

  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run(
    'npm',
    ['install', '@cls-api/client', '@cls-api/contract-tests', '@cls-api/mcp', '--no-audit', '--no-fund'],
    {
      cwd: consumer,
      env,
      timeout: 600_000,
    },
  );
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

describe('pnpm release against a throwaway registry', () => {
  it('a package that fails its checks after versioning stops the release, and the version changes are undone', () => {
    expect(refused?.status, `${refused?.stdout}${refused?.stderr}`).toBe(1);
    expect(refused?.stdout).toMatch(/^release: versioning: /m);
    expect(refused?.stderr).toContain(`release: @cls-api/mcp@${releasedVersion(root)} fails its checks as packed:\n`);
    expect(refused?.stderr).toMatch(
      /^release: the version changes are undone: the working tree is as it was\nrelease: stopped before committing and tagging anything$/m,
    );
    // Nothing committed, tagged or left changed: the versions, changelogs and changesets are as the commit has them.
    expect(afterRefusal).toEqual({ status: '', head: brokenHead, tags: '' });
  });

  it('tags the copy, and publishes nothing while the tag is not on origin', () => {
    expect(release.status).toBe(0);
    expect(release.stdout).not.toMatch(/^release: published /m);
    expect(publishedAfterTagging).toEqual([]);
    const version = releasedVersion(root);
    expect(git(copy, ['tag', '--points-at', 'HEAD'])).toBe(`v${version}`);
    // The publish step run before the push: refused, naming the tag, and still nothing on the registry.
    expect(publishBeforePush?.status).toBe(1);
    expect(publishBeforePush?.stderr).toContain(`origin has no tag v${version}`);
    expect(publishBeforePush?.stdout).not.toMatch(/^release: published /m);
    // A refused publish is refused before it builds anything.
    expect(publishBeforePush?.stdout).not.toMatch(/^release: building /m);
  });

  it('builds what it packs: the public packages, not the apps', () => {
    expect(release.stdout).toMatch(/^release: building the public packages \(turbo\)$/m);
    for (const p of publicPackages(copy)) expect(existsSync(join(p.dir, 'dist')), p.name).toBe(true);
    // The apps are not packed: the documentation site is built by its own job, the servers by whoever runs them.
    for (const app of ['docs', 'mock', 'reference'])
      expect(existsSync(join(copy, 'apps', app, 'dist')), app).toBe(false);
  });

  it('the workflow commits as its bot, and its push step sends the version commit and the tag to origin', () => {
    expect(push?.status, `${push?.stdout}${push?.stderr}`).toBe(0);
    const head = git(copy, ['rev-parse', 'HEAD']);
    expect(git(copy, ['log', '-1', '--format=%an <%ae>'])).toBe(
      'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>',
    );
    const tag = `v${releasedVersion(root)}`;
    expect(git(work, ['--git-dir', origin, 'rev-parse', 'main'])).toBe(head);
    expect(git(work, ['--git-dir', origin, 'cat-file', '-t', tag])).toBe('tag');
    expect(git(work, ['--git-dir', origin, 'rev-parse', `${tag}^{commit}`])).toBe(head);
    // The tag the later jobs check out, as the step hands it on.
    expect(push?.outputs).toEqual({ tag });
  });

  it('once the tag is pushed, publishes every public package at its version, in dependency order', () => {
    expect(publish?.status).toBe(0);
    const published = [...publish!.stdout.matchAll(/^release: published (\S+)@(\S+) to /gm)].map(
      (m) => `${m[1]}@${m[2]}`,
    );
    const expected = publicPackages(root).map((p) => `${p.name}@${releasedVersion(root)}`);
    expect(published).toEqual(expected);
    expect(published.indexOf(expected.find((p) => p.startsWith('@cls-api/spec@'))!)).toBe(0);
  });

  it('leaves this checkout as it was: no tag, no change', () => {
    // (Compared file by file rather than with `git status`, so that editing other files during the run is no failure.)
    const after = releaseState();
    expect(after.head).toBe(before.head);
    expect(after.tags).toBe(before.tags);
    expect(after.files).toEqual(before.files);
  });

  it('publishes tarballs that pass publint and "are the types wrong"', () => {
    // The release stops before publishing anything when either finds an error in a packed tarball.
    // Checked before the tag is made, and again at publishing.
    for (const run of [release, publish!]) {
      expect(run.stdout).toMatch(
        new RegExp(`^release: publint and attw: no problems in ${publicPackages(root).length} tarballs$`, 'm'),
      );
    }
  });

  it('installs from the registry and runs the client README example against the reference server', async () => {
    const installed = JSON.parse(
      readFileSync(join(consumer, 'node_modules', '@cls-api', 'spec', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(installed.version).toBe(releasedVersion(root));
    const readme = readFileSync(join(consumer, 'node_modules', '@cls-api', 'client', 'README.md'), 'utf8');
    const example = /^# [^\n]+\n\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'the README starts with a js example').toBeDefined();

    // The reference server's command through its package's exports (a devDependency of this package).
    const cli = createRequire(import.meta.url).resolve('@cls-api/reference/cli');
    const refEnv = {
      ...process.env,
      DATABASE: join(work, 'reference.db'),
      HOST: '127.0.0.1',
      JWT_SECRET: 'release-registry-test-secret-0123456789-abcdef',
      LOG_LEVEL: 'silent',
    };
    const seeded = spawnSync(process.execPath, [cli, 'seed', '--json'], { env: refEnv, encoding: 'utf8' });
    expect(seeded.status, seeded.stderr).toBe(0);
    const account = (JSON.parse(seeded.stdout) as { accounts: Array<{ api_keys: Array<Record<string, string>> }> })
      .accounts[0]!;
    const key = account.api_keys.find((k) => k.area === 'manager' && k.env === 'test')!.api_key!;
    const port = await sparePort();
    const server = spawn(process.execPath, [cli, 'serve'], { env: { ...refEnv, PORT: String(port) }, stdio: 'ignore' });
    children.push(server);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitFor(`${baseUrl}/health`, server, 'the reference server');

    expect(example).toContain("'http://127.0.0.1:4010'");
    expect(example).toContain("'manager_test_mock'");
    writeFileSync(
      join(consumer, 'example.mjs'),
      example!.replace("'http://127.0.0.1:4010'", `'${baseUrl}'`).replace("'manager_test_mock'", `'${key}'`),
    );
    const { stdout } = await run(process.execPath, ['example.mjs'], { cwd: consumer });
    const lines = stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^\S+ \d+ \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('runs npx cls-contract --help from the installed kit', async () => {
    const { stdout } = await run('npx', ['--no-install', 'cls-contract', '--help'], { cwd: consumer, env });
    expect(stdout).toMatch(/--base-url/);
  });

  it('runs npx cls-mcp --help from the installed MCP server', async () => {
    const { stdout } = await run('npx', ['--no-install', 'cls-mcp', '--help'], { cwd: consumer, env });
    expect(stdout).toMatch(/--allow-writes/);
  });
});

describe('after the release, in the released copy', () => {
  const node = (args: string[]) =>
    spawnSync(process.execPath, args, { cwd: copy, env, encoding: 'utf8', timeout: 600_000 });
  const bundle = () => {
    const r = spawnSync('pnpm', ['--filter', '@cls-api/spec', 'bundle'], { cwd: copy, env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  };
  const editYaml = (file: string, edit: (doc: Record<string, any>) => void) => {
    const path = join(copy, file);
    const doc = YAML.parse(readFileSync(path, 'utf8'));
    edit(doc);
    writeFileSync(path, YAML.stringify(doc));
  };
  const released = () => releasedVersion(root);

  it('a command that fails after versioning stops the release, and the version changes are undone', () => {
    // The contract's info.version as a value on a line of its own: valid YAML the release cannot set, so versioning
    // fails after `changeset version` has moved the packages and consumed the changeset.
    const spec = join(copy, 'spec', 'openapi.yaml');
    const text = readFileSync(spec, 'utf8');
    const unsettable = text.replace(/^(info:\n(?:[ ]{2}.*\n)*?[ ]{2}version:)[ ]*(\S+)$/m, '$1\n    $2');
    expect(unsettable).not.toBe(text);
    writeFileSync(spec, unsettable);
    writeFileSync(join(copy, '.changeset', 'a-fix.md'), '---\n"@cls-api/spec": patch\n---\n\nA fix.\n');
    git(copy, ['add', '.changeset/a-fix.md']);
    git(copy, [...commit, '-m', 'an info.version the release cannot set']);
    const state = () => ({
      status: git(copy, ['status', '--porcelain']),
      head: git(copy, ['rev-parse', 'HEAD']),
      tags: git(copy, ['tag', '--list']),
    });
    const committed = state();
    try {
      const r = node(['apps/release/dist/release.js', '--skip-build']);
      expect(r.status, r.stdout + r.stderr).toBe(1);
      const next = released().replace(/\d+$/, (patch) => String(Number(patch) + 1));
      expect(r.stdout).toContain(`release: versioning: ${released()} → ${next} (patch)\n`);
      expect(r.stderr).toBe(
        [
          `release: no info.version line in ${spec}`,
          'release: the version changes are undone: the working tree is as it was',
          'release: stopped before committing and tagging anything',
          '',
        ].join('\n'),
      );
      expect(state()).toEqual(committed);
    } finally {
      git(copy, ['reset', '-q', '--hard', 'HEAD~1']);
    }
  });

  it('a package whose types name a missing file stops the release, each problem named, nothing tagged', () => {
    const manifest = join(copy, 'packages', 'client', 'package.json');
    const original = readFileSync(manifest, 'utf8');
    const pkg = JSON.parse(original);
    pkg.exports['.'].types = './dist/src/gone.d.ts';
    writeFileSync(manifest, JSON.stringify(pkg, null, 2));
    try {
      const tags = git(copy, ['tag', '--list']);
      const r = node(['apps/release/dist/release.js', '--dry-run', '--skip-build']);
      expect(r.status, r.stdout + r.stderr).toBe(1);
      expect(r.stderr).toContain(`release: @cls-api/client@${released()} fails its checks as packed:\n`);
      expect(r.stderr).toMatch(/^ {2}publint: .*gone\.d\.ts.*does not exist/m);
      expect(r.stderr).toMatch(/^ {2}attw: .*entrypoint \., resolutionKind bundler/m);
      expect(r.stderr).toMatch(/^release: stopped before committing and tagging anything$/m);
      // The other packages pass: only the failing one is named, and the message is not a stack trace.
      expect(r.stderr.match(/fails its checks/g)).toHaveLength(1);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(git(copy, ['tag', '--list'])).toBe(tags);
    } finally {
      writeFileSync(manifest, original);
    }
  });

  it('an added optional field is a minor release: the dry run shows the next minor of every package', () => {
    editYaml('spec/components/schemas/ManagerOrderListItem.yaml', (d) => {
      d.properties.note = { description: 'A note.', type: 'string', maxLength: 100 };
    });
    bundle();
    const gate = node(['apps/release/dist/breaking.js']);
    expect(gate.status, gate.stdout).toBe(0);
    expect(gate.stdout).toMatch(new RegExp(`^contract changes since v${released()}: 0 breaking`, 'm'));
    expect(gate.stdout).toMatch(
      /^NON-BREAKING\s+GET \/v3\/manager\/orders\s+response 200 body data\[\]\.note\s+added$/m,
    );
    const dry = node(['apps/release/dist/release.js', '--dry-run', '--skip-build']);
    expect(dry.status, dry.stderr).toBe(0);
    const next = released().replace(/^(\d+)\.(\d+)\.\d+$/, (_, a, b) => `${a}.${Number(b) + 1}.0`);
    for (const p of publicPackages(root)) expect(dry.stdout).toContain(`${p.name}@${next} (from ${released()})`);
    expect(git(copy, ['status', '--porcelain'])).not.toMatch(/\.changeset\//);
  });

  // A cold build of the spec and the release app through turbo on top of the rest: minutes on a busy 2-core machine.
  it('a removed operation fails the gate, pnpm breaking included, and versions as a major once a major changeset says so', {
    timeout: 900_000,
  }, () => {
    editYaml('spec/openapi.yaml', (d) => {
      delete d.paths['/v3/manager/orders'];
    });
    bundle();
    const gate = node(['apps/release/dist/breaking.js']);
    expect(gate.status).toBe(1);
    expect(gate.stdout).toMatch(/^BREAKING\s+GET \/v3\/manager\/orders\s+operation\s+cannot remove an operation$/m);
    // The root command as a contributor runs it, building first what the gate runs on (turbo): the spec and the
    // release app, not the reference server, whose stubs no longer compile without the operation.
    const command = spawnSync('pnpm', ['-s', 'breaking', '--base', 'HEAD'], {
      cwd: copy,
      env,
      encoding: 'utf8',
      timeout: 600_000,
    });
    expect(command.status, command.stdout + command.stderr).toBe(1);
    expect(command.stdout).toMatch(/^contract changes since HEAD: [1-9]\d* breaking/m);
    expect(command.stdout).toMatch(/^BREAKING\s+GET \/v3\/manager\/orders\s+operation\s+cannot remove an operation$/m);
    expect(node(['apps/release/dist/release.js', '--dry-run', '--skip-build']).status).toBe(1);

    writeFileSync(
      join(copy, '.changeset', 'drop-manager-order-list.md'),
      '---\n"@cls-api/spec": major\n---\n\nThe manager order list is gone.\n',
    );
    const versioned = node(['apps/release/dist/release.js', '--version-only']);
    expect(versioned.status, versioned.stdout + versioned.stderr).toBe(0);
    const major = `${Number(released().split('.')[0]) + 1}.0.0`;
    // One fixed group: every public package moves to the same version, and the contract's info.version with them.
    for (const p of publicPackages(copy)) expect(p.version, p.name).toBe(major);
    expect(YAML.parse(readFileSync(join(copy, 'spec', 'openapi.yaml'), 'utf8')).info.version).toBe(major);
    const changelog = readFileSync(join(copy, 'packages', 'spec', 'CHANGELOG.md'), 'utf8');
    expect(changelog.indexOf(`## ${major}`)).toBeLessThan(changelog.indexOf(`## ${released()}`));
    expect(changelog).toContain('The manager order list is gone.');
    expect(changelog).toContain('- `GET /v3/manager/orders` `operation`: cannot remove an operation');
    expect(readFileSync(join(copy, 'packages', 'client', 'CHANGELOG.md'), 'utf8')).toContain(`## ${major}`);
    expect(readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md'))).toEqual([]);
  });
});
