#!/usr/bin/env node
// Bundles the contract into dist/: openapi.json, openapi.yaml and openapi.dereferenced.json; and the reference
// sandbox's document (sandbox/openapi.yaml beside the contract's root, when there is one) into sandbox.json,
// sandbox.yaml and sandbox.dereferenced.json (`build` compiles src/).
//
//   node scripts/bundle.mjs [--spec <path/to/openapi.yaml>] [--verbose]
//
// --spec     bundle another root document (default: <repo>/spec/openapi.yaml, or $CLS_SPEC_ENTRY)
// --verbose  print the Redocly CLI output even when it succeeds

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { withoutNodeNotice } from './tool-output.mjs';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(pkgDir, '../..');
const distDir = path.join(pkgDir, 'dist');
const bin = (name) => path.join(pkgDir, 'node_modules', '.bin', name);

class BuildError extends Error {}

function parseArgs(argv) {
  const opts = {
    spec: process.env.CLS_SPEC_ENTRY || path.join(repoRoot, 'spec', 'openapi.yaml'),
    verbose: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--verbose') opts.verbose = true;
    else if (arg === '--spec') {
      if (!argv[i + 1]) throw new BuildError('--spec needs a path to the root OpenAPI document');
      opts.spec = path.resolve(argv[++i]);
    } else if (arg === '--help' || arg === '-h') {
      console.log('usage: node scripts/bundle.mjs [--spec <openapi.yaml>] [--verbose]');
      process.exit(0);
    } else throw new BuildError(`unknown argument ${arg} (try --help)`);
  }
  return opts;
}

const rel = (p) => path.relative(process.cwd(), p) || '.';

function runRedocly(args, cwd, verbose) {
  const res = spawnSync(bin('redocly'), args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  if (res.error) throw new BuildError(`could not run ${bin('redocly')}: ${res.error.message}`);
  const output = withoutNodeNotice(`${res.stdout}\n${res.stderr}`)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (res.status !== 0) {
    const shown = args.map((a) => a.split(cwd).join('<tmp>')).join(' ');
    throw new BuildError(`redocly ${shown} failed (exit ${res.status}):\n${output}`);
  }
  if (verbose || /warning/i.test(output)) console.log(output);
}

function findRefs(node, pointer = '#', found = []) {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) findRefs(item, `${pointer}/${i}`, found);
  } else if (node && typeof node === 'object') {
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
      `the bundle still has external $refs:\n${external.map((r) => `  ${r.at}: ${r.ref}`).join('\n')}`,
    );
  }
  const left = findRefs(deref);
  if (left.length > 0) {
    // Redocly keeps a $ref where dereferencing would recurse forever; consumers of this file expect none.
    throw new BuildError(
      'the dereferenced bundle still has $refs (circular schemas?):\n' +
        left
          .slice(0, 20)
          .map((r) => `  ${r.at}: ${r.ref}`)
          .join('\n'),
    );
  }
  const schemas = Object.keys(doc.components?.schemas ?? {});
  if (schemas.length === 0) throw new BuildError('the bundle has no named components.schemas');
  const renamed = schemas.filter((name) => /-\d+$/.test(name));
  if (renamed.length > 0) {
    throw new BuildError(`Redocly renamed clashing components: ${renamed.join(', ')} (two files share a name)`);
  }
}

const KINDS = ['json', 'yaml', 'dereferenced.json'];

// Bundles one root document into dist/<name>.json, .yaml and .dereferenced.json.
function bundleDocument(root, name, opts) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cls-spec-bundle-'));
  try {
    const redoclyArgs = ['--component-renaming-conflicts-severity', 'error'];
    const config = path.join(repoRoot, 'redocly.yaml');
    if (fs.existsSync(config)) redoclyArgs.push('--config', config);

    const bundled = path.join(work, `${name}.json`);
    const dereferenced = path.join(work, `${name}.dereferenced.json`);
    runRedocly(['bundle', root, '--output', bundled, '--ext', 'json', ...redoclyArgs], work, opts.verbose);
    runRedocly(
      ['bundle', root, '--output', dereferenced, '--ext', 'json', '--dereferenced', ...redoclyArgs],
      work,
      opts.verbose,
    );

    const doc = readJson(bundled);
    const deref = readJson(dereferenced);
    // Every check runs before dist/ is touched, so a failed build leaves the last good documents in place.
    checkBundle(doc, deref);

    // Only the documents are written: dist/ also holds the compiled helpers, which `build` (tsc) owns.
    fs.mkdirSync(distDir, { recursive: true });
    // Each document is written beside its place and renamed into it: a test process reading dist/ while the
    // bundle is built again sees the old document or the new one, never a truncated file.
    // A write or rename that fails takes its temporary file with it: dist/ is what the package publishes.
    const put = (file, text) => {
      const temp = path.join(distDir, `.${file}.${process.pid}.tmp`);
      try {
        fs.writeFileSync(temp, text);
        fs.renameSync(temp, path.join(distDir, file));
      } catch (err) {
        fs.rmSync(temp, { force: true });
        throw err;
      }
    };
    put(`${name}.json`, `${JSON.stringify(doc, null, 2)}\n`);
    // YAML is written from the same object as the JSON so the two files can never disagree.
    put(`${name}.yaml`, YAML.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 }));
    put(`${name}.dereferenced.json`, `${JSON.stringify(deref, null, 2)}\n`);

    const sizes = KINDS.map((kind) => {
      const file = path.join(distDir, `${name}.${kind}`);
      return `  ${rel(file)}  ${fs.statSync(file).size} bytes`;
    });
    const count = (o) => Object.keys(o ?? {}).length;
    console.log(`bundled ${rel(root)}: ${count(doc.paths)} paths, ${count(doc.components?.schemas)} schemas`);
    console.log(`wrote:\n${sizes.join('\n')}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opts.spec)) throw new BuildError(`root document not found: ${opts.spec}`);
  for (const tool of ['redocly']) {
    if (!fs.existsSync(bin(tool))) {
      throw new BuildError(`${bin(tool)} is missing: run pnpm install in the repository root`);
    }
  }
  bundleDocument(opts.spec, 'openapi', opts);
  // The sandbox document refers to the contract's components by relative path, so it lives beside the root.
  const sandbox = path.join(path.dirname(opts.spec), 'sandbox', 'openapi.yaml');
  if (fs.existsSync(sandbox)) bundleDocument(sandbox, 'sandbox', opts);
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
