// The "Changelog" guide is generated from @cls-api/spec's CHANGELOG.md (written by `pnpm release`), not by hand.
import { readFileSync } from 'node:fs';
import { loadSpec, type OpenApiDocument, patternMeanings } from '@cls-api/spec';
import { describe, expect, it } from 'vitest';
import { CHANGELOG_TAG, changelogGuide, readSpecChangelog } from '../src/index.js';
import { docsSpecPath } from '../src/paths.js';

type Tag = { name: string; description?: string; 'x-traitTag'?: boolean };
const meanings = patternMeanings(loadSpec());

describe('the Changelog guide', () => {
  it('is a guide of the docs copy, listed after "Versioning", with every version of the spec changelog', () => {
    const doc = JSON.parse(readFileSync(docsSpecPath, 'utf8')) as OpenApiDocument;
    const tag = (doc.tags as Tag[]).find((t) => t.name === CHANGELOG_TAG);
    expect(tag?.['x-traitTag']).toBe(true);
    const guides = (doc['x-tagGroups'] as Array<{ name: string; tags: string[] }>).find((g) => g.name === 'Guides')!;
    expect(guides.tags[guides.tags.indexOf('Versioning') + 1]).toBe(CHANGELOG_TAG);
    const versions = [...readSpecChangelog().matchAll(/^## (\S+)$/gm)].map((m) => m[1]);
    expect(versions).toContain(doc.info.version);
    expect([...tag!.description!.matchAll(/^## (\S+)$/gm)].map((m) => m[1])).toEqual(versions);
    // The contract's changes, in the API's words, from the spec diff.
    expect(tag!.description).toMatch(/^Breaking \(\d+\):$/m);
    expect(tag!.description).toMatch(
      /^- `POST \/v3\/wms\/orders\/draft` `response 200 body data\.drafts\[\]\.draft_id pattern`/m,
    );
  });

  it('keeps versions and their lists, and drops the package title and dependency notes', () => {
    const guide = changelogGuide(
      [
        '# @cls-api/spec',
        '',
        '## 4.0.0',
        '### Major Changes',
        '',
        '- Contract changes since v3.1.0, classified by `pnpm breaking`:',
        '  ',
        '  Breaking (1):',
        '  ',
        '  - `GET /v3/manager/orders` `operation`: cannot remove an operation',
        '',
        '### Patch Changes',
        '',
        '- Updated dependencies',
        '  - @cls-api/spec@4.0.0',
        '',
        '## 3.1.0',
        '',
      ].join('\n'),
      meanings,
    );
    expect(guide).not.toContain('@cls-api/spec@4.0.0');
    expect(guide).not.toMatch(/^# /m);
    expect(guide).toMatch(/^## 4\.0\.0\n\n\*\*Major changes\*\*\n\nContract changes since v3\.1\.0/m);
    expect(guide).toMatch(/^- `GET \/v3\/manager\/orders` `operation`: cannot remove an operation$/m);
    expect(guide).toMatch(/^## 3\.1\.0$/m);
  });

  it('reads for a reader: formats in words, not regular expressions; each note a paragraph; no claim npm contradicts', () => {
    const guide = changelogGuide(readSpecChangelog(), meanings);
    const count = (term: RegExp) => [...guide.matchAll(term)].length;
    // No code span holds a regular expression: anchored (`^…`, `…$`), a control-character escape, a class of digits
    // or a repetition bound.
    const regexes = [...guide.matchAll(/`([^`\n]+)`/g)]
      .map((m) => m[1]!)
      .filter((span) => /^\^|\$$|\\x[0-9A-F]{2}|\[0-9\]|\{\d+,\d*\}/.test(span));
    expect(regexes).toEqual([]);
    expect(count(/pattern changed from/g)).toBe(0);
    expect(count(/pnpm breaking/g)).toBe(0);
    expect(count(/published to the npm registry/g)).toBe(0);
    expect(guide).toMatch(
      /^- `POST \/v3\/wms\/orders\/draft` `response 200 body data\.drafts\[\]\.mall_order_no pattern`: format changed: now text of 1 to 100 characters with no control character/m,
    );
    // A note after a list of changes starts a paragraph of its own.
    expect(guide).toMatch(/\n\nThe first release made for the npm registry/);
  });
});
