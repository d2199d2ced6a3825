#!/usr/bin/env node
// `pnpm release [--dry-run]`: build, gate, version (changesets), pack and check every public package, commit the
// versions and tag the commit `v<version>`; `pnpm release --publish`, once that tag is on `origin`, packs, checks
// and publishes every public package to the registry the ordinary npm configuration names (NPM_CONFIG_REGISTRY,
// .npmrc), in dependency order. Two commands, so that nothing reaches the registry before its tag is pushed: a
// push that fails leaves no published version without a tag (.github/workflows/release.yml runs them in that order).
//
// The contract's changes since the last release tag become a changeset of their own (written in the API's words
// by the gate's classifier), so the contract's changelog is generated from the spec diff plus the changesets.
// The public packages are one `fixed` group (.changeset/config.json): a package generated from the spec is released
// whenever the spec it embeds changes, and `info.version` follows @cls-api/spec's version. Options: USAGE below.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { loadSpec } from '@cls-api/spec';
import { type Bump, bumpFor, bumpVersion, readChangesets, SPEC_PACKAGE } from './changesets.js';
import { contractChangeset } from './changelog.js';
import { commandLine } from './command-line.js';
import { classifyChanges } from './gate.js';
import { bundleAtRef, git, lastReleaseTag, publicPackages, repoRoot, syncContractVersion } from './repo.js';
import { tarballProblems } from './tarball-checks.js';
import { verdict } from './verdict.js';

const USAGE = `Usage: pnpm release [--dry-run] [--skip-build] [--version-only] [--publish]

Builds and gates the contract against the last release tag, versions every public package (changesets), packs and
checks them, commits the versions and tags the commit v<version>. Push the commit and the tag, then publish them
with --publish.

  --dry-run       show what would be versioned, tagged and published; change, publish and tag nothing
  --skip-build    the packages are built already
  --version-only  gate and version (changesets, info.version), then stop: no build, pack, commit or tag
  --publish       publish the version of the checked-out commit, once its tag v<version> is on origin: pack, check
                  and publish every public package to the registry npm is configured with, in dependency order
  -h, --help      show this help`;

const values = commandLine('release', USAGE, {
  'dry-run': { type: 'boolean', default: false },
  'skip-build': { type: 'boolean', default: false },
  'version-only': { type: 'boolean', default: false },
  publish: { type: 'boolean', default: false },
});
const dryRun = values['dry-run'] ?? false;
const versionOnly = values['version-only'] ?? false;
const publishOnly = values.publish ?? false;
const root = repoRoot(process.cwd());
const changesetDir = join(root, '.changeset');
const say = (line: string) => console.log(`release: ${line}`);

const shEnv = { ...process.env, TURBO_TELEMETRY_DISABLED: '1' };
const shFailed = (cmd: string, args: string[], cwd: string, r: { code?: unknown; stdout?: string; stderr?: string }) =>
  new Error(`${cmd} ${args.join(' ')} failed (exit ${r.code}) in ${cwd}:\n${r.stdout ?? ''}\n${r.stderr ?? ''}`);

function sh(cmd: string, args: string[], cwd = root): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: shEnv });
  if (r.status !== 0) throw shFailed(cmd, args, cwd, { ...r, code: r.status });
  return r.stdout;
}

const execFileAsync = promisify(execFile);

/** `sh` without waiting on the process: for the steps of one package that run beside another package's. */
async function shAsync(cmd: string, args: string[], cwd = root): Promise<string> {
  try {
    return (await execFileAsync(cmd, args, { cwd, encoding: 'utf8', env: shEnv, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (e) {
    throw shFailed(cmd, args, cwd, e as { code?: unknown; stdout?: string; stderr?: string });
  }
}

// What is packed and what it is built from: the public packages and, through turbo's graph, what they depend on.
// The apps are not released; the site job builds the documentation itself (.github/workflows/release.yml).
const build = () => {
  const filters = publicPackages(root).flatMap((p) => ['--filter', p.name]);
  say('building the public packages (turbo)');
  sh('pnpm', ['exec', 'turbo', 'run', 'build', ...filters, '--output-logs=errors-only']);
};

if (publishOnly && (dryRun || versionOnly)) {
  console.error(`release: --publish cannot be combined with --dry-run or --version-only\n\n${USAGE}`);
  process.exit(2);
}

// Whether this run has changed a working tree it found committed (versions, changelogs, changesets): a refusal or a
// failure before the commit undoes it.
let versioning = false;

// A release commits what versioning changes, and only that: it starts from a committed working tree. Publishing
// publishes a tagged commit as it is.
if (!dryRun && !versionOnly && git(root, ['status', '--porcelain'])) {
  console.error('release: the working tree has uncommitted changes; commit or stash them first');
  process.exit(1);
}
// Publishing builds once the tag is known to be on origin: a refused publish costs no build.
if (!values['skip-build'] && !versionOnly && !publishOnly) build();

if (publishOnly) {
  const version = publicPackages(root).find((p) => p.name === SPEC_PACKAGE)?.version;
  const tagName = `v${version}`;
  const head = git(root, ['rev-parse', 'HEAD']);
  const local = spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/tags/${tagName}^{commit}`], {
    cwd: root,
    encoding: 'utf8',
  }).stdout.trim();
  if (local !== head) {
    console.error(`release: the checked-out commit is not tagged ${tagName}: version and tag it first (pnpm release)`);
    process.exit(1);
  }
  // The tag as origin has it: a tag that was never pushed (or a push that failed) publishes nothing.
  const remote = spawnSync('git', ['ls-remote', 'origin', `refs/tags/${tagName}^{}`, `refs/tags/${tagName}`], {
    cwd: root,
    encoding: 'utf8',
  });
  const atHead = [`${head}\trefs/tags/${tagName}^{}`, `${head}\trefs/tags/${tagName}`];
  const pushed = remote.status === 0 && remote.stdout.split('\n').some((line) => atHead.includes(line.trim()));
  if (!pushed) {
    console.error(`release: origin has no tag ${tagName} at ${head.slice(0, 7)}: push the commit and the tag first`);
    process.exit(1);
  }
  if (!values['skip-build']) build();
  await withTarballs((tarballs) => publish(tarballs));
  process.exit(0);
}

// 1. The gate, against the last release: a breaking change needs a major changeset.
const tag = lastReleaseTag(root);
let generatedBump: Bump | undefined;
let generatedText: string | undefined;
if (tag) {
  const changes = await classifyChanges(bundleAtRef(root, tag), loadSpec());
  const result = verdict(changes, readChangesets(changesetDir), tag);
  for (const line of result.lines) console.log(line);
  if (!result.ok) process.exit(1);
  if (changes.length > 0) {
    generatedBump = changes.some((c) => c.kind === 'breaking') ? 'major' : 'minor';
    generatedText = contractChangeset(changes, tag, generatedBump);
  }
} else {
  say('no release tag yet: this is the first release, nothing to compare the contract with');
}

// 2. Versions: the pending changesets (and the contract's own) through `changeset version`.
const pending = readChangesets(changesetDir);
const packages = publicPackages(root);
const current = packages.find((p) => p.name === SPEC_PACKAGE)?.version;
if (!current) throw new Error(`${SPEC_PACKAGE} is not a public package of ${root}`);
const bumps = [bumpFor(pending, SPEC_PACKAGE), generatedBump, ...packages.map((p) => bumpFor(pending, p.name))];
const rank = { patch: 0, minor: 1, major: 2 } as const;
const bump = bumps.filter((b): b is Bump => !!b).sort((a, b) => rank[b] - rank[a])[0];
const version = bump ? bumpVersion(current, bump) : current;

// From here on a real run changes the working tree it found committed: whatever stops it before the commit, a
// check that refuses a package (withTarballs) or a command that fails (the build, the pack, `changeset version`),
// puts that tree back as the commit has it.
const startHead = git(root, ['rev-parse', 'HEAD']);
try {
  if (bump && !dryRun) {
    // --version-only may run on a working tree with changes of the user's own: nothing there is undone.
    versioning = !versionOnly;
    if (generatedText) writeFileSync(join(changesetDir, `contract-since-${tag}.md`), generatedText);
    say(`versioning: ${current} → ${version} (${bump})`);
    sh('pnpm', ['exec', 'changeset', 'version']);
    syncContractVersion(root, version);
    if (!versionOnly) build();
  }
  if (versionOnly) {
    say(bump ? `versioned ${version}` : `nothing to version: ${current} has no pending changesets`);
    process.exit(0);
  }

  // 3-4. Pack and check (a package that fails its checks is never tagged), then commit and tag.
  await withTarballs((tarballs) => {
    if (dryRun) {
      const registry = sh('npm', ['config', 'get', 'registry']).trim();
      say(`dry run: would tag v${version}, then publish ${tarballs.length} packages at ${version} to ${registry}`);
      return;
    }
    commitAndTag();
  });
} catch (error) {
  if (!versioning || git(root, ['rev-parse', 'HEAD']) !== startHead) throw error;
  console.error(`release: ${error instanceof Error ? error.message : String(error)}`.trimEnd());
  undoVersioning();
  console.error('release: the version changes are undone: the working tree is as it was');
  console.error('release: stopped before committing and tagging anything');
  process.exit(1);
}

type Tarball = { name: string; version: string; tarball: string };

/**
 * Packs and checks every public package into a temp dir, which goes whatever `use` does. A package that fails its
 * checks is named with each problem, and the release stops there (exit 1): `use` never sees a tarball set with one.
 */
async function withTarballs(use: (tarballs: Tarball[]) => void): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'cls-release-'));
  let refused: string[] = [];
  try {
    const packed = await packAndCheck(work);
    if ('refused' in packed) refused = packed.refused;
    else use(packed.tarballs);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (refused.length) {
    for (const line of refused) console.error(line);
    // Not with --version-only, which never packs, nor --publish, which publishes a tagged commit as it is.
    if (versioning) {
      undoVersioning();
      console.error('release: the version changes are undone: the working tree is as it was');
    }
    console.error(`release: stopped before ${publishOnly ? 'publishing' : 'committing and tagging'} anything`);
    process.exit(1);
  }
}

async function packAndCheck(work: string): Promise<{ tarballs: Tarball[] } | { refused: string[] }> {
  // Every public package, in dependency order, packed by one pnpm (workspace ranges become versions), then checked
  // side by side in this process (none reads another's tarball); the list and its lines keep that order, and every
  // package that fails is named, once every check has ended.
  // Read again, not the list read at the start: versioning has moved their versions since.
  const versioned = publicPackages(root);
  const output = await shAsync('pnpm', [
    '--recursive',
    ...versioned.flatMap((p) => ['--filter', p.name]),
    'pack',
    '--pack-destination',
    work,
    '--json',
  ]);
  let packed: Array<{ name: string; filename: string; files: unknown[] }>;
  try {
    packed = JSON.parse(output);
  } catch {
    throw new Error(`pnpm pack printed no list of the tarballs it packed:\n${output}`);
  }
  const checked = await Promise.all(
    versioned.map(async (pkg) => {
      const pack = packed.find((p) => p.name === pkg.name);
      if (!pack) throw new Error(`pnpm packed no tarball of ${pkg.name}`);
      return { pkg, pack, problems: await tarballProblems(pack.filename, dataSubpaths(pkg.dir)) };
    }),
  );
  const refused = checked
    .filter((c) => c.problems.length)
    .flatMap(({ pkg, problems }) => [
      `release: ${pkg.name}@${pkg.version} fails its checks as packed:`,
      ...problems.map((p) => `  ${p}`),
    ]);
  if (refused.length) return { refused };
  const tarballs: Tarball[] = [];
  for (const { pkg, pack } of checked) {
    const shown = dryRun && bump ? `${pkg.name}@${version} (from ${pkg.version})` : `${pkg.name}@${pkg.version}`;
    console.log(`  ${shown}  ${pack.files.length} files  ${pack.filename.split('/').at(-1)}`);
    tarballs.push({ name: pkg.name, version: pkg.version, tarball: pack.filename });
  }
  say(`publint and attw: no problems in ${tarballs.length} tarballs`);
  return { tarballs };
}

/** Publishes what the registry does not have yet (a publish interrupted halfway can be run again). */
function publish(tarballs: Tarball[]): void {
  const registry = sh('npm', ['config', 'get', 'registry']).trim();
  for (const t of tarballs) {
    const seen = spawnSync('npm', ['view', `${t.name}@${t.version}`, 'version'], { cwd: root, encoding: 'utf8' });
    if (seen.status === 0 && seen.stdout.trim() === t.version) {
      say(`${t.name}@${t.version} is already on ${registry}`);
      continue;
    }
    sh('npm', ['publish', t.tarball, '--access', 'public', '--tag', 'latest'], dirname(t.tarball));
    say(`published ${t.name}@${t.version} to ${registry}`);
  }
}

/**
 * Puts back what versioning changed: the edited and deleted files as the commit has them, and the files it made
 * removed. The run started from a committed working tree, so every change there is its own; ignored files (the
 * builds) stay.
 */
function undoVersioning(): void {
  git(root, ['checkout', 'HEAD', '--', '.']);
  git(root, ['clean', '-d', '--force', '--quiet', '--', '.']);
}

/** Commits what versioning changed, and tags the release (once: a release run again finds its tag). */
function commitAndTag(): void {
  if (git(root, ['status', '--porcelain'])) {
    git(root, ['add', '-A']);
    git(root, ['commit', '-m', `Release v${version}`]);
  }
  if (spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/tags/v${version}`], { cwd: root }).status === 0) {
    say(`v${version} is tagged already`);
    return;
  }
  git(root, ['tag', '-a', `v${version}`, '-m', `Release v${version}`]);
  say(`tagged ${git(root, ['rev-parse', '--short', 'HEAD'])} v${version}`);
}

/**
 * The subpaths of the package's `exports` that name a data file other than JSON (@cls-api/spec's `./openapi.yaml`):
 * they have no types for "are the types wrong" to check.
 */
function dataSubpaths(dir: string): string[] {
  const exports = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).exports ?? {};
  return Object.entries(exports)
    .filter(([, target]) => typeof target === 'string' && !/\.(js|json)$/.test(target))
    .map(([subpath]) => subpath);
}
