// "Getting started", the TypeScript client, as a new reader follows it: the client packed from this checkout, a new
// project made with `npm init -y` (CommonJS), the client and tsx installed into it, the guide's sample saved under the
// name the guide gives and run with the command it gives, against the local sandbox. The clone itself (`git clone`,
// `pnpm install` and the guide's build) is this checkout, installed and built before the tests run; the guide's build
// is checked with turbo's dry run to be the client's alone (the contract and the client), not the repository's.
// What the guide says the sandbox prints is what the reference server prints, and the 403 it shows is the one the
// sandbox answers.
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
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
const sandboxSetup = codeBlocks(guide.slice(guide.indexOf('## A. '), guide.indexOf('## B. '))).find(
  (b) => b.mark.kind === 'setup',
)!;
const blocks = codeBlocks(section);
const installBlock = blocks.find((b) => b.language === 'shell' && b.source.includes('npm init -y'))!;
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
      // What npm has cached already (tsx, the client's dependencies) is taken from its cache without asking the
      // registry again, as the repository's other install tests do; what it lacks still comes from the registry.
      npm_config_prefer_offline: 'true',
      ...env,
    },
    timeout: 540_000,
  });
  if (res.status !== 0) throw new Error(`${line} (in ${cwd}) exited ${res.status}:\n${res.stdout}${res.stderr}`);
  return res.stdout;
}

describe('Getting started, the TypeScript first call', () => {
  it('names no fixed tarball file and says where the repository comes from', () => {
    expect(installBlock.source).not.toMatch(/cls-api-client-\d/);
    expect(guide).toMatch(/git clone https:\/\/github\.com\/[\w-]+\/[\w-]+\.git/);
    expect(fileName).toMatch(/\.mts$/);
    expect(command).toBe(`npx tsx ${fileName}`);
  });

  it("builds the client's dependency closure only: the contract and the client, not the repository", () => {
    const [install, build] = lines(installBlock.source)[0]!
      .split('&&')
      .map((c) => c.trim());
    expect(install).toBe('pnpm install');
    expect(build).toMatch(/^pnpm exec turbo run build /);
    const tasks = (command: string) => {
      const res = spawnSync('bash', ['-c', `${command} --dry=json`], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(res.status, res.stderr).toBe(0);
      return (JSON.parse(res.stdout) as { tasks: Array<{ taskId: string }> }).tasks.map((t) => t.taskId).sort();
    };
    // The client is generated from the bundled contract (scripts/generate.mjs), then compiled: nothing of the
    // reference server, the mock, the docs site or the test helpers its own tests use.
    expect(tasks(build!)).toEqual([
      '@cls-api/client#build',
      '@cls-api/client#generate',
      '@cls-api/spec#build',
      '@cls-api/spec#bundle',
    ]);
    expect(tasks('pnpm exec turbo run build').length).toBeGreaterThan(10);
  });

  it('names the credentials as the sandbox prints them', () => {
    // What `pnpm reference serve --demo` prints of its demo data, as `seed` prints it (the same text).
    const cli = createRequire(import.meta.url).resolve('@cls-api/reference/cli');
    const seeded = spawnSync(process.execPath, [cli, 'seed'], {
      env: { ...process.env, DATABASE: join(work, 'printed.db'), DATA_DIR: work, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    });
    expect(seeded.status, seeded.stderr).toBe(0);
    const said = [...sandboxSetup.source.matchAll(/# printed (?:beside it )?as (.+)$/gm)].map((m) => m[1]!.trim());
    expect(said.length).toBe(lines(sandboxSetup.source).length - 1);
    for (const text of said) {
      const pattern = new RegExp(
        text
          .split('…')
          .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('\\S+'),
      );
      expect(seeded.stdout, text).toMatch(pattern);
    }
  });

  it('shows the 403 the sandbox answers, message included', async () => {
    const failed = guide.slice(guide.indexOf('## A failed call'));
    const blocks = codeBlocks(failed);
    const shown = JSON.parse(blocks.find((b) => b.info === 'json')!.source) as unknown;
    const env = sandbox().env;
    const res = await fetch(`${env.CLS_BASE_URL}/v3/wms/orders?page=1&size=10`, {
      headers: { 'X-API-Key': env.CLS_API_KEY_MANAGER!, Accept: 'application/json' },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual(shown);
  });

  it('runs as written in a new npm init -y project', { timeout: 900_000 }, async () => {
    const tarballs = join(work, 'tarballs');
    const clone = join(work, 'contract');
    mkdirSync(clone);
    const [, pack, project, add] = lines(installBlock.source);
    // The clone is this checkout, already installed and built: its pack command runs at the root.
    expect(pack).toMatch(/^pnpm --filter @cls-api\/client pack --pack-destination \/tmp\/cls$/);
    bash(pack!.replace('/tmp/cls', tarballs), root);
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
