// The package as an integrator gets it: `pnpm pack`, install the tarball into a fresh project with npm, type-check
// a consumer file, and run it against the mock.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '@cls-api/mock';
import { packAndInstall, packageDir, readmeExample, run } from './packed.js';

const require = createRequire(import.meta.url);
const tscBin = join(require.resolve('typescript/package.json'), '..', 'bin', 'tsc');

let work: string;
let project: string;
let tarball: string;
let mock: { url: string; close(): Promise<void> };

const consumerTs = `import { ApiError, QuotaExceededError, createClient, type ErrorCode, type components } from '@cls-api/client';

const client = createClient({ baseUrl: process.argv[2]!, apiKey: 'manager_test_mock', throwOnError: true });
const { data } = await client.GET('/v3/manager/orders', { params: { query: { page: 1, size: 10 } } });
const first: string | undefined = data?.data[0]?.order_no;
const code: ErrorCode = 'ORDER_NOT_FOUND';
// Open value sets stay open in the published declarations: a status code the contract does not know compiles.
const laterStatus: components['schemas']['OrderStatusCode'] = 55;
let quotaError = '';
try {
  await client.GET('/v3/manager/orders', { headers: { Prefer: 'example=internal_error' } });
} catch (err) {
  if (err instanceof ApiError && !(err instanceof QuotaExceededError)) quotaError = err.report().url;
}
// The quota is undefined until a metered answer: a strict consumer reads it with ?. and compiles.
const left: number | undefined = client.quota?.remaining;
const again = await client.GET('/v3/manager/orders', {});
const requestId: string | undefined = again.requestId;
console.log(JSON.stringify({ first, hasNext: data?.pagination.has_next, code, laterStatus, reported: quotaError, left, requestId }));
`;

// A wrong parameter type must not compile for the integrator either.
const badTs = `import { createClient } from '@cls-api/client';
const client = createClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });
await client.GET('/v3/manager/orders', { params: { query: { page: 'first' } } });
`;

const tsconfig = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    // Our declarations (and openapi-fetch's) are checked; TypeScript's own lib files need not be.
    skipLibCheck: false,
    skipDefaultLibCheck: true,
    outDir: 'out',
  },
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cls-client-pack-'));
  ({ tarball, project } = await packAndInstall(work));
  // process.argv is typed by hand: the consumer has no @types/node, like a browser or Deno project.
  writeFileSync(join(project, 'globals.d.ts'), 'declare const process: { argv: string[] };\n');
  mock = await startMock({ port: 0 });
  // Packing, installing and starting Prism (which may take up to its 600 s startup guard, apps/mock/src/prism.ts):
  // minutes on a two-core machine running two copies of the test suite, like the compiler runs below.
}, 900_000);

afterAll(async () => {
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds the compiled client and its declarations, and no sources, tests or workspace references', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout
      .trim()
      .split('\n')
      .map((f) => f.replace(/^package\//, ''));
    expect(files).toContain('dist/src/index.js');
    expect(files).toContain('dist/src/index.d.ts');
    expect(files).toContain('dist/generated/contract.js');
    expect(files).toContain('dist/generated/openapi.d.ts');
    expect(files).toContain('README.md');
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('generated/'))).toEqual(
      [],
    );
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules', '@cls-api', 'client', 'package.json'), 'utf8'),
    );
    expect(JSON.stringify(manifest.dependencies)).not.toContain('workspace:');
    expect(manifest.dependencies).toEqual({ 'openapi-fetch': '0.17.0' });
  });

  it('has a core that uses only web APIs (no Node built-ins)', () => {
    const dir = join(project, 'node_modules', '@cls-api', 'client', 'dist');
    const js = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? js(join(d, e.name)) : e.name.endsWith('.js') ? [join(d, e.name)] : [],
      );
    for (const file of js(dir)) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from ['"]node:|require\(|\bprocess\.|\bBuffer\b/);
    }
  });

  it('type-checks a consumer, and refuses a wrong parameter type', { timeout: 600_000 }, async () => {
    writeFileSync(join(project, 'consumer.ts'), consumerTs);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ ...tsconfig, files: ['globals.d.ts', 'consumer.ts'] }),
    );
    await run(process.execPath, [tscBin, '-p', 'tsconfig.json'], { cwd: project });
    expect(existsSync(join(project, 'out', 'consumer.js'))).toBe(true);

    writeFileSync(join(project, 'bad.ts'), badTs);
    writeFileSync(
      join(project, 'tsconfig.bad.json'),
      JSON.stringify({
        ...tsconfig,
        compilerOptions: { ...tsconfig.compilerOptions, noEmit: true },
        files: ['bad.ts'],
      }),
    );
    const failed = await run(process.execPath, [tscBin, '-p', 'tsconfig.bad.json'], { cwd: project }).then(
      () => undefined,
      (err: { stdout: string }) => err.stdout,
    );
    expect(failed).toMatch(/bad\.ts\(3,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  });

  it('runs the consumer against the mock', { timeout: 300_000 }, async () => {
    const { stdout } = await run(process.execPath, [join(project, 'out', 'consumer.js'), mock.url], { cwd: project });
    const out = JSON.parse(stdout.trim());
    expect(out.first).toEqual(expect.any(String));
    expect(out.hasNext).toEqual(expect.any(Boolean));
    expect(out.code).toBe('ORDER_NOT_FOUND');
    expect(out.laterStatus).toBe(55);
    expect(out.reported).toBe(`${mock.url}/v3/manager/orders`);
  });

  it('runs the example the README starts with', { timeout: 300_000 }, async () => {
    const example = readmeExample(project);
    expect(example.trim().split('\n')).toHaveLength(6);
    expect(example).toContain('http://127.0.0.1:4010');
    writeFileSync(join(project, 'readme-example.mjs'), example.replace('http://127.0.0.1:4010', mock.url));
    const { stdout } = await run(process.execPath, ['readme-example.mjs'], { cwd: project });
    const lines = stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^\S+ \d+ \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('runs the README example saved in packages/client/ of a checkout, as the README says', {
    timeout: 300_000,
  }, async () => {
    // Inside the package's folder its own name resolves to its build (a package may import itself by name); the
    // README says to save the example there, or in a project that installed the package.
    mkdirSync(join(packageDir, 'reports'), { recursive: true });
    const dir = mkdtempSync(join(packageDir, 'reports', 'example-'));
    try {
      const file = join(dir, 'example.mjs');
      writeFileSync(file, readmeExample(project).replace('http://127.0.0.1:4010', mock.url));
      const { stdout } = await run(process.execPath, [file], { cwd: packageDir });
      expect(stdout.trim().split('\n')[0]).toMatch(/^\S+ \d+ \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
