// The sandbox's guides (spec/sandbox/guides/, in the sandbox document) on the site: listed in a group of their own,
// and every sample of "Testing against the sandbox" run as written against the local sandbox, twice in a row, with
// the variables of "Getting started" (as test/guide-samples.test.ts runs the contract's guides). A sample resets the
// demo seller's test data to the demo data set, so this file has a sandbox of its own.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSandboxSpec, loadSpec } from '@cls-api/spec';
import { codeBlocks, type CodeBlock } from '../src/code-blocks.js';
import { docsSpec } from '../src/docs-spec.js';
import { SANDBOX_GROUP, SANDBOX_GUIDE_TAG, sandboxGuides } from '../src/sandbox-guides.js';
import { compileTypeScript, resetShell, runShell, runTypeScript, workDir } from './run-samples.js';
import { useSandbox } from './sandbox.js';

const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
const sandboxDoc = loadSandboxSpec();
const guide = sandboxGuides(sandboxDoc).find((g) => g.name === SANDBOX_GUIDE_TAG)!;
const blocks = codeBlocks(guide.description ?? '').filter(
  (b) => b.language !== 'other' && (b.mark.kind === 'run' || b.mark.kind === 'expect' || b.mark.kind === 'prints'),
);
const tsName = (b: CodeBlock) => `sandbox-guide-line-${b.line}.ts`;

const sandbox = useSandbox();

describe('the sandbox guides on the site', () => {
  it('are listed in a group of their own, named as the sandbox’s, after the contract’s guides', () => {
    const decisions = readFileSync(join(repoRoot, 'spec', 'DECISIONS.md'), 'utf8');
    const { doc } = docsSpec(loadSpec(), decisions, undefined, '/', sandboxDoc);
    const groups = doc['x-tagGroups'] as Array<{ name: string; tags: string[] }>;
    const group = groups.find((g) => g.name === SANDBOX_GROUP)!;
    expect(group.tags).toContain(SANDBOX_GUIDE_TAG);
    expect(groups.at(-1)).toBe(group);
    expect(groups.find((g) => g.name === 'Guides')!.tags).not.toContain(SANDBOX_GUIDE_TAG);
    const tag = (doc.tags as Array<{ name: string; description?: string }>).find((t) => t.name === SANDBOX_GUIDE_TAG);
    expect(tag?.description).toContain('the sandbox');
    // The contract itself stays the service's: the guide is in the site's copy only.
    const contractTags = (loadSpec().tags ?? []) as Array<{ name: string }>;
    expect(contractTags.map((t) => t.name)).not.toContain(SANDBOX_GUIDE_TAG);
  });

  it('"Testing against the sandbox" has samples in both languages, and each helper is shown', () => {
    expect(blocks.some((b) => b.language === 'shell')).toBe(true);
    expect(blocks.some((b) => b.language === 'typescript')).toBe(true);
    const all = blocks.map((b) => b.source).join('\n');
    for (const shown of ['/sandbox/reset', '/sandbox/clock', 'X-Sandbox-Outcome', 'client.sandbox.clock', 'sandbox:'])
      expect(all, shown).toContain(shown);
  });
});

describe('the samples of "Testing against the sandbox" against the local sandbox', () => {
  const dir = workDir('testing-against-the-sandbox');
  const ts = Object.fromEntries(blocks.filter((b) => b.language === 'typescript').map((b) => [tsName(b), b.source]));

  it('the TypeScript samples compile with strict settings', () => {
    expect(compileTypeScript(dir, ts)).toBe('');
  });

  it.each([1, 2])('run as written, in order (run %i)', (run) => {
    if (run === 1) resetShell(dir);
    for (const b of blocks) {
      const result =
        b.language === 'shell' ? runShell(b, dir, sandbox().env) : runTypeScript(b, dir, tsName(b), sandbox().env);
      expect(result.ok, `the ${b.info} sample at line ${b.line}: ${result.problem}\n${result.output}`).toBe(true);
    }
  });

  it('the clock sample meets RETURN_CANCEL_EXPIRED, and leaves the clock on real time', async () => {
    const clockSample = blocks.find((b) => b.language === 'typescript' && b.source.includes('clock.set'))!;
    const result = runTypeScript(clockSample, dir, tsName(clockSample), sandbox().env);
    expect(result.output).toContain('400 RETURN_CANCEL_EXPIRED');
    const key = sandbox().env.CLS_API_KEY_WMS!;
    const clock = await fetch(`${sandbox().baseUrl}/sandbox/clock`, { headers: { 'X-API-Key': key } });
    const body = (await clock.json()) as { data: { offset_seconds: number; frozen: boolean } };
    expect(body.data).toMatchObject({ offset_seconds: 0, frozen: false });
  });
});
