import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { errorCatalog, loadSpec, openapiJsonPath, operations } from '@cls-api/spec';
import {
  assertHandlersComplete,
  type components,
  errorCodes,
  missingHandlers,
  routeByOperationId,
  routes,
} from '../src/index.js';

// Renamed schemas keep their former names (spec/README.md, "Former names") as the same types: tsc fails here if not.
type Schemas = components['schemas'];
const formerNamesKept: [Schemas['Error'], Schemas['Date']] extends [Schemas['ErrorObject'], Schemas['CalendarDate']]
  ? [Schemas['ErrorObject'], Schemas['CalendarDate']] extends [Schemas['Error'], Schemas['Date']]
    ? true
    : false
  : false = true;
void formerNamesKept;

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(pkg, 'node_modules', 'typescript', 'bin', 'tsc');
const work = mkdtempSync(join(tmpdir(), 'cls-server-stubs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the route table', () => {
  const doc = loadSpec();
  const ops = operations(doc);

  it('has one entry per operation of the contract, with its method, path, area, security and MCP tool', () => {
    expect(routes.map((r) => r.operationId)).toEqual(ops.map((o) => o.operationId));
    for (const op of ops) {
      const r = routeByOperationId[op.operationId as keyof typeof routeByOperationId];
      expect(r).toMatchObject({
        method: op.method.toUpperCase(),
        path: op.path,
        area: op.area,
        security: op.security,
        mcpTool: op.mcpTool ?? null,
      });
      expect(r.url).toBe(op.path.replace(/\{(\w+)\}/g, ':$1'));
      expect(r.hasRequestBody).toBe(op.requestBody !== undefined);
    }
  });

  it('lists each documented error status with its x-error-codes, and the success statuses', () => {
    for (const op of ops) {
      const r = routeByOperationId[op.operationId as keyof typeof routeByOperationId];
      const expected = Object.fromEntries(
        Object.entries(op.responses)
          .filter(([s]) => /^[45]/.test(s))
          .map(([s, res]) => [s, res.errorCodes]),
      );
      expect(r.errorCodes).toEqual(expected);
      expect(r.successStatuses).toEqual(
        Object.keys(op.responses)
          .filter((s) => /^2/.test(s))
          .map(Number),
      );
    }
  });

  it("exports the error catalogue's codes", () => {
    expect(errorCodes).toEqual([...errorCatalog(doc).keys()]);
  });
});

describe('the start-up check', () => {
  const all = Object.fromEntries(routes.map((r) => [r.operationId, async () => ({})]));

  it('accepts exactly one handler per operation', () => {
    expect(missingHandlers(all)).toEqual({ missing: [], unknown: [] });
    expect(() => assertHandlersComplete(all)).not.toThrow();
  });

  it('names missing and unknown handlers', () => {
    const { listSuppliers: _gone, ...rest } = all;
    expect(() => assertHandlersComplete({ ...rest, extraOperation: async () => ({}) })).toThrow(
      'the implementation does not match the contract: no handler for listSuppliers; handlers for operations the contract does not have: extraOperation',
    );
    expect(missingHandlers({ ...all, getWmsOrder: 'not a function' }).missing).toEqual(['getWmsOrder']);
  });
});

/** Generates stubs from `spec` into a scratch package and type-checks the fixture implementation against them. */
function generateAndCheck(
  name: string,
  spec: object,
): { generate: ReturnType<typeof spawnSync>; check?: ReturnType<typeof spawnSync> } {
  const dir = join(work, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'test'), { recursive: true });
  const specFile = join(dir, 'openapi.json');
  writeFileSync(specFile, JSON.stringify(spec));
  const generate = spawnSync(
    process.execPath,
    [join(pkg, 'scripts', 'generate.mjs'), '--spec', specFile, '--out', join(dir, 'generated')],
    { encoding: 'utf8', timeout: CHECK_LIMIT_MS / 2 },
  );
  if (generate.status !== 0) return { generate };
  cpSync(join(pkg, 'src', 'context.ts'), join(dir, 'src', 'context.ts'));
  cpSync(join(pkg, 'test', 'fixtures', 'implementation.ts'), join(dir, 'test', 'implementation.ts'));
  const check = spawnSync(
    process.execPath,
    [
      tsc,
      '--noEmit',
      '--strict',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--target',
      'ES2022',
      '--skipLibCheck',
      '--types',
      'node',
      '--typeRoots',
      join(pkg, 'node_modules', '@types'),
      join(dir, 'test', 'implementation.ts'),
    ],
    { encoding: 'utf8', timeout: CHECK_LIMIT_MS / 2 },
  );
  return { generate, check };
}

// Each case runs the generator and a full `tsc` over the stubs: about 25 s on an idle two-core machine, and more than
// two minutes when that machine also runs another copy of the suite. The package's 120 s default is too short for
// that (vitest.config.ts). The commands run synchronously, out of vitest's reach: their own limit ends a hang.
const CHECK_LIMIT_MS = 600_000;
describe('a contract change the implementation does not follow fails its typecheck', {
  timeout: CHECK_LIMIT_MS,
}, () => {
  const original = JSON.parse(readFileSync(openapiJsonPath, 'utf8'));

  it('the fixture implementation compiles against the contract as it is (and its @ts-expect-error lines hold)', () => {
    const { generate, check } = generateAndCheck('unchanged', original);
    expect(generate.status, String(generate.stderr)).toBe(0);
    expect(check!.status, `${check!.stdout}${check!.stderr}`).toBe(0);
  });

  it('a renamed required field of a response breaks it', () => {
    const edited = structuredClone(original);
    const supplier = edited.components.schemas.Supplier;
    supplier.properties.supplier_title = supplier.properties.supplier_name;
    delete supplier.properties.supplier_name;
    supplier.required = supplier.required.map((p: string) => (p === 'supplier_name' ? 'supplier_title' : p));
    const { generate, check } = generateAndCheck('renamed-field', edited);
    expect(generate.status, String(generate.stderr)).toBe(0);
    expect(check!.status).not.toBe(0);
    expect(String(check!.stdout)).toMatch(/supplier_title|supplier_name/);
  });

  it('a removed operation breaks it', () => {
    const edited = structuredClone(original);
    delete edited.paths['/v3/wms/suppliers'];
    const { check } = generateAndCheck('removed-operation', edited);
    expect(check!.status).not.toBe(0);
    expect(String(check!.stdout)).toMatch(/listSuppliers/);
  });

  it('the generator refuses a contract it cannot serve, and says why', () => {
    const edited = structuredClone(original);
    edited.paths['/v3/wms/suppliers'].get.responses['201'] = edited.paths['/v3/wms/suppliers'].get.responses['200'];
    const { generate } = generateAndCheck('two-successes', edited);
    expect(generate.status).toBe(1);
    expect(String(generate.stderr)).toContain(
      'GET /v3/wms/suppliers: expected exactly one 2xx response, found 200, 201',
    );
  });
});
