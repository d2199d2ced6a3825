// Every sample of every guide runs as written against the local sandbox (the reference server with demo data), with
// the variables "Getting started" tells a reader to set, twice in a row: samples that write use fresh identifiers,
// so a second run succeeds too. Shell samples run through bash, in guide order; TypeScript samples are compiled with
// the repository's strict settings and run with node.
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '@cls-api/spec';
import { codeBlocks, exportedNames, parseMark, type CodeBlock } from '../src/code-blocks.js';
import { SAMPLE_ENV } from '../src/samples.js';
import { compileTypeScriptIn, resetShell, runShell, runTypeScript, workDir } from './run-samples.js';
import { useSandbox } from './sandbox.js';

const doc = loadSpec();
type Tag = { name: string; description?: string; 'x-traitTag'?: boolean };
const guides = ((doc.tags ?? []) as Tag[])
  .filter((t) => t['x-traitTag'] === true)
  .map((t) => ({ name: t.name, blocks: codeBlocks(t.description ?? '') }));
const intro = codeBlocks(typeof doc.info.description === 'string' ? doc.info.description : '');

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
const runnable = (b: CodeBlock) =>
  b.language !== 'other' && (b.mark.kind === 'run' || b.mark.kind === 'expect' || b.mark.kind === 'prints');
const tsName = (guide: string, b: CodeBlock) => `${slug(guide)}-line-${b.line}.ts`;

const sandbox = useSandbox();

describe('the sample marks', () => {
  it('are read as written and refuse an unknown mark', () => {
    expect(parseMark('setup')).toEqual({ kind: 'setup' });
    expect(parseMark('expect 403 AUTH_FORBIDDEN')).toEqual({ kind: 'expect', status: 403, code: 'AUTH_FORBIDDEN' });
    expect(parseMark('prints 2 opened')).toEqual({ kind: 'prints', text: '2 opened' });
    expect(parseMark('not runnable: needs a browser')).toEqual({ kind: 'not-runnable', reason: 'needs a browser' });
    expect(() => parseMark('skip')).toThrow(/unknown sample mark/);
    expect(() => parseMark('not runnable:')).toThrow(/unknown sample mark/);
    const [block] = codeBlocks('<!-- sample: not runnable: why -->\n```bash\necho hi\n```\n');
    expect(block).toMatchObject({ language: 'shell', source: 'echo hi\n', mark: { kind: 'not-runnable' } });
    // A mark belongs to the block right after it only.
    const [, second] = codeBlocks('<!-- sample: setup -->\n```bash\nexport A=1\n```\ntext\n\n```bash\necho\n```\n');
    expect(second!.mark).toEqual({ kind: 'run' });
  });

  it('every guide has runnable samples where it shows calls, and the introduction shows only output', () => {
    expect(intro.filter((b) => b.language !== 'other')).toEqual([]);
    for (const name of ['Getting started', 'Authentication', 'Errors', 'Bulk operations']) {
      expect(guides.find((g) => g.name === name)!.blocks.some(runnable), name).toBe(true);
    }
  });

  it("the setup blocks set exactly the variables the sandbox supplies (Getting started's names)", () => {
    const names = new Set(Object.keys(sandbox().env));
    for (const g of guides) {
      for (const b of g.blocks.filter((x) => x.mark.kind === 'setup')) {
        const exported = exportedNames(b.source);
        expect(exported.length, `${g.name} line ${b.line}`).toBeGreaterThan(0);
        for (const n of exported) expect(names.has(n), `${g.name} line ${b.line} sets ${n}`).toBe(true);
      }
    }
    expect(names.has(SAMPLE_ENV.baseUrl)).toBe(true);
  });
});

describe('the runner', () => {
  const block = (source: string, mark: CodeBlock['mark'] = { kind: 'run' }): CodeBlock => ({
    info: 'bash',
    language: 'shell',
    source,
    line: 1,
    mark,
  });
  const call = (path: string, key: string) =>
    `curl -sS -w '\\nHTTP %{http_code}\\n' "$CLS_BASE_URL${path}" -H "X-API-Key: $${key}"\n`;

  it('fails a call that gets an error body unless the sample is marked to expect exactly that', () => {
    const dir = workDir('runner-self-test');
    const wrongArea = call('/v3/wms/orders', 'CLS_API_KEY_MANAGER');
    expect(runShell(block(wrongArea), dir, sandbox().env)).toMatchObject({ ok: false });
    const expected = { kind: 'expect', status: 403, code: 'AUTH_FORBIDDEN' } as const;
    expect(runShell(block(wrongArea, expected), dir, sandbox().env)).toMatchObject({ ok: true });
    expect(runShell(block(wrongArea, { ...expected, status: 401 }), dir, sandbox().env)).toMatchObject({ ok: false });
    expect(runShell(block(wrongArea, { ...expected, code: 'NOT_FOUND' }), dir, sandbox().env)).toMatchObject({
      ok: false,
    });
    expect(runShell(block(call('/v3/wms/orders', 'CLS_API_KEY_WMS')), dir, sandbox().env)).toMatchObject({ ok: true });
  });

  it('fails a sample that leaves a variable empty or null, or does not print what it is marked to print', () => {
    const dir = workDir('runner-self-test');
    expect(
      runShell(
        block(`export CLS_ACCESS_TOKEN="$(node -p 'JSON.parse(process.argv[1]).data' '{}')"\n`),
        dir,
        sandbox().env,
      ).ok,
    ).toBe(false);
    expect(runShell(block('echo 1 opened\n', { kind: 'prints', text: '2 opened' }), dir, sandbox().env).ok).toBe(false);
    expect(runShell(block('echo 2 opened\n', { kind: 'prints', text: '2 opened' }), dir, sandbox().env).ok).toBe(true);
    expect(runShell(block('false\necho after\n'), dir, sandbox().env).ok).toBe(false);
  });

  it('carries what one shell sample exports to the next', () => {
    const dir = workDir('runner-self-test');
    expect(runShell(block('export CLS_SELF_TEST=carried\n'), dir, sandbox().env).ok).toBe(true);
    expect(runShell(block('echo "$CLS_SELF_TEST"\n', { kind: 'prints', text: 'carried' }), dir, sandbox().env).ok).toBe(
      true,
    );
  });
});

const withSamples = guides
  .filter((g) => g.blocks.some(runnable))
  .map((g) => {
    const blocks = g.blocks.filter(runnable);
    const ts = Object.fromEntries(
      blocks.filter((b) => b.language === 'typescript').map((b) => [tsName(g.name, b), b.source]),
    );
    return { ...g, dir: workDir(slug(g.name)), blocks, ts };
  });
/** Each guide's compiler diagnostics, by its directory: every guide compiled in one compiler run. */
let diagnostics = new Map<string, string>();
beforeAll(() => {
  diagnostics = compileTypeScriptIn(withSamples.map((g) => ({ dir: g.dir, files: g.ts })));
}, 300_000);

describe.each(withSamples.map((g) => [g.name, g] as const))(
  'the samples of "%s" against the local sandbox',
  (name, { dir, blocks }) => {
    it('the TypeScript samples compile with strict settings', () => {
      expect(diagnostics.get(resolve(dir))).toBe('');
    });

    it.each([1, 2])('run as written, in order (run %i)', (run) => {
      if (run === 1) resetShell(dir);
      for (const b of blocks) {
        const result =
          b.language === 'shell'
            ? runShell(b, dir, sandbox().env)
            : runTypeScript(b, dir, tsName(name, b), sandbox().env);
        expect(result.ok, `${name}, the ${b.info} sample at line ${b.line}: ${result.problem}\n${result.output}`).toBe(
          true,
        );
      }
    });
  },
);
