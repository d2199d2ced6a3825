// The published files are valid OpenAPI 3.1 as judged by an independent validator (the OpenAPI JSON Schemas),
// and they describe one and the same document.
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { type OpenApiDocument, openapiDereferencedJsonPath, openapiYamlPath } from '../src/index.js';
import { loadBuiltSpec } from './support.js';

let doc: OpenApiDocument;

beforeAll(() => {
  doc = loadBuiltSpec();
});

async function validate(spec: unknown) {
  const validator = new Validator();
  // The validator may keep or change what it is given; hand it a copy so the tests share an untouched document.
  const result = await validator.validate(structuredClone(spec) as Record<string, unknown>);
  return { ...result, version: validator.version };
}

describe('@seriousme/openapi-schema-validator', () => {
  it('accepts dist/openapi.json as OpenAPI 3.1', async () => {
    const result = await validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.version).toBe('3.1');
  });

  it('accepts dist/openapi.dereferenced.json as OpenAPI 3.1', async () => {
    loadBuiltSpec(); // surfaces a failed build instead of testing an old file
    const deref = JSON.parse(readFileSync(openapiDereferencedJsonPath, 'utf8'));
    const result = await validate(deref);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  // Without these the two tests above could pass on a validator that accepts anything.
  it('rejects a copy whose operation has a malformed responses object', async () => {
    const broken = structuredClone(doc);
    const firstPath = Object.keys(broken.paths ?? {})[0]!;
    const item = broken.paths![firstPath]!;
    const method = (['get', 'post', 'put', 'patch', 'delete'] as const).find((m) => item[m])!;
    (item[method] as Record<string, unknown>).responses = { '200': { content: 'not a content map' } };
    const result = await validate(broken);
    expect(result.valid).toBe(false);
  });

  it('rejects a copy without info.title', async () => {
    const broken = structuredClone(doc) as unknown as { info: Record<string, unknown> };
    delete broken.info.title;
    expect((await validate(broken)).valid).toBe(false);
  });
});

describe('the published files', () => {
  it('openapi.yaml is the same document as openapi.json', () => {
    loadBuiltSpec();
    expect(YAML.parse(readFileSync(openapiYamlPath, 'utf8'))).toEqual(doc);
  });

  it('openapi.dereferenced.json has no $ref and inlines the markdown descriptions', () => {
    loadBuiltSpec();
    const text = readFileSync(openapiDereferencedJsonPath, 'utf8');
    expect(text).not.toContain('"$ref"');
    const deref = JSON.parse(text) as OpenApiDocument;
    expect(typeof deref.info.description).toBe('string');
    expect(deref.paths).toBeDefined();
    expect(Object.keys(deref.paths!)).toEqual(Object.keys(doc.paths ?? {}));
  });

  it('openapi.json keeps its components named and referenced, with no external $ref', () => {
    const text = JSON.stringify(doc);
    const refs = [...text.matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => !r.startsWith('#/components/'))).toEqual([]);
    expect(Object.keys(doc.components?.schemas ?? {})).toContain('ErrorEnvelope');
    expect(typeof doc.info.description).toBe('string');
  });
});
