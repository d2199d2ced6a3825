#!/usr/bin/env node
// `pnpm breaking [--base REF]`: the contract of the working tree (the built bundle) against the one at REF
// (default: the last release tag, else origin/main, else HEAD~1), every change classified, and exit 1 when a
// breaking change has no major changeset for @cls-api/spec.
//
//   --base-file / --head-file <openapi.json>  compare two bundles instead (what the gate's tests do)
//   --changesets <dir>                        the pending changesets (default: <root>/.changeset)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadSpec, type OpenApiDocument } from '@cls-api/spec';
import { readChangesets } from './changesets.js';
import { classifyChanges } from './gate.js';
import { bundleAtRef, defaultBase, repoRoot } from './repo.js';
import { verdict } from './verdict.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    'base-file': { type: 'string' },
    'head-file': { type: 'string' },
    changesets: { type: 'string' },
    root: { type: 'string' },
  },
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
