// The README's scenario list is generated from the contract; a stale README fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import { Contract } from '../src/contract.js';
import { SECTION_END, SECTION_START, readmePath, renderScenarios, replaceSection } from '../src/readme.js';

const doc = loadSpec();
const readme = readFileSync(readmePath, 'utf8');

describe('README.md', () => {
  it('starts with a runnable example', () => {
    // The mark says why the docs' README runner does not run it (apps/docs/src/code-blocks.ts).
    expect(readme).toMatch(/^# @cls-api\/mock\n\n<!-- sample: not runnable: [^\n]+ -->\n```bash\npnpm mock/);
  });

  it('lists the scenarios of the current contract (run `pnpm --filter @cls-api/mock readme` when this fails)', () => {
    expect(replaceSection(readme, renderScenarios(doc))).toBe(readme);
  });

  it('names every example and shows a curl line for each name', () => {
    const section = readme.slice(readme.indexOf(SECTION_START), readme.indexOf(SECTION_END));
    for (const s of new Contract(doc).scenarios()) {
      expect(section).toContain(`| \`${s.example}\` |`);
      expect(section).toMatch(new RegExp(`curl .*-H "Prefer: example=${s.example}"`));
    }
  });

  it('replaceSection refuses a README without the markers', () => {
    expect(() => replaceSection('# nothing here', renderScenarios(doc))).toThrow(/section/);
  });
});
