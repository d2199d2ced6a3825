// The "Changelog" guide: the contract's changes per version, from @cls-api/spec's CHANGELOG.md. `pnpm release`
// writes that file with `changeset version`, from the changesets and from the changeset it generates out of the
// spec diff (apps/release/src/changelog.ts), so the guide is generated, never written twice.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type OpenApiDocument, patternMeanings } from '@cls-api/spec';
import { patternInWords } from './patterns.js';

/** The guide tag the contract's changelog is shown under, in the "Guides" group after "Versioning". */
export const CHANGELOG_TAG = 'Changelog';

/** @cls-api/spec's CHANGELOG.md, as installed next to the bundle. */
export function readSpecChangelog(): string {
  const pkg = createRequire(import.meta.url).resolve('@cls-api/spec/package.json');
  return readFileSync(join(dirname(pkg), 'CHANGELOG.md'), 'utf8');
}

/** A pattern as the site says it (patterns.ts), or, for one it has no words for, that a format applies. */
const formatInWords = (pattern: string, meanings: ReadonlyMap<string, string>) => {
  const digits = /^\^\[0-9\]\{(\d+),(\d+)\}\$$/.exec(pattern);
  if (digits) return `${digits[1]} to ${digits[2]} decimal digits`;
  const words = patternInWords(pattern, meanings)?.replace(/\.$/, '');
  // Mid-sentence here: "Any text …" reads "any text …".
  return words ? words.replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase()) : 'a format of its own';
};

/**
 * A change line of the release tool's in words for readers: a regular expression, which a reader cannot use and which
 * runs off a phone's screen, becomes the format it stands for (the operation's page has the rule in full).
 */
export function changeInWords(line: string, meanings: ReadonlyMap<string, string>): string {
  return line
    .replace(
      /pattern changed from `.+` to `(.+)`$/,
      (_, to: string) => `format changed: now ${formatInWords(to, meanings)}`,
    )
    .replace(/pattern `(.+)` added$/, (_, pattern: string) => `format added: ${formatInWords(pattern, meanings)}`)
    .replace(
      /: added: "(\^.*\$)"$/,
      (_, pattern: string) => `: added: ${formatInWords(pattern.replace(/\\\\/g, '\\'), meanings)}`,
    )
    .replace(/, classified by `pnpm breaking`:$/, ', compared with that release:');
}

/**
 * The guide's markdown: one `##` section per version, newest first, as the changelog has them. The package title
 * and the changesets' "Updated dependencies" notes are left out; each entry becomes a paragraph (its lists kept),
 * and "### Minor Changes" a bold line, so the only headings are the versions. A format is said in the words of
 * `meanings` (`patternMeanings` of the contract the guide is shown with).
 */
export function changelogGuide(changelog: string, meanings: ReadonlyMap<string, string>): string {
  const out: string[] = [
    'Every change to this contract, per version: the contract changes found by comparing the bundled contract with',
    'the previous release (breaking, provisional and non-breaking), and the notes written with the release.',
    '',
  ];
  let skipping = false;
  for (const line of changelog.split('\n')) {
    if (/^# /.test(line)) continue;
    if (/^- Updated dependencies/.test(line)) {
      skipping = true;
      continue;
    }
    if (skipping && /^ {2}- /.test(line)) continue;
    skipping = false;
    const kind = /^### (\w+) Changes$/.exec(line);
    if (kind) {
      out.push(`**${kind[1]} changes**`, '');
      continue;
    }
    if (/^## /.test(line)) {
      out.push(line, '');
      continue;
    }
    // Entries written before the release tool's wording was made for readers name the category for contract
    // authors; the guide shows the current wording.
    const text = changeInWords(
      line.replace(/^( *)Provisional \(designed elements;/, '$1Provisional (elements that may still change;'),
      meanings,
    );
    // Each entry a paragraph of its own, never run on from the list of the entry before.
    if (/^- /.test(text)) out.push('', text.slice(2));
    else out.push(text.replace(/^ {2}/, '').trimEnd());
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/** Adds the "Changelog" guide tag to a docs copy of the contract, after "Versioning" in the "Guides" group. */
export function addChangelogGuide(doc: OpenApiDocument, changelog: string): void {
  const tags = (doc.tags ?? []) as Array<{ name: string; description?: string; 'x-traitTag'?: boolean }>;
  tags.push({
    name: CHANGELOG_TAG,
    'x-traitTag': true,
    description: changelogGuide(changelog, patternMeanings(doc)),
  });
  doc.tags = tags as OpenApiDocument['tags'];
  const groups = (doc['x-tagGroups'] ?? []) as Array<{ name: string; tags: string[] }>;
  const guides = groups.find((g) => g.name === 'Guides');
  if (!guides) throw new Error('the contract has no "Guides" tag group to list the changelog in');
  const after = guides.tags.indexOf('Versioning');
  guides.tags.splice(after < 0 ? guides.tags.length : after + 1, 0, CHANGELOG_TAG);
}
