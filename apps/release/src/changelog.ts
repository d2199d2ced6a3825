// The contract's changes, in the API's words, as the changeset `pnpm release` adds for @cls-api/spec: what reaches
// packages/spec/CHANGELOG.md through `changeset version`, and from there the docs site's "Changelog" guide.
import type { Bump } from './changesets.js';
import { SPEC_PACKAGE } from './changesets.js';
import type { ChangeKind, ContractChange } from './gate.js';

const HEADINGS: Record<ChangeKind, string> = {
  breaking: 'Breaking',
  provisional: 'Provisional (elements that may still change; allowed in a minor release)',
  'non-breaking': 'Non-breaking',
};

/** The changes as markdown lists, one per kind: `` - `GET /v3/manager/orders` response 200 body data[].note: added ``. */
export function renderChanges(changes: ContractChange[]): string {
  const out: string[] = [];
  for (const kind of ['breaking', 'provisional', 'non-breaking'] as const) {
    const of = changes.filter((c) => c.kind === kind);
    if (of.length === 0) continue;
    out.push(`${HEADINGS[kind]} (${of.length}):`, '');
    for (const c of of) {
      // Field names and patterns in code spans: as prose, `_` and `*` would read as emphasis.
      const where = c.operation === 'contract' ? `\`${c.location}\`` : `\`${c.operation}\` \`${c.location}\``;
      out.push(`- ${where}: ${c.what}`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

/** A changeset file for @cls-api/spec listing the contract's changes since `since`. */
export function contractChangeset(changes: ContractChange[], since: string, bump: Bump): string {
  return `---\n"${SPEC_PACKAGE}": ${bump}\n---\n\nContract changes since ${since}, classified by \`pnpm breaking\`:\n\n${renderChanges(changes)}\n`;
}
