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

describe('samplesOf', () => {
  it.each(byId)('%s: a curl and a TypeScript sample of this very request', (_, op) => {
    const { codeSamples, file } = samplesOf(doc, op);
    expect(codeSamples.map((s) => s.label)).toEqual([SAMPLE_LABELS.curl, SAMPLE_LABELS.typescript]);
    const [curl, ts] = codeSamples;

    const concretePath = op.path.replace(/\{[^}]+\}/g, '[^/?"]+');
    expect(curl!.source).toMatch(
      new RegExp(
        `^curl -sS${op.method === 'get' ? '' : ` -X ${op.method.toUpperCase()}`} "\\$CLS_BASE_URL${concretePath}[?"]`,
      ),
    );
    expect(ts!.source).toContain(`await client.${op.method.toUpperCase()}('${op.path}'`);
    expect(file).toEqual({ name: `${op.operationId}.ts`, source: ts!.source });

    // The credential of the operation's first scheme (the manager area takes either), and none on public operations.
    const apiKey = op.security[0] === 'ApiKeyAuth';
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
    const example = Object.values(op.requestBody?.examples ?? {})[0];
    if (example) {
      const heredoc = /<<'JSON'\n([\s\S]*)\nJSON$/.exec(curl!.source);
      expect(JSON.parse(heredoc![1]!)).toEqual(example.value);
      expect(ts!.source).toContain(`body: ${tsLiteral(example.value, '  ', 6).split('\n')[0]}`);
    } else {
      expect(curl!.source).not.toContain('-d ');
      expect(ts!.source).not.toContain('body:');
    }
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
