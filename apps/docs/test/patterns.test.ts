// The site says every pattern of the contract in words: Redoc would print the raw regular expression, which a reader
// cannot use and which runs off a phone's screen. The contract itself keeps its patterns.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSpec, patternMeanings } from '@cls-api/spec';
import { describe, expect, it } from 'vitest';
import { docsSpec, patternInWords } from '../src/index.js';
import { decisionsPath, siteDir } from '../src/paths.js';

const decisions = readFileSync(decisionsPath, 'utf8');

/** Every string `pattern` of a schema below value, with the path where it stands (examples are data, not rules). */
function patterns(value: unknown, at = '#'): Array<[string, string]> {
  if (Array.isArray(value)) return value.flatMap((v, i) => patterns(v, `${at}/${i}`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => {
    if (k === 'examples' || k === 'example' || k === 'x-codeSamples') return [];
    return k === 'pattern' && typeof v === 'string' ? [[at, v] as [string, string]] : patterns(v, `${at}/${k}`);
  });
}

describe('patterns in words', () => {
  const contract = loadSpec();
  const { doc } = docsSpec(contract, decisions);

  it('the contract has patterns, and the docs copy shows none of them raw', () => {
    expect(patterns(contract.components).length).toBeGreaterThan(10);
    expect(patterns(doc)).toEqual([]);
  });

  it('every schema that had a pattern says it in words, and so does every parameter whose schema had one', () => {
    for (const [at] of patterns(contract.components)) {
      const path = at.split('/').slice(1);
      const node = path.reduce<any>((n, k) => n?.[k], doc.components);
      expect(node?.description, at).toMatch(/Format: /);
    }
    const params = (contract.components?.parameters ?? {}) as Record<string, { schema?: { $ref?: string } }>;
    const withPattern = Object.entries(params).filter(([, p]) => {
      const name = p.schema?.$ref?.split('/').pop();
      return name && typeof (contract.components?.schemas as any)?.[name]?.pattern === 'string';
    });
    expect(withPattern.length).toBeGreaterThan(0);
    for (const [name] of withPattern)
      expect((doc.components?.parameters as any)?.[name]?.description, name).toMatch(/Format: /);
  });

  it("says the contract's own words for a pattern (x-pattern-meaning), and a shape's only for a pattern without", () => {
    const meanings = patternMeanings(contract);
    const control = '^[^\\x00-\\x1F\\x7F]{1,100}$';
    expect(patternInWords(control, meanings)).toBe(`${meanings.get(control)!.replace(/^t/, 'T')}.`);
    expect(patternInWords(control, meanings)).toMatch(/^Text of 1 to 100 characters with no control character/);
    expect(patternInWords('^[^\\x00-\\x1F\\x7F]*$', meanings)).toBe(
      'Any text with no control characters (such as a line break or a tab).',
    );
    // No shape repeats words the contract has: every pattern with a meaning is said only in those words.
    for (const pattern of meanings.keys()) expect(patternInWords(pattern, new Map()), pattern).toBeUndefined();
  });

  it('the document the site offers for download is the contract itself, every pattern kept', () => {
    const published = JSON.parse(readFileSync(join(siteDir, 'openapi.json'), 'utf8'));
    expect(published).toEqual(contract);
    expect(patterns(published.components).length).toBe(patterns(contract.components).length);
  });

  it('a pattern the site has no words for stops the build, naming it', () => {
    const copy = structuredClone(contract);
    (copy.components!.schemas as any).Code.pattern = '^[0-9]{3}$';
    delete (copy.components!.schemas as any).Code['x-pattern-meaning'];
    expect(() => docsSpec(copy, decisions)).toThrow(/no words for the pattern \^\[0-9\]\{3\}\$/);
  });
});
