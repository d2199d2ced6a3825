// The gate's verdict: a breaking change needs a major changeset for the contract's package.
import { bumpFor, type Changeset, SPEC_PACKAGE } from './changesets.js';
import { type ContractChange, formatChange } from './gate.js';

export interface Verdict {
  ok: boolean;
  lines: string[];
}

export function verdict(changes: ContractChange[], changesets: Changeset[], baseLabel: string): Verdict {
  const breaking = changes.filter((c) => c.kind === 'breaking');
  const provisional = changes.filter((c) => c.kind === 'provisional');
  const other = changes.filter((c) => c.kind === 'non-breaking');
  const bump = bumpFor(changesets, SPEC_PACKAGE);
  const lines = [
    `contract changes since ${baseLabel}: ${breaking.length} breaking, ${provisional.length} provisional, ${other.length} non-breaking` +
      ` (${SPEC_PACKAGE} changeset: ${bump ?? 'none'})`,
    ...changes.map(formatChange),
  ];
  const ok = breaking.length === 0 || bump === 'major';
  if (!ok) {
    lines.push(
      `${breaking.length} breaking change(s) without a major changeset for ${SPEC_PACKAGE}: add one (pnpm changeset) or undo them`,
    );
  }
  return { ok, lines };
}
