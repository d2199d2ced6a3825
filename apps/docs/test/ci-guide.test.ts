// The "Contract tests in CI" guide (spec/guides/contract-tests-ci.md) shows the kit README's GitHub Actions
// workflow, the same text, so that the one workflow packages/contract-tests/test/ci.test.ts runs as written is the
// one a partner copies from the site: a change to either that is not made to both fails here.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import { codeBlocks } from '../src/code-blocks.js';

const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
const WORKFLOW = '# .github/workflows/contract.yml';
const GUIDE = 'Contract tests in CI';

const guide = (loadSpec().tags as Array<{ name: string; description?: string }>).find((t) => t.name === GUIDE)!;
const workflows = (markdown: string) =>
  codeBlocks(markdown).filter((b) => b.info === 'yaml' && b.source.startsWith(`${WORKFLOW}\n`));

describe(`the CI workflow of "${GUIDE}"`, () => {
  it("is the kit README's workflow, character for character, and is not marked away", () => {
    const readme = workflows(readFileSync(join(repoRoot, 'packages', 'contract-tests', 'README.md'), 'utf8'));
    const shown = workflows(guide.description ?? '');
    expect(readme).toHaveLength(1);
    expect(shown).toHaveLength(1);
    expect(shown[0]!.source).toBe(readme[0]!.source);
    expect(shown[0]!.mark).toEqual({ kind: 'run' });
  });
});
