// The contract's version and the packages' move together: `info.version` is @cls-api/spec's version, and every
// public package (one fixed group in .changeset/config.json) carries it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { publicPackages, repoRoot } from '../src/repo.js';

const root = repoRoot(import.meta.dirname);

describe('versions', () => {
  it('info.version of spec/openapi.yaml is the version of every public package', () => {
    const info = YAML.parse(readFileSync(join(root, 'spec', 'openapi.yaml'), 'utf8')).info as { version: string };
    for (const p of publicPackages(root)) expect(p.version, p.name).toBe(info.version);
  });

  it('every public package is in the one fixed group, has a CHANGELOG with its version, and ships it', () => {
    const config = JSON.parse(readFileSync(join(root, '.changeset', 'config.json'), 'utf8')) as { fixed: string[][] };
    const names = publicPackages(root).map((p) => p.name);
    expect(config.fixed).toEqual([expect.arrayContaining(names)]);
    for (const p of publicPackages(root)) {
      expect(readFileSync(join(p.dir, 'CHANGELOG.md'), 'utf8'), p.name).toMatch(new RegExp(`^## ${p.version}$`, 'm'));
      const manifest = JSON.parse(readFileSync(join(p.dir, 'package.json'), 'utf8'));
      expect(manifest.files, p.name).toContain('CHANGELOG.md');
      expect(manifest.publishConfig, p.name).toEqual({ access: 'public' });
    }
  });
});
