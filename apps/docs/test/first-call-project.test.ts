// "Getting started", the TypeScript client, as a new reader follows it: the client packed from this checkout, a new
// project made with `npm init -y` (CommonJS), the client and tsx installed into it, the guide's sample saved under the
// name the guide gives and run with the command it gives, against the local sandbox. The clone itself (`git clone`,
// `pnpm install && pnpm build`) is this checkout, installed and built before the tests run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import { codeBlocks } from '../src/code-blocks.js';
import { useSandbox } from './sandbox.js';

const root = resolve(import.meta.dirname, '..', '..', '..');
type Tag = { name: string; description?: string };
const guide = ((loadSpec().tags ?? []) as Tag[]).find((t) => t.name === 'Getting started')!.description!;
const section = guide.slice(guide.indexOf('## The TypeScript client'));
const blocks = codeBlocks(section);
const install = blocks.find((b) => b.language === 'shell' && b.source.includes('npm init -y'))!;
const sample = blocks.find((b) => b.language === 'typescript')!;
/** "Save it as `first-call.mts` and run it with `npx tsx first-call.mts`". */
const [, fileName, command] = /Save it as `([^`]+)` and run it with `([^`]+)`/.exec(section) ?? [];

const work = mkdtempSync(join(tmpdir(), 'cls-first-call-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const sandbox = useSandbox();

/** The block's lines without their trailing comments. */
const lines = (source: string) =>
  source
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);

function bash(line: string, cwd: string, env: Record<string, string> = {}): string {
  const res = spawnSync('bash', ['-euo', 'pipefail', '-c', line], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      ...env,
    },
    timeout: 540_000,
  });
  if (res.status !== 0) throw new Error(`${line} (in ${cwd}) exited ${res.status}:\n${res.stdout}${res.stderr}`);
  return res.stdout;
}

describe('Getting started, the TypeScript first call', () => {
  it('names no fixed tarball file and says where the repository comes from', () => {
    expect(install.source).not.toMatch(/cls-api-client-\d/);
    expect(guide).toMatch(/git clone https:\/\/github\.com\/[\w-]+\/[\w-]+\.git/);
    expect(fileName).toMatch(/\.mts$/);
    expect(command).toBe(`npx tsx ${fileName}`);
  });

  it('runs as written in a new npm init -y project', { timeout: 900_000 }, async () => {
    const tarballs = join(work, 'tarballs');
    const clone = join(work, 'contract');
    mkdirSync(clone);
    const [pack, project, add] = lines(install.source);
    // The clone is this checkout, already installed and built: its pack command runs at the root.
    const packCommand = pack!.split('&&').at(-1)!.trim();
    expect(packCommand).toMatch(/^pnpm --filter @cls-api\/client pack --pack-destination \/tmp\/cls$/);
    bash(packCommand.replace('/tmp/cls', tarballs), root);
    // `mkdir ../first-call && cd ../first-call && npm init -y`, from the clone's place.
    bash(project!, clone);
    const dir = join(work, 'first-call');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { type?: string };
    expect(manifest.type ?? 'commonjs').toBe('commonjs');
    bash(add!.replace('/tmp/cls', tarballs), dir);
    writeFileSync(join(dir, fileName!), sample.source);
    const out = bash(command!, dir, sandbox().env);
    const orderNumbers = out.split('\n').filter((l) => /^\S+ \d+$/.test(l));
    expect(orderNumbers.length, out).toBeGreaterThan(0);
    // The same sample under the `.ts` name in this CommonJS project is what failed before: the name matters.
    writeFileSync(join(dir, 'first-call.ts'), sample.source);
    expect(() => bash('npx tsx first-call.ts', dir, sandbox().env)).toThrow(/[Tt]op-level await/);
    expect(execFileSync('ls', [tarballs], { encoding: 'utf8' })).toMatch(/^cls-api-client-.+\.tgz$/m);
  });
});
