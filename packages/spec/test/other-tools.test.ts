// What a partner's own toolchain reads (spec/README.md, "What other tools read"): the published bundle linted with
// Spectral's default `spectral:oas` ruleset and Redocly's `recommended` ruleset, each from a configuration of its
// own, not the repository's (.spectral.yaml and redocly.yaml add our rules and overrides; a partner has neither).
// Both must find nothing, warnings included: a finding there is one a generator, tester or linter that no one here
// wrote may refuse the contract over.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMER_NAMES_KEYWORD, openapiJsonPath, relaxProvisional, withFormerNames } from '../src/index.js';
import { loadBuiltSpec, schemaValidator } from './support.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(packageDir, 'package.json'));

function binOf(packageName: string, binName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const { bin } = require(manifestPath) as { bin: string | Record<string, string> };
  const entry = typeof bin === 'string' ? bin : bin[binName];
  if (entry === undefined) throw new Error(`${packageName} has no \`${binName}\` bin`);
  return join(dirname(manifestPath), entry);
}

/** Runs a CLI to its end, whatever its exit code (a linter that finds something exits non-zero). */
function runCli(cwd: string, bin: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      },
      (_error, stdout, stderr) => resolvePromise({ stdout, stderr }),
    );
  });
}

/** The JSON a linter wrote, or an error that shows what it printed instead. */
function parsed<T>(name: string, text: () => string, run: { stdout: string; stderr: string }): T {
  try {
    return JSON.parse(text()) as T;
  } catch {
    throw new Error(`${name} wrote no JSON report:\n${run.stdout}\n${run.stderr}`);
  }
}

type SpectralResult = { code: string; message: string; path: (string | number)[]; severity: number };
type RedoclyProblem = { ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> };

const show = {
  spectral: (r: SpectralResult) => `${r.code} at #/${r.path.join('/')}: ${r.message}`,
  redocly: (p: RedoclyProblem) => `${p.ruleId} (${p.severity}) at ${p.location?.[0]?.pointer ?? '?'}: ${p.message}`,
};

// Every finding either tool may keep with a reason: spec/README.md, "What other tools read", lists them. None now.
const ALLOWED = { spectral: [] as string[], redocly: [] as string[] };

let dir: string;
let spectral: SpectralResult[];
let redocly: RedoclyProblem[];

beforeAll(async () => {
  loadBuiltSpec(); // the bundle of the spec as it is now, or the build's own error
  dir = mkdtempSync(join(tmpdir(), 'cls-other-tools-'));
  writeFileSync(join(dir, 'spectral.yaml'), 'extends: ["spectral:oas"]\n');
  writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
  const spectralReport = join(dir, 'spectral.json');
  const [spectralRun, redoclyRun] = await Promise.all([
    // Spectral prints a line of prose beside its report, so the report goes to a file.
    runCli(dir, binOf('@stoplight/spectral-cli', 'spectral'), [
      'lint',
      openapiJsonPath,
      '--ruleset',
      join(dir, 'spectral.yaml'),
      '--format',
      'json',
      '--fail-severity',
      'hint',
      '--output',
      spectralReport,
    ]),
    runCli(dir, binOf('@redocly/cli', 'redocly'), [
      'lint',
      openapiJsonPath,
      '--config',
      join(dir, 'redocly.yaml'),
      '--format',
      'json',
    ]),
  ]);
  spectral = parsed('Spectral', () => readFileSync(spectralReport, 'utf8'), spectralRun);
  redocly = parsed<{ problems: RedoclyProblem[] }>('Redocly', () => redoclyRun.stdout, redoclyRun).problems;
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the bundle under linters configured by someone else', () => {
  it("Spectral's spectral:oas finds nothing, hints included", () => {
    expect(spectral.map(show.spectral)).toEqual(ALLOWED.spectral);
  });

  it("Redocly's recommended finds nothing, warnings included", () => {
    expect(redocly.map(show.redocly)).toEqual(ALLOWED.redocly);
  });
});

describe('McpToolResult.result, one branch per type, means what it meant', () => {
  const doc = loadBuiltSpec();
  const result = { $ref: '#/components/schemas/McpToolResult' };
  const body = (value: unknown) => ({ tool: 'wms_list_orders', result: value });

  it('an object, or an array of at most 100 items of any kind; nothing else', () => {
    const v = schemaValidator(doc);
    for (const ok of [{}, { order_no: 'ORD-1' }, [], [1, 'a', null, {}], Array.from({ length: 100 }, () => ({}))]) {
      expect(v.errors(result, body(ok)), JSON.stringify(ok).slice(0, 40)).toEqual([]);
    }
    for (const bad of ['text', 1, null, true, Array.from({ length: 101 }, () => ({}))]) {
      expect(v.errors(result, body(bad)), JSON.stringify(bad).slice(0, 40)).not.toEqual([]);
    }
  });

  it('the 100-item bound is a design: the relaxed contract takes 101 items, still not a string', () => {
    const v = schemaValidator(relaxProvisional(doc));
    expect(v.errors(result, body(Array.from({ length: 101 }, () => ({}))))).toEqual([]);
    expect(v.errors(result, body('text'))).not.toEqual([]);
  });
});

describe('references, which some tools read without their siblings', () => {
  it('no $ref of the bundle has a sibling keyword: a reference that needs one is wrapped in a one-branch allOf', () => {
    const doc = loadBuiltSpec();
    const found: string[] = [];
    const visit = (node: unknown, at: string): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const [i, child] of node.entries()) visit(child, `${at}/${i}`);
        return;
      }
      const keys = Object.keys(node);
      if (keys.includes('$ref') && keys.length > 1) found.push(`${at}: ${keys.join(', ')}`);
      for (const [key, child] of Object.entries(node)) {
        // Example values are data: a `$ref` key in one would be a value, not a reference.
        if (key === 'example' || key === 'value' || key === 'default' || key === 'const') continue;
        visit(child, `${at}/${key}`);
      }
    };
    visit(doc, '#');
    expect(found).toEqual([]);
  });
});

describe('schema names, which generators make into classes and types', () => {
  const doc = loadBuiltSpec();
  const schemas = doc.components!.schemas!;

  // Every component, of every section: `components.parameters.OrderNo` beside `components.schemas.OrderNo` came out
  // of generators as `OrderNo` and `OrderNo2`.
  const components = Object.entries(doc.components ?? {}).flatMap(([section, named]) =>
    Object.keys(named as object).map((name) => ({ section, name })),
  );

  it('no component is named after a global of JavaScript, Node.js or the browser (Error, Date and Text were)', () => {
    // Node's globals, and those TypeScript declares for a browser (lib.dom.d.ts: `Text`, `Option`, `Image`, …).
    const dom = readFileSync(join(dirname(require.resolve('typescript')), 'lib.dom.d.ts'), 'utf8');
    const globals = new Set([
      ...Object.getOwnPropertyNames(globalThis),
      ...[...dom.matchAll(/^declare (?:var|function|class|const|let) (\w+)/gm)].map((m) => m[1]!),
    ]);
    for (const name of ['Error', 'Date', 'Object', 'Promise', 'Response', 'Headers', 'Text', 'Option', 'Image'])
      expect(globals.has(name), name).toBe(true);
    expect(components.length).toBeGreaterThan(100);
    expect(components.filter(({ name }) => globals.has(name))).toEqual([]);
  });

  it('no two components share a name, whatever their sections (case aside)', () => {
    const sections = new Map<string, string[]>();
    for (const { section, name } of components)
      sections.set(name.toLowerCase(), [...(sections.get(name.toLowerCase()) ?? []), `${section}.${name}`]);
    expect([...sections.values()].filter((found) => found.length > 1)).toEqual([]);
  });

  it('a renamed schema keeps its former names, which types read as deprecated aliases', () => {
    expect(schemas.ErrorObject![FORMER_NAMES_KEYWORD]).toEqual(['Error']);
    expect(schemas.CalendarDate![FORMER_NAMES_KEYWORD]).toEqual(['Date']);
    const aliased = withFormerNames(doc).components!.schemas!;
    expect(aliased.Error).toEqual({
      $ref: '#/components/schemas/ErrorObject',
      description: 'Former name of `ErrorObject`.',
      deprecated: true,
    });
    expect(aliased.Date).toMatchObject({ $ref: '#/components/schemas/CalendarDate', deprecated: true });
    // The bundle itself has no alias: a linter or a mock sees each schema once.
    expect(schemas.Error).toBeUndefined();
    expect(doc.components!.schemas!.Date).toBeUndefined();
  });

  it('a former name that is a current one is refused', () => {
    const clash = structuredClone(doc);
    (clash.components!.schemas!.ErrorObject as Record<string, unknown>)[FORMER_NAMES_KEYWORD] = ['ErrorCode'];
    expect(() => withFormerNames(clash)).toThrow(/former name ErrorCode is taken/);
    (clash.components!.schemas!.ErrorObject as Record<string, unknown>)[FORMER_NAMES_KEYWORD] = ['Date'];
    expect(() => withFormerNames(clash)).toThrow(/former name Date is taken/);
  });
});
