// Code samples: one curl and one TypeScript sample per operation, built from the contract's own examples, and the
// TypeScript samples compile against @cls-api/client.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec, operations } from '@cls-api/spec';
import { SAMPLE_LABELS, docsSpec, keyAreas, samplesOf, tsLiteral } from '../src/index.js';
import { decisionsPath, samplesDir } from '../src/paths.js';

const pkgDir = resolve(import.meta.dirname, '..');
const doc = loadSpec();
const ops = operations(doc);
const byId = ops.map((op) => [op.operationId, op] as const);
/** The example value of a path parameter of `op`. */
const samplesOfExample = (op: (typeof ops)[number], name: string) => {
  const schema = op.parameters.find((p) => p.name === name)!.schema as { $ref?: string; examples?: unknown[] };
  const named = schema.$ref
    ? (doc.components!.schemas![schema.$ref.split('/').pop()!] as { examples?: unknown[] })
    : schema;
  return named.examples?.[0];
};

/** Equal, except where `shown` has a string with a shell variable in it (a value the sample fills in). */
function sameBut(shown: unknown, example: unknown): boolean {
  if (typeof shown === 'string' && shown.includes('$')) return typeof example === 'string';
  if (Array.isArray(shown))
    return Array.isArray(example) && shown.length === example.length && shown.every((v, i) => sameBut(v, example[i]));
  if (shown !== null && typeof shown === 'object') {
    if (example === null || typeof example !== 'object') return false;
    const a = Object.keys(shown);
    return (
      a.length === Object.keys(example).length &&
      a.every((k) => sameBut((shown as Record<string, unknown>)[k], (example as Record<string, unknown>)[k]))
    );
  }
  return shown === example;
}

describe('samplesOf', () => {
  it.each(byId)('%s: a curl and a TypeScript sample of this very request', (_, op) => {
    const { codeSamples, file } = samplesOf(doc, op);
    expect(codeSamples.map((s) => s.label)).toEqual([SAMPLE_LABELS.curl, SAMPLE_LABELS.typescript]);
    const [curl, ts] = codeSamples;

    // The operation's own request is the sample's last command, at the start of a line; earlier calls (steps that
    // read an identifier) assign a variable.
    const concretePath = op.path.replace(/\{[^}]+\}/g, '[^/?"]+');
    const own = new RegExp(
      `^curl -sS${op.method === 'get' ? '' : ` -X ${op.method.toUpperCase()}`} "\\$CLS_BASE_URL${concretePath}[?"]`,
      'm',
    );
    expect(curl!.source).toMatch(own);
    expect(curl!.source.split('\n').filter((line) => line.startsWith('curl ')).length).toBe(1);
    expect(ts!.source).toContain(`await client.${op.method.toUpperCase()}('${op.path}'`);
    expect(file).toEqual({ name: `${op.operationId}.ts`, source: ts!.source });

    // The credential of the operation's first scheme (the manager area takes either), and none on public operations.
    const apiKey = /ApiKey$/.test(op.security[0] ?? '');
    const jwt = op.security[0] === 'BearerAuth';
    // A key names its area: the operation's own (the MCP area is below).
    const area = op.area;
    expect(curl!.source.includes('X-API-Key: $CLS_API_KEY_')).toBe(apiKey);
    expect(ts!.source.includes('apiKey: process.env.CLS_API_KEY_')).toBe(apiKey);
    if (apiKey && keyAreas(doc).includes(op.area)) {
      expect(curl!.source).toContain(`X-API-Key: $CLS_API_KEY_${area.toUpperCase()}"`);
      expect(ts!.source).toContain(`apiKey: process.env.CLS_API_KEY_${area.toUpperCase()}!`);
    }
    expect(curl!.source.includes('Authorization: Bearer $CLS_ACCESS_TOKEN')).toBe(jwt);
    expect(ts!.source.includes('jwt: { clientId: process.env.CLS_CLIENT_ID!')).toBe(jwt);

    // Every path parameter and every required query parameter, with the schema's example value.
    for (const p of op.parameters.filter((x) => x.in === 'path' || (x.in === 'query' && x.required))) {
      expect(ts!.source, p.name).toMatch(new RegExp(`\\b${p.name}: `));
      if (p.in === 'query') expect(curl!.source, p.name).toMatch(new RegExp(`[?&]${p.name}=`));
    }

    // The body is the first request example, the same in both samples.
    // The body is the first request example, the same in both samples, but for the values a sample fills in: the
    // identifiers of a reader's own records and fresh ones for what it creates (those hold a shell variable).
    const example = Object.values(op.requestBody?.examples ?? {})[0];
    const ownTs = ts!.source.slice(ts!.source.indexOf('const { data, error }'));
    if (example) {
      const heredoc = /<<'?JSON'?\n([\s\S]*)\nJSON$/.exec(curl!.source);
      const shown = JSON.parse(heredoc![1]!.replace(/\\([`$\\])/g, '$1'));
      expect(sameBut(shown, example.value), heredoc![1]).toBe(true);
      expect(ownTs).toContain('body: ');
    } else {
      expect(curl!.source.slice(curl!.source.search(own))).not.toContain('-d ');
      expect(ownTs).not.toContain('body:');
    }
  });

  it("read identifiers of records that are the reader's own with an earlier call, never the examples' values", () => {
    const get = ops.find((o) => o.operationId === 'getWmsOrder')!;
    const [curl, ts] = samplesOf(doc, get).codeSamples;
    const exampleNo = String(samplesOfExample(get, 'order_no'));
    expect(curl!.source).not.toContain(exampleNo);
    expect(ts!.source).not.toContain(exampleNo);
    expect(curl!.source).toMatch(/^ORDER_NO="\$\(curl -sS "\$CLS_BASE_URL\/v3\/wms\/orders\?page=1&size=1"/m);
    expect(curl!.source).toContain('"$CLS_BASE_URL/v3/wms/orders/$ORDER_NO"');
    expect(ts!.source).toContain("const orders = await client.GET('/v3/wms/orders'");
    expect(ts!.source).toContain('params: { path: { order_no: orderNo } }');
    // A value a link of the contract names is read where the link says: the draft of the first row.
    const draft = samplesOf(doc, ops.find((o) => o.operationId === 'getDraftOrder')!).codeSamples;
    expect(draft[0]!.source).toContain('.data.drafts[0].draft_id');
    expect(draft[1]!.source).toContain('opened.data.data.drafts[0]!.draft_id');
  });

  it("look a shipped order up by the contract's shipped status codes (x-shipped-values), the first of them", () => {
    const videos = (d: typeof doc) => samplesOf(d, ops.find((o) => o.operationId === 'listInvoiceVideos')!).codeSamples;
    const [curl, ts] = videos(doc);
    expect(curl!.source).toContain('/v3/wms/orders?page=1&size=1&order_status_code=30"');
    expect(curl!.source).toContain('the newest shipped order (status 30)');
    expect(ts!.source).toContain('order_status_code: 30');
    const copy = loadSpec();
    (copy.components!.schemas!.OrderStatusCode as Record<string, unknown>)['x-shipped-values'] = [40, 30];
    const [curl40, ts40] = videos(copy);
    expect(curl40!.source).toContain('/v3/wms/orders?page=1&size=1&order_status_code=40"');
    expect(curl40!.source).toContain('the newest shipped order (status 40)');
    expect(ts40!.source).toContain('order_status_code: 40');
  });

  it("look an order that can still change up by the first of the contract's known status codes (x-known-values)", () => {
    const update = (d: typeof doc) => samplesOf(d, ops.find((o) => o.operationId === 'updateWmsOrder')!).codeSamples;
    const [curl, ts] = update(doc);
    expect(curl!.source).toContain('/v3/wms/orders?page=1&size=1&order_status_code=10"');
    expect(curl!.source).toContain('the newest in status 10 (registered)');
    expect(ts!.source).toContain('order_status_code: 10');
    const copy = loadSpec();
    const schema = copy.components!.schemas!.OrderStatusCode as Record<string, unknown>;
    schema['x-known-values'] = [15, 20, 30, 40, 90];
    const [curl15, ts15] = update(copy);
    expect(curl15!.source).toContain('/v3/wms/orders?page=1&size=1&order_status_code=15"');
    expect(curl15!.source).toContain('the newest in status 15 (registered)');
    expect(ts15!.source).toContain('order_status_code: 15');
    // A contract whose first known status is a shipped one has no status to find a changeable order by.
    schema['x-known-values'] = [30, 10, 20, 40, 90];
    expect(() => update(copy)).toThrow(/first known value \(30\)/);
  });

  it('write fresh identifiers on every run, and a JWT sample in curl obtains its token first', () => {
    const create = samplesOf(doc, ops.find((o) => o.operationId === 'createProduct')!).codeSamples;
    expect(create[0]!.source).toMatch(/^RUN="\$\(date \+%s\)-\$\$"/);
    expect(create[0]!.source).toContain('"product_code": "MUG-CERAMIC-07-$RUN"');
    expect(create[1]!.source).toContain('const run = Date.now().toString(36);');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal, shown as text
    expect(create[1]!.source).toContain('product_code: `MUG-CERAMIC-07-${run}`');
    const deposits = samplesOf(doc, ops.find((o) => o.operationId === 'listDeposits')!).codeSamples;
    expect(deposits[0]!.source).toMatch(
      /^export CLS_ACCESS_TOKEN="\$\(curl -sS -X POST "\$CLS_BASE_URL\/v3\/auth\/token"/m,
    );
  });

  it('paged lists send page and size at their defaults', () => {
    const list = ops.find((op) => op.path === '/v3/manager/orders' && op.method === 'get')!;
    const { codeSamples } = samplesOf(doc, list);
    expect(codeSamples[0]!.source).toContain('"$CLS_BASE_URL/v3/manager/orders?page=1&size=10"');
    expect(codeSamples[1]!.source).toContain('params: { query: { page: 1, size: 10 } }');
  });

  it('an MCP tool call sends the key of the area of the operation the tool wraps; listing the tools any key', () => {
    const call = ops.find((o) => o.operationId === 'callMcpTool')!;
    const tool = String(samplesOf(doc, call).codeSamples[0]!.source.match(/tools\/([a-z_]+)\/call/)![1]);
    const wrapped = ops.find((o) => o.mcpTool === tool)!;
    expect(samplesOf(doc, call).codeSamples[0]!.source).toContain(`$CLS_API_KEY_${wrapped.area.toUpperCase()}"`);
    const list = ops.find((o) => o.operationId === 'listMcpTools')!;
    expect(samplesOf(doc, list).codeSamples[0]!.source).toMatch(/\$CLS_API_KEY_[A-Z]+"/);
    expect(keyAreas(doc)).toEqual(['wms', 'manager', 'cam']);
  });

  it('refuses an operation whose required parameter has no example to show', () => {
    const copy = loadSpec();
    const op = operations(copy).find((o) => o.parameters.some((p) => p.in === 'path'))!;
    const param = op.parameters.find((p) => p.in === 'path')!;
    const broken = {
      ...op,
      parameters: op.parameters.map((p) => (p === param ? { ...p, schema: { type: 'string' } } : p)),
    };
    expect(() => samplesOf(copy, broken)).toThrow(new RegExp(param.name));
  });
});

describe('tsLiteral', () => {
  it('writes short values on one line and long ones over several, with valid TypeScript', () => {
    expect(tsLiteral({ page: 1, size: 10 })).toBe('{ page: 1, size: 10 }');
    expect(tsLiteral({ 'x-y': "it's", n: null, list: [] })).toBe(`{ 'x-y': 'it\\'s', n: null, list: [] }`);
    const long = tsLiteral({ text: 'a'.repeat(90) });
    expect(long).toBe(`{\n  text: '${'a'.repeat(90)}',\n}`);
  });
});

describe('the generated sample files', () => {
  it('are exactly the TypeScript samples the site shows', () => {
    const { samples, doc: docs } = docsSpec(doc, readFileSync(decisionsPath, 'utf8'));
    expect(readdirSync(samplesDir).sort()).toEqual(samples.map((s) => s.name).sort());
    for (const s of samples) expect(readFileSync(join(samplesDir, s.name), 'utf8')).toBe(s.source);
    for (const op of operations(docs)) {
      const shown = docs.paths![op.path]![op.method]!['x-codeSamples'] as Array<{ label: string; source: string }>;
      expect(shown.find((x) => x.label === SAMPLE_LABELS.typescript)!.source).toBe(
        samples.find((s) => s.name === `${op.operationId}.ts`)!.source,
      );
    }
  });

  it('compile against @cls-api/client (tsc -p tsconfig.samples.json)', () => {
    const clientTypes = join(pkgDir, 'node_modules', '@cls-api', 'client', 'package.json');
    expect(existsSync(clientTypes), 'the client package is linked').toBe(true);
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.samples.json'], { cwd: pkgDir, encoding: 'utf8' });
    expect(`${res.stdout}${res.stderr}`).toBe('');
    expect(res.status).toBe(0);
  });
});
