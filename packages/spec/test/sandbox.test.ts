// The sandbox document (spec/sandbox/openapi.yaml): valid OpenAPI 3.1, marked as the sandbox's, apart from the
// contract (DECISIONS.md G31), its examples true to its schemas, and its forced outcomes named in the catalogue.
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import {
  errorCatalog,
  loadSandboxSpec,
  operations,
  pastLastTimeMessage,
  sandboxClockLastTime,
  sandboxDereferencedJsonPath,
  sandboxOutcomes,
  sandboxYamlPath,
  undeclaredOutcomeMessage,
  unknownOutcomeMessage,
} from '../src/index.js';
import { loadBuiltSpec, schemaValidator } from './support.js';

const contract = loadBuiltSpec(); // surfaces a failed build instead of testing an old file
const sandbox = loadSandboxSpec();

describe('the sandbox document', () => {
  it('is valid OpenAPI 3.1, bundled and dereferenced', async () => {
    for (const doc of [sandbox, JSON.parse(readFileSync(sandboxDereferencedJsonPath, 'utf8'))]) {
      const result = await new Validator().validate(structuredClone(doc));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
    }
    expect(YAML.parse(readFileSync(sandboxYamlPath, 'utf8'))).toEqual(sandbox);
  });

  it("is marked as the sandbox's, holds only /sandbox/ paths, and the contract holds none of them", () => {
    expect(sandbox.info['x-sandbox']).toBe(true);
    expect(contract.info['x-sandbox']).toBeUndefined();
    expect(Object.keys(sandbox.paths ?? {}).sort()).toEqual(['/sandbox/clock', '/sandbox/reset']);
    expect(Object.keys(contract.paths ?? {}).filter((p) => !p.startsWith('/v3/'))).toEqual([]);
  });

  it("reuses the contract's error envelope and catalogue rather than a copy of them", () => {
    for (const name of ['ErrorEnvelope', 'ErrorObject', 'ErrorCode']) {
      expect(sandbox.components?.schemas?.[name], name).toEqual(contract.components?.schemas?.[name]);
    }
  });

  it('takes a test key of any area or a JWT on every helper, and lists only catalogue codes of the right status', () => {
    const catalog = errorCatalog(contract);
    const ops = operations(sandbox);
    expect(ops.map((op) => op.operationId).sort()).toEqual([
      'getSandboxClock',
      'resetSandbox',
      'resetSandboxClock',
      'setSandboxClock',
    ]);
    for (const op of ops) {
      expect(op.security, op.operationId).toEqual(['WmsApiKey', 'ManagerApiKey', 'CamApiKey', 'BearerAuth']);
      expect(op.responses['403']?.errorCodes, op.operationId).toEqual(['AUTH_FORBIDDEN']);
      for (const [status, response] of Object.entries(op.responses)) {
        for (const code of response.errorCodes) expect(catalog.get(code)?.status, code).toBe(Number(status));
      }
    }
  });

  it('has examples that validate against their schemas, and a validator that refuses a wrong one', () => {
    const validator = schemaValidator(sandbox);
    let checked = 0;
    for (const op of operations(sandbox)) {
      for (const media of [op.requestBody, ...Object.values(op.responses)]) {
        for (const [name, example] of Object.entries(media?.examples ?? {})) {
          expect(validator.errors(media!.schema, example.value), `${op.operationId} ${name}`).toEqual([]);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(15);
    const clockSet = { $ref: '#/components/schemas/SandboxClockSet' };
    expect(validator.errors(clockSet, { at: '2026-11-20 18:00:01', advance_seconds: 60 })).not.toEqual([]);
    expect(validator.errors(clockSet, { frozen: true })).not.toEqual([]);
    expect(validator.errors(clockSet, { advance_seconds: 0 })).not.toEqual([]);
    const reset = { $ref: '#/components/schemas/SandboxReset' };
    const counts = {
      orders: 0,
      drafts: 0,
      returns: 0,
      products: 0,
      options: 0,
      stock: 0,
      suppliers: 0,
      videos: 0,
      deposits: 0,
    };
    expect(validator.errors(reset, { removed: counts, seed: 'demo' })).not.toEqual([]);
    expect(validator.errors(reset, { removed: counts, seed: 'demo', loaded: counts })).toEqual([]);
  });

  it('names each forced error outcome by a catalogue code, and its rows syntax', () => {
    const catalog = errorCatalog(contract);
    const facts = sandboxOutcomes(sandbox);
    expect(facts.outcomeHeader).toBe('X-Sandbox-Outcome');
    expect(facts.failedRowsHeader).toBe('X-Sandbox-Failed-Rows');
    expect([...facts.outcomes.keys()]).toEqual([
      'internal_error',
      'quota_exceeded',
      'gateway_throttled',
      'bulk_failed',
    ]);
    expect(catalog.get(facts.outcomes.get('internal_error')!.code!)?.status).toBe(500);
    expect(catalog.get(facts.outcomes.get('quota_exceeded')!.code!)?.status).toBe(429);
    expect(catalog.get(facts.outcomes.get('gateway_throttled')!.code!)?.status).toBe(429);
    expect(facts.outcomes.get('bulk_failed')).toEqual({});
    expect(facts.failedRowsPattern.test('0,2,999')).toBe(true);
    for (const bad of ['', '1,', '01', ' 1', '1;2', '1000']) expect(facts.failedRowsPattern.test(bad), bad).toBe(false);
  });

  it("states the clock's last time as data (x-last-time), a day before the years run out, and says it in words", () => {
    const last = sandboxClockLastTime(sandbox);
    expect(last).toBe('9999-12-30 23:59:59');
    expect(schemaValidator(sandbox).errors({ $ref: '#/components/schemas/SandboxClockSet' }, { at: last })).toEqual([]);
    expect(sandbox.paths!['/sandbox/clock']!.put!.description).toContain(`at most ${last}`);
    expect(pastLastTimeMessage(last, 'at')).toBe(`at is past the last time the test clock can show, ${last}.`);
    const without = structuredClone(sandbox);
    delete (without.components!.schemas!.SandboxClockSet as Record<string, unknown>)['x-last-time'];
    expect(() => sandboxClockLastTime(without)).toThrow(/x-last-time/);
  });
});

describe('the words of a forced outcome refused', () => {
  const facts = sandboxOutcomes(sandbox);
  it('name the outcomes the document lists, and the value sent, escaped', () => {
    expect(unknownOutcomeMessage(facts, 'time\u0007out')).toBe(
      `X-Sandbox-Outcome must be one of ${[...facts.outcomes.keys()].join(', ')}, not time\\u0007out.`,
    );
  });
  it('say why a JWT meets no quota', () => {
    expect(undeclaredOutcomeMessage(facts, 'quota_exceeded', 'listManagerOrders', true)).toBe(
      'X-Sandbox-Outcome: quota_exceeded is not an outcome of listManagerOrders called with a JWT, which has no monthly quota.',
    );
    expect(undeclaredOutcomeMessage(facts, 'bulk_failed', 'listSuppliers', true)).toBe(
      'X-Sandbox-Outcome: bulk_failed is not an outcome of listSuppliers.',
    );
  });
});
