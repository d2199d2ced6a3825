// Two generators partners use on the bundle, each as its README says: @hey-api/openapi-ts (fetch client) and orval
// (fetch client). For each: generation prints no warning, the output passes `tsc --strict` with a partner's code that
// narrows a bulk row on `success` (fixtures/narrowing.ts), no generated name shadows a global or carries a clash
// suffix, and three calls reach the reference server with the credential of the operation's area chosen through
// the tool's own hook: a keyed list (manager), a bulk write (wms), a JWT call (pay).
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { findOperation, loadSpec } from '@cls-api/spec';
import type { KeyArea } from '@cls-api/test-servers';
import {
  awkwardNames,
  binOf,
  BUNDLE,
  credentialsByScheme,
  exportedNames,
  keyAreaOf,
  model,
  reference,
  runNode,
  scratch,
  type ToolRun,
} from './support.js';

const fixtures = join(import.meta.dirname, 'fixtures');

/**
 * The bulk write's body: the contract's own request example of `registerOrders` (one row the demo data takes, one
 * it refuses), its mall order numbers marked with the tool's name: the server refuses a number it already has.
 */
function bulkExample(tool: string): unknown {
  const op = findOperation(loadSpec(), 'POST', '/v3/wms/orders');
  const example = Object.values(op?.requestBody?.examples ?? {})[0] as {
    value: { orders: Array<Record<string, unknown>> };
  };
  if (!example) throw new Error('registerOrders has no request example');
  const orders = example.value.orders.map((row) => ({ ...row, mall_order_no: `${row.mall_order_no}-${tool}` }));
  return { ...example.value, orders };
}

/** A month of deposits: the window `listDeposits` requires. */
const DEPOSIT_WINDOW = { date_from: '2026-11-01', date_to: '2026-11-30' };

/** `tsc --strict` over a folder: the generated code and the narrowing fixture, as a partner's bundler project. */
function strictTsc(dir: string): Promise<ToolRun> {
  copyFileSync(join(fixtures, 'narrowing.ts'), join(dir, 'narrowing.ts'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2022', 'DOM', 'DOM.Iterable'],
        types: [],
        skipLibCheck: false,
      },
      include: ['**/*.ts'],
    }),
  );
  return runNode(binOf('typescript', 'tsc'), ['-p', 'tsconfig.json', '--pretty', 'false'], { cwd: dir });
}

/** Lines of a generator's output that warn (or err). */
const warnings = (run: ToolRun): string[] =>
  `${run.stdout}\n${run.stderr}`.split('\n').filter((l) => /warn|error|⚠/i.test(l));

const allCode = (dir: string): string =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');

/** The schemes each call's credential hook was asked about and what it answered, to show the right key went out. */
type Asked = Array<{ scheme: string; answered: boolean }>;

describe('@hey-api/openapi-ts', () => {
  const dir = scratch('hey-api');
  let generation: ToolRun;
  let tsc: ToolRun;
  // The generated modules, imported at run time from the scratch folder (their types are tsc's test above).
  let sdk: any;
  let clientModule: any;

  beforeAll(async () => {
    generation = await runNode(
      binOf('@hey-api/openapi-ts', 'openapi-ts'),
      ['-i', BUNDLE, '-o', join(dir, 'generated'), '-c', '@hey-api/client-fetch'],
      { cwd: dir, env: { NO_COLOR: '1', FORCE_COLOR: '0' } },
    );
    tsc = await strictTsc(dir);
    sdk = await import(pathToFileURL(join(dir, 'generated', 'sdk.gen.ts')).href);
    clientModule = await import(pathToFileURL(join(dir, 'generated', 'client', 'index.ts')).href);
  });

  it('generates without a warning', () => {
    expect(generation.code, generation.stderr).toBe(0);
    expect(warnings(generation)).toEqual([]);
  });

  it('passes tsc --strict, with a bulk row narrowed on success', () => {
    expect(`${tsc.stdout}${tsc.stderr}`.trim()).toBe('');
    expect(tsc.code).toBe(0);
  });

  it('names nothing Error, Date or …2, and offers the local sandbox as a base URL', () => {
    const code = allCode(join(dir, 'generated'));
    expect(awkwardNames(exportedNames(code))).toEqual([]);
    const baseUrlType = /baseUrl: (.+);/.exec(readFileSync(join(dir, 'generated', 'types.gen.ts'), 'utf8'))?.[1];
    expect(baseUrlType).toBeDefined();
    // hey-api types a server URL with a variable as written (`${string}://{base_url}`), whatever its default
    // (spec/README.md, "Partner toolchains"); the concrete server of the contract is offered as a literal.
    expect(baseUrlType).toContain("'http://127.0.0.1:3000'");
    expect(baseUrlType).toContain('{base_url}');
  });

  it("calls the reference server with the area's key through its auth callback: a keyed list, a bulk write, a JWT call", async () => {
    const { baseUrl, seller } = reference();
    const asked: Asked = [];
    let jwt: string | undefined;
    const byName = credentialsByScheme(seller, '');
    const client = clientModule.createClient({
      baseUrl,
      // hey-api hands the callback each security requirement of the operation in turn (`key` names the scheme when
      // several share a header); the first credential it returns goes out.
      auth: (auth: { key?: string; scheme?: string; name?: string; type: string }) => {
        const scheme =
          auth.type === 'http' && auth.scheme === 'bearer'
            ? model.credentialSchemes.find((s) => s.kind === 'http')
            : model.credentialSchemes.find((s) => s.name === auth.key);
        const value = scheme?.kind === 'http' ? jwt : scheme && byName.get(scheme.name)?.value;
        asked.push({ scheme: scheme?.name ?? JSON.stringify(auth), answered: value !== undefined });
        return value;
      },
    });

    const list = await sdk.listManagerOrders({ client, query: { size: 2 } });
    expect(list.response.status).toBe(200);
    expect(list.data.data.length).toBe(2);

    const bulk = await sdk.registerOrders({ client, body: bulkExample('hey-api') });
    expect(bulk.response.status).toBe(200);
    const rows = bulk.data.data.results as Array<{ success: boolean }>;
    expect(rows.map((r) => r.success)).toEqual([true, false]);

    const token = await sdk.createAccessToken({
      client,
      body: { client_id: seller.client_id, client_secret: seller.client_secret },
    });
    expect(token.response.status).toBe(200);
    jwt = token.data.data.access_token;
    const deposits = await sdk.listDeposits({ client, query: DEPOSIT_WINDOW });
    expect(deposits.response.status).toBe(200);

    // hey-api asks about every requirement of an operation and sends each credential it gets (spec/README.md,
    // "Partner toolchains"): the manager list asked for the JWT too, which the caller did not hold yet.
    const bearer = model.credentialSchemes.find((s) => s.kind === 'http')!.name;
    expect(asked.filter((a) => a.answered).map((a) => a.scheme)).toEqual([
      schemeFor('manager'),
      schemeFor('wms'),
      bearer,
    ]);
  });
});

describe('orval', () => {
  const dir = scratch('orval');
  let generation: ToolRun;
  let tsc: ToolRun;
  // The generated modules, imported at run time from the scratch folder (their types are tsc's test above).
  let api: any;
  let auth: any;

  beforeAll(async () => {
    mkdirSync(join(dir, 'auth'));
    copyFileSync(join(fixtures, 'orval-auth.ts'), join(dir, 'auth', 'orval-auth.ts'));
    // One mutator per operation, made from its security requirements in the bundle, in the contract's order.
    const schemes = new Map(model.credentialSchemes.map((s) => [s.name, s]));
    const lines = ["import { fetchWith } from './orval-auth.js';"];
    const operations: Record<string, unknown> = {};
    for (const op of model.operations) {
      const infos = op.security.map((name) => {
        const s = schemes.get(name);
        if (!s) throw new Error(`${op.operationId} requires ${name}, which is not sent in a header`);
        return { name, header: s.header, prefix: s.kind === 'http' ? 'Bearer ' : '' };
      });
      lines.push(`export const ${op.operationId}Fetch = fetchWith(${JSON.stringify(infos)});`);
      operations[op.operationId] = {
        mutator: { path: join(dir, 'auth', 'operations.ts'), name: `${op.operationId}Fetch` },
      };
    }
    writeFileSync(join(dir, 'auth', 'operations.ts'), `${lines.join('\n')}\n`);
    writeFileSync(
      join(dir, 'orval.config.mjs'),
      `export default ${JSON.stringify({
        cls: {
          input: { target: BUNDLE },
          output: {
            target: join(dir, 'generated', 'index.ts'),
            client: 'fetch',
            mode: 'single',
            override: { operations },
          },
        },
      })};\n`,
    );
    generation = await runNode(binOf('orval', 'orval'), ['--config', 'orval.config.mjs'], {
      cwd: dir,
      env: { NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    tsc = await strictTsc(dir);
    api = await import(pathToFileURL(join(dir, 'generated', 'index.ts')).href);
    auth = await import(pathToFileURL(join(dir, 'auth', 'orval-auth.ts')).href);
  });

  it('generates without a warning', () => {
    expect(generation.code, generation.stderr).toBe(0);
    expect(warnings(generation)).toEqual([]);
  });

  it('passes tsc --strict, with a bulk row narrowed on success', () => {
    expect(`${tsc.stdout}${tsc.stderr}`.trim()).toBe('');
    expect(tsc.code).toBe(0);
  });

  it('names nothing Error, Date or …2', () => {
    expect(awkwardNames(exportedNames(allCode(join(dir, 'generated'))))).toEqual([]);
  });

  it("calls the reference server with the area's key through its mutators: a keyed list, a bulk write, a JWT call", async () => {
    const { baseUrl, seller } = reference();
    const asked: Asked = [];
    let jwt: string | undefined;
    const byName = credentialsByScheme(seller, '');
    auth.configure({
      baseUrl,
      credentials: (scheme: { name: string }) => {
        const held = byName.get(scheme.name);
        const value = held?.scheme.kind === 'http' ? jwt : held?.value;
        asked.push({ scheme: scheme.name, answered: value !== undefined });
        return value;
      },
    });

    const list = await api.listManagerOrders({ size: 2 });
    expect(list.status).toBe(200);
    expect(list.data.data.length).toBe(2);

    const bulk = await api.registerOrders(bulkExample('orval'));
    expect(bulk.status).toBe(200);
    expect((bulk.data.data.results as Array<{ success: boolean }>).map((r) => r.success)).toEqual([true, false]);

    const token = await api.createAccessToken({ client_id: seller.client_id, client_secret: seller.client_secret });
    expect(token.status).toBe(200);
    jwt = token.data.data.access_token;
    const deposits = await api.listDeposits(DEPOSIT_WINDOW);
    expect(deposits.status).toBe(200);

    const bearer = model.credentialSchemes.find((s) => s.kind === 'http')!.name;
    expect(asked).toEqual([
      { scheme: schemeFor('manager'), answered: true },
      { scheme: schemeFor('wms'), answered: true },
      { scheme: bearer, answered: true },
    ]);
  });
});

/** The API-key scheme of an area's key, as the contract names it. */
function schemeFor(area: KeyArea): string {
  const names = model.credentialSchemes.filter((s) => s.kind === 'apiKey' && keyAreaOf(s) === area).map((s) => s.name);
  if (names.length !== 1) throw new Error(`the ${area} key is the credential of ${names.length} schemes`);
  return names[0]!;
}
