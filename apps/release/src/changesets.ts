// The pending changesets (`.changeset/*.md`): which package each one bumps, and how far.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Bump = 'major' | 'minor' | 'patch';

export interface Changeset {
  file: string;
  releases: Map<string, Bump>;
  summary: string;
}

const RANK: Record<Bump, number> = { patch: 0, minor: 1, major: 2 };

/** The changeset files in `dir`, parsed the way `changeset version` reads them (front matter, then the summary). */
export function readChangesets(dir: string): Changeset[] {
  if (!existsSync(dir)) return [];
  const out: Changeset[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.md') || file === 'README.md') continue;
    const text = readFileSync(join(dir, file), 'utf8');
    const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
    if (!match) throw new Error(`${file}: a changeset starts with a --- front matter block`);
    const releases = new Map<string, Bump>();
    for (const line of match[1]!.split(/\r?\n/)) {
      if (!line.trim()) continue;
      const entry = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
      if (!entry) throw new Error(`${file}: cannot read the release line ${JSON.stringify(line)}`);
      releases.set(entry[1]!, entry[2] as Bump);
    }
    out.push({ file, releases, summary: match[2]!.trim() });
  }
  return out;
}

/** The largest bump the changesets give `pkg`, or undefined when none names it. */
export function bumpFor(changesets: Changeset[], pkg: string): Bump | undefined {
  let best: Bump | undefined;
  for (const c of changesets) {
    const bump = c.releases.get(pkg);
    if (bump && (!best || RANK[bump] > RANK[best])) best = bump;
  }
  return best;
}

/** `3.1.0` bumped by `minor` is `3.2.0`. */
export function bumpVersion(version: string, bump: Bump): string {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

export const SPEC_PACKAGE = '@cls-api/spec';
