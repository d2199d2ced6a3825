#!/usr/bin/env node
// Bundles the contract into dist/: openapi.json, openapi.yaml and openapi.dereferenced.json (`build` compiles src/).
//
//   node scripts/bundle.mjs [--spec <path/to/openapi.yaml>] [--strict] [--verbose]
//
// --spec     bundle another root document (default: <repo>/spec/openapi.yaml, or $CLS_SPEC_ENTRY)
// --strict   fail instead of using empty placeholders for missing markdown descriptions
// --verbose  print the Redocly CLI output even when it succeeds

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(pkgDir, '../..');
const distDir = path.join(pkgDir, 'dist');
const bin = (name) => path.join(pkgDir, 'node_modules', '.bin', name);

class BuildError extends Error {}

function parseArgs(argv) {
  const opts = {
    spec: process.env.CLS_SPEC_ENTRY || path.join(repoRoot, 'spec', 'openapi.yaml'),
    strict: false,
    verbose: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--strict') opts.strict = true;
    else if (arg === '--verbose') opts.verbose = true;
    else if (arg === '--spec') {
      if (!argv[i + 1]) throw new BuildError('--spec needs a path to the root OpenAPI document');
      opts.spec = path.resolve(argv[++i]);
    } else if (arg === '--help' || arg === '-h') {
      console.log('usage: node scripts/bundle.mjs [--spec <openapi.yaml>] [--strict] [--verbose]');
      process.exit(0);
    } else throw new BuildError(`unknown argument ${arg} (try --help)`);
  }
  return opts;
}

const rel = (p) => path.relative(process.cwd(), p) || '.';

function listFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full));
    else out.push(full);
  }
  return out;
}

function collectRefs(node, found = []) {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else collectRefs(value, found);
    }
  }
  return found;
}

// The guides are written by someone else in parallel; a missing one must not block the build of everything
// else, but it must never be created in spec/ itself, so placeholders only ever live in the snapshot.
function fillMissingMarkdown(snapshotDir, label, strict) {
  const missing = new Map();
  for (const file of listFiles(snapshotDir)) {
    if (!/\.(ya?ml|json)$/i.test(file)) continue;
    let doc;
    try {
      doc = YAML.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      continue; // Redocly reports unparsable files that are actually referenced, with their location
    }
    for (const ref of collectRefs(doc)) {
      const target = ref.split('#')[0];
      if (!/\.md$/i.test(target) || /^[a-z]+:/i.test(target)) continue;
      const abs = path.resolve(path.dirname(file), decodeURIComponent(target));
      if (!fs.existsSync(abs)) {
        const from = path.relative(snapshotDir, file);
        if (!missing.has(abs)) missing.set(abs, []);
        missing.get(abs).push(from);
      }
    }
  }
  const placeholders = [];
  for (const [abs, from] of missing) {
    const relPath = path.relative(snapshotDir, abs);
    if (relPath.startsWith('..')) {
      throw new BuildError(
        `markdown ${abs} (referenced from ${from.join(', ')}) does not exist and is outside the spec directory`,
      );
    }
    placeholders.push({ file: relPath, from });
    if (!strict) {
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, '');
    }
  }
  if (strict && placeholders.length > 0) {
    throw new BuildError(
      'missing markdown descriptions (--strict):\n' +
        placeholders.map((p) => `  ${label}/${p.file}  (referenced from ${p.from.join(', ')})`).join('\n'),
    );
  }
  return placeholders;
}

// Redocly reports locations inside the snapshot; point them back at the files people actually edit.
function runRedocly(args, cwd, verbose, snapshot, specDir) {
  const res = spawnSync(bin('redocly'), args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  if (res.error) throw new BuildError(`could not run ${bin('redocly')}: ${res.error.message}`);
  // Drop the Node 20 deprecation box: it is noise on every run and hides the actual diagnostics.
  const output = `${res.stdout}\n${res.stderr}`
    .split('\n')
    .filter((line) => !/^\s*[║╔╚╟╠╗╝]/.test(line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .split(snapshot)
    .join(specDir)
    .trim();
  if (res.status !== 0) {
    const shown = args.map((a) => a.split(snapshot).join(specDir).split(cwd).join('<tmp>')).join(' ');
    throw new BuildError(`redocly ${shown} failed (exit ${res.status}):\n${output}`);
  }
  if (verbose || /warning/i.test(output)) console.log(output);
}

function findRefs(node, pointer = '#', found = []) {
  if (Array.isArray(node)) node.forEach((item, i) => findRefs(item, `${pointer}/${i}`, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      const here = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (key === '$ref' && typeof value === 'string') found.push({ at: pointer, ref: value });
      else findRefs(value, here, found);
    }
  }
  return found;
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BuildError(`Redocly wrote ${file}, but it is not JSON: ${err.message}`);
  }
}

function checkBundle(doc, deref) {
  if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.1')) {
    throw new BuildError(`the bundle is not OpenAPI 3.1 (openapi: ${JSON.stringify(doc.openapi)})`);
  }
  const external = findRefs(doc).filter((r) => !r.ref.startsWith('#/'));
  if (external.length > 0) {
    throw new BuildError(
      'the bundle still has external $refs:\n' + external.map((r) => `  ${r.at}: ${r.ref}`).join('\n'),
    );
  }
  const left = findRefs(deref);
  if (left.length > 0) {
    // Redocly keeps a $ref where dereferencing would recurse forever; consumers of this file expect none.
    throw new BuildError(
      'the dereferenced bundle still has $refs (circular schemas?):\n' +
        left.slice(0, 20).map((r) => `  ${r.at}: ${r.ref}`).join('\n'),
    );
  }
  const schemas = Object.keys(doc.components?.schemas ?? {});
  if (schemas.length === 0) throw new BuildError('the bundle has no named components.schemas');
  const renamed = schemas.filter((name) => /-\d+$/.test(name));
  if (renamed.length > 0) {
    throw new BuildError(`Redocly renamed clashing components: ${renamed.join(', ')} (two files share a name)`);
  }
}

const DOCUMENTS = ['openapi.json', 'openapi.yaml', 'openapi.dereferenced.json'];

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opts.spec)) throw new BuildError(`root document not found: ${opts.spec}`);
  for (const tool of ['redocly']) {
    if (!fs.existsSync(bin(tool))) {
      throw new BuildError(`${bin(tool)} is missing: run pnpm install in the repository root`);
    }
  }

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cls-spec-bundle-'));
  // The staging directory sits next to dist/ so each final move is a rename on one file system.
  const staging = fs.mkdtempSync(path.join(pkgDir, '.dist-staging-'));
  try {
    // Bundle a snapshot: paths/ is edited while builds run, and a half-copied tree must not mix two states.
    const snapshot = path.join(work, 'spec');
    fs.cpSync(path.dirname(opts.spec), snapshot, {
      recursive: true,
      filter: (src) => !src.split(path.sep).includes('node_modules'),
    });
    const entry = path.join(snapshot, path.basename(opts.spec));
    const specLabel = rel(path.dirname(opts.spec));
    const placeholders = fillMissingMarkdown(snapshot, specLabel, opts.strict);

    const redoclyArgs = ['--component-renaming-conflicts-severity', 'error'];
    const config = path.join(repoRoot, 'redocly.yaml');
    if (fs.existsSync(config)) redoclyArgs.push('--config', config);

    const bundled = path.join(work, 'openapi.json');
    const dereferenced = path.join(work, 'openapi.dereferenced.json');
    const specDir = path.dirname(opts.spec);
    runRedocly(['bundle', entry, '--output', bundled, '--ext', 'json', ...redoclyArgs], work, opts.verbose, snapshot, specDir);
    runRedocly(
      ['bundle', entry, '--output', dereferenced, '--ext', 'json', '--dereferenced', ...redoclyArgs],
      work,
      opts.verbose,
      snapshot,
      specDir,
    );

    const doc = readJson(bundled);
    const deref = readJson(dereferenced);
    checkBundle(doc, deref);

    fs.writeFileSync(path.join(staging, 'openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
    // YAML is written from the same object as the JSON so the two files can never disagree.
    fs.writeFileSync(
      path.join(staging, 'openapi.yaml'),
      YAML.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 }),
    );
    fs.writeFileSync(path.join(staging, 'openapi.dereferenced.json'), `${JSON.stringify(deref, null, 2)}\n`);

    // Only the three documents are replaced: dist/ also holds the compiled helpers, which `build` (tsc) owns.
    fs.mkdirSync(distDir, { recursive: true });
    for (const name of DOCUMENTS) fs.renameSync(path.join(staging, name), path.join(distDir, name));

    const sizes = DOCUMENTS.map((name) => `  ${rel(path.join(distDir, name))}  ${fs.statSync(path.join(distDir, name)).size} bytes`);
    const count = (o) => Object.keys(o ?? {}).length;
    console.log(`bundled ${rel(opts.spec)}: ${count(doc.paths)} paths, ${count(doc.components?.schemas)} schemas`);
    console.log(`wrote:\n${sizes.join('\n')}`);
    if (placeholders.length > 0) {
      console.warn(
        `WARNING: ${placeholders.length} markdown description(s) missing; bundled with empty placeholders ` +
          `(${specLabel}/ was not changed):\n` +
          placeholders.map((p) => `  ${specLabel}/${p.file}  (referenced from ${p.from.join(', ')})`).join('\n'),
      );
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

try {
  main();
} catch (err) {
  if (err instanceof BuildError) {
    console.error(`bundle: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
