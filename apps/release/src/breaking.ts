#!/usr/bin/env node
// `pnpm breaking [--base REF]`: the contract of the working tree (the built bundle) against the one at REF
// (default: the last release tag, else origin/main, else HEAD~1), every change classified, and exit 1 when a
// breaking change has no major changeset for @cls-api/spec. Options: USAGE below.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSpec, type OpenApiDocument } from '@cls-api/spec';
import { readChangesets } from './changesets.js';
import { commandLine } from './command-line.js';
import { classifyChanges } from './gate.js';
import { bundleAtRef, defaultBase, repoRoot } from './repo.js';
import { verdict } from './verdict.js';

const USAGE = `Usage: pnpm breaking [--base REF] [--base-file FILE --head-file FILE] [--changesets DIR] [--root DIR]

Compares the contract of the working tree (the built bundle) with the one at REF, classifies every change, and exits
1 when a breaking change has no major changeset for @cls-api/spec.

  --base REF          the commit to compare with (default: the last release tag, else origin/main, else HEAD~1)
  --base-file FILE    compare this bundled openapi.json instead of the one at REF
  --head-file FILE    against this bundled openapi.json instead of the working tree's
  --changesets DIR    the pending changesets (default: <root>/.changeset)
  --root DIR          the repository (default: the one holding the working directory)
  -h, --help          show this help`;

const values = commandLine('breaking', USAGE, {
  base: { type: 'string' },
  'base-file': { type: 'string' },
  'head-file': { type: 'string' },
  changesets: { type: 'string' },
  root: { type: 'string' },
});
const root = values.root ?? repoRoot(process.cwd());
const readDoc = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;

let base: OpenApiDocument;
let baseLabel: string;
if (values['base-file']) {
  base = readDoc(values['base-file']);
  baseLabel = values['base-file'];
} else {
  const ref = values.base ?? defaultBase(root);
  if (!ref) {
    console.log('breaking: no release tag, origin/main or HEAD~1 to compare with; nothing to check');
    process.exit(0);
  }
  base = bundleAtRef(root, ref);
  baseLabel = ref;
}
const head = values['head-file'] ? readDoc(values['head-file']) : loadSpec();
const changes = await classifyChanges(base, head);
const result = verdict(changes, readChangesets(values.changesets ?? join(root, '.changeset')), baseLabel);
for (const line of result.lines) console.log(line);
process.exit(result.ok ? 0 : 1);
