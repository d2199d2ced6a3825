// The samples of every operation page (the curl and TypeScript samples of x-codeSamples, src/samples.ts) run as
// written against the local sandbox, the reference server with demo data, with the variables "Getting started"
// tells a reader to set: curl through bash, TypeScript compiled with the repository's strict settings and run with
// node. Each runs twice in a row, from a shell that holds only those variables, so a sample that reads an
// identifier reads it itself (an earlier call written into it) and a sample that writes writes a fresh one.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { operations, type OpenApiDocument } from '@cls-api/spec';
import type { CodeBlock } from '../src/code-blocks.js';
import { docsSpecPath } from '../src/paths.js';
import { SAMPLE_LABELS, type CodeSample } from '../src/samples.js';
import { compileTypeScript, resetShell, runShell, runTypeScript, workDir } from './run-samples.js';
import { useSandbox } from './sandbox.js';

const sandbox = useSandbox();

// The document the site shows (written by the global setup's build), so what runs is what a reader copies.
const docs = JSON.parse(readFileSync(docsSpecPath, 'utf8')) as OpenApiDocument;
const pages = operations(docs).map((op) => {
  const samples = docs.paths![op.path]![op.method]!['x-codeSamples'] as CodeSample[];
  const of = (label: string) => samples.find((s) => s.label === label)!.source;
  return { id: op.operationId, curl: of(SAMPLE_LABELS.curl), ts: of(SAMPLE_LABELS.typescript) };
});

const block = (language: CodeBlock['language'], source: string): CodeBlock => ({
  info: language === 'shell' ? 'bash' : 'typescript',
  language,
  source: `${source.trimEnd()}\n`,
  line: 1,
  mark: { kind: 'run' },
});

describe('the samples of every operation page against the local sandbox', () => {
  const dir = workDir('operation-pages');
  let diagnostics = '';
  beforeAll(() => {
    diagnostics = compileTypeScript(dir, Object.fromEntries(pages.map((p) => [`${p.id}.ts`, p.ts])));
  });

  it('cover every operation, and the TypeScript samples compile with strict settings', () => {
    expect(pages.length).toBe(operations(docs).length);
    expect(pages.length).toBeGreaterThan(20);
    expect(diagnostics).toBe('');
  });

  it.each(pages.map((p) => [p.id, p] as const))('%s: the curl sample runs as written, twice', (id, page) => {
    for (const run of [1, 2]) {
      resetShell(dir);
      const result = runShell(block('shell', page.curl), dir, sandbox().env);
      expect(result.ok, `${id}, curl, run ${run}: ${result.problem}\n${result.output}`).toBe(true);
    }
  });

  it.each(pages.map((p) => [p.id, p] as const))('%s: the TypeScript sample runs as written, twice', (id, page) => {
    for (const run of [1, 2]) {
      const result = runTypeScript(block('typescript', page.ts), dir, `${id}.ts`, sandbox().env);
      expect(result.ok, `${id}, TypeScript, run ${run}: ${result.problem}\n${result.output}`).toBe(true);
    }
  });
});
