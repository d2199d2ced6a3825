// The client's runtime rules come from the contract. These tests tie the generated constants to the bundle, and
// show that changing the bundle changes them (or stops generation), so nothing is silently left behind.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  errorCatalog,
  KNOWN_VALUES_KEYWORD,
  loadSpec,
  openapiJsonPath,
  operations as specOperations,
} from '@cls-api/spec';
import * as generated from '../generated/contract.js';
import { credentialsFor } from '../src/contract.js';
import { createPacer } from '../src/index.js';
import { VirtualClock } from './support.js';

const run = promisify(execFile);
const packageDir = join(import.meta.dirname, '..');
const generator = join(packageDir, 'scripts', 'generate.mjs');

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cls-client-generate-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

async function generateFrom(doc: unknown, name: string) {
  const spec = join(work, `${name}.json`);
  const out = join(work, name);
  writeFileSync(spec, JSON.stringify(doc));
  await run(process.execPath, [generator, '--spec', spec, '--out', out]);
  const contract = (await import(join(out, 'contract.ts'))) as typeof generated;
  return { contract, types: readFileSync(join(out, 'openapi.ts'), 'utf8') };
}

describe('generated/contract.ts', () => {
  it('is what the generator makes of the current bundle (never edited by hand)', { timeout: 120_000 }, async () => {
    const out = join(work, 'current');
    await run(process.execPath, [generator, '--spec', openapiJsonPath, '--out', out]);
    for (const file of ['contract.ts', 'openapi.ts']) {
      expect(readFileSync(join(out, file), 'utf8'), file).toBe(
        readFileSync(join(packageDir, 'generated', file), 'utf8'),
      );
    }
  });

  it('holds exactly the error codes of the catalogue, with their statuses', () => {
    const catalog = errorCatalog(loadSpec());
    expect([...generated.errorCodes]).toEqual([...catalog.keys()]);
    for (const [code, entry] of catalog)
      expect(generated.errorStatus[code as keyof typeof generated.errorStatus]).toBe(entry.status);
  });

  it('knows every operation of the bundle, with its security and paging', () => {
    const doc = loadSpec();
    const ops = specOperations(doc);
    expect(generated.operations.map((o) => `${o.method} ${o.path}`)).toEqual(ops.map((o) => `${o.method} ${o.path}`));
    for (const op of ops) {
      const facts = generated.operations.find((o) => o.method === op.method && o.path === op.path)!;
      expect([...facts.security]).toEqual(op.security);
    }
    // The source: /v3/pay/ is JWT-only; the manager area takes an API key or a JWT (3.1); the other areas take the
    // API key; the token operations are public. A path the contract does not know takes its area's rule.
    expect(credentialsFor('GET', '/v3/pay/deposits')).toEqual(['jwt']);
    expect(credentialsFor('GET', '/v3/pay/something-newer')).toEqual(['jwt']);
    for (const op of ops.filter((o) => o.area === 'manager'))
      expect(credentialsFor(op.method, op.path), op.path).toEqual(['apiKey', 'jwt']);
    expect(credentialsFor('GET', '/v3/manager/something-newer')).toEqual(['apiKey', 'jwt']);
    expect(credentialsFor('GET', '/v3/wms/orders')).toEqual(['apiKey']);
    expect(credentialsFor('GET', '/v3/wms/something-newer')).toEqual(['apiKey']);
    expect(credentialsFor('POST', '/v3/auth/token')).toEqual([]);
    expect(generated.operations.find((o) => o.path === '/v3/manager/orders' && o.method === 'get')!.paged).toBe(true);
  });

  it('holds the limits of the source', () => {
    expect(generated.limits.gateway.map((b) => [b.appliesTo, b.ratePerSecond, b.burst])).toEqual([
      ['/v3/', 30, 50],
      ['/v3/mcp/', 10, 10],
    ]);
    expect(generated.limits.bulkRowsPerRequest).toBe(1000);
    expect(generated.bulkOperations).toEqual({
      registerOrders: expect.objectContaining({
        path: '/v3/wms/orders',
        rowsField: 'orders',
        successCountField: 'created_count',
        failedCountField: 'failed_count',
        resultsField: 'results',
        maxRows: 1000,
      }),
      registerDraftOrders: expect.objectContaining({
        path: '/v3/wms/orders/draft',
        rowsField: 'orders',
        successCountField: 'created_count',
        resultsField: 'drafts',
        maxRows: 1000,
      }),
      addProductOptions: expect.objectContaining({
        path: '/v3/wms/products/{product_code}/options',
        rowsField: 'options',
        successCountField: 'added_count',
        resultsField: 'options',
        maxRows: 1000,
      }),
    });
  });
});

describe('a change of the contract', () => {
  it('changes the generated codes, limits, bulk fields and security', { timeout: 120_000 }, async () => {
    const doc = loadSpec() as any;
    doc.components.schemas.ErrorCode.oneOf.push({
      title: 'NEW_CODE',
      const: 'NEW_CODE',
      description: 'New.',
      'x-http-status': 409,
      'x-areas': ['wms'],
    });
    doc.components.schemas.DraftOrderRows.maxItems = 500;
    doc.info['x-limits'].bulk_rows_per_request = 500;
    doc.info['x-limits'].gateway.rate_per_second = 20;
    const drafts = doc.components.schemas.DraftBulkResult;
    drafts.properties.draft_rows = drafts.properties.drafts;
    delete drafts.properties.drafts;
    for (const op of Object.values(doc.paths['/v3/pay/deposits']) as any[]) op.security = [{ WmsApiKey: [] }];
    doc.paths['/v3/cam/invoices/{invoice_no}/videos'].get.security = [{ BearerAuth: [] }];
    // Orders and products must not exceed the new limit either.
    doc.components.schemas.OrderBulkRequest.properties.orders.maxItems = 500;
    doc.components.schemas.OptionBulkRequest.properties.options.maxItems = 500;

    const { contract, types } = await generateFrom(doc, 'changed');
    expect(contract.errorCodes).toContain('NEW_CODE');
    expect(types).toContain('"NEW_CODE"');
    expect(contract.limits.gateway[0]!.ratePerSecond).toBe(20);
    expect(contract.limits.bulkRowsPerRequest).toBe(500);
    expect(contract.bulkOperations.registerDraftOrders.maxRows).toBe(500);
    expect(contract.bulkOperations.registerDraftOrders.resultsField).toBe('draft_rows');
    expect(contract.areaSecurity['/v3/cam/']).toEqual(['BearerAuth']);
    expect(contract.areaSecurity['/v3/pay/']).toEqual(['WmsApiKey']);
  });

  it('generates every gateway limit the contract lists, and paces under a third one added to a copy', {
    timeout: 120_000,
  }, async () => {
    const doc = loadSpec() as any;
    doc.info['x-limits'].gateway_wms = {
      description: 'A tighter limit on the WMS area.',
      scope: 'source_ip',
      applies_to: '/v3/wms/',
      rate_per_second: 4,
      burst: 6,
    };
    const { contract } = await generateFrom(doc, 'third-gateway-limit');
    expect(contract.limits.gateway.map((g) => [g.name, g.appliesTo, g.ratePerSecond, g.burst])).toEqual([
      ['gateway', '/v3/', 30, 50],
      ['gateway_mcp', '/v3/mcp/', 10, 10],
      ['gateway_wms', '/v3/wms/', 4, 6],
    ]);
    // A pacer on the generated limits: six WMS calls at once, then one every 250 ms; other areas keep the general pace.
    const clock = new VirtualClock();
    const pacer = createPacer({ buckets: contract.limits.gateway, margin: 0, timers: clock });
    const start = clock.now();
    const at: number[] = [];
    for (let i = 0; i < 8; i++) {
      await pacer.acquire('/v3/wms/suppliers');
      at.push(clock.now() - start);
    }
    expect(at).toEqual([0, 0, 0, 0, 0, 0, 250, 500]);
    await pacer.acquire('/v3/manager/orders');
    expect(clock.now() - start).toBe(500);
  });

  it('opens the value sets the source leaves open or the contract designs, and keeps the others exact', {
    timeout: 120_000,
  }, async () => {
    const doc = loadSpec() as any;
    const schemas = doc.components.schemas;
    // Not marked: a set the source would show. Stays closed.
    schemas.Colour = { type: 'string', enum: ['red', 'blue'] };
    // Marked itself, and nested in a marked object without a mark of its own (written without a `type`).
    schemas.Shade = { 'x-provisional': true, type: 'string', enum: ['light', 'dark'] };
    schemas.Parcel = {
      'x-provisional': true,
      type: 'object',
      required: ['size', 'weight_class', 'success'],
      properties: {
        size: { enum: ['S', 'M'] },
        weight_class: { type: 'integer', enum: [1, 2] },
        success: { const: true },
        // A boolean set has no other values to leave room for.
        fragile: { type: 'boolean', enum: [true, false] },
      },
    };
    // A set the source leaves open, nullable, and one whose members are integers.
    schemas.Lane = { type: ['string', 'null'], [KNOWN_VALUES_KEYWORD]: ['north', 'south'] };
    schemas.Level = { type: 'integer', [KNOWN_VALUES_KEYWORD]: [1, 5] };

    const { types } = await generateFrom(doc, 'open-values');
    expect(types).toContain('Colour: "red" | "blue";');
    expect(types).toContain('Shade: "light" | "dark" | (string & {});');
    const parcel = types.slice(types.indexOf('Parcel: {'), types.indexOf('\n        };', types.indexOf('Parcel: {')));
    expect(parcel).toContain('size: "S" | "M" | (string & {});');
    expect(parcel).toContain('weight_class: 1 | 2 | (number & {});');
    expect(parcel).toContain('success: true;');
    expect(parcel).toMatch(/fragile\?: true \| false;/);
    expect(types).toContain('Lane: "north" | "south" | (string & {}) | null;');
    expect(types).toContain('Level: 1 | 5 | (number & {});');
    // The catalogue of error codes is closed, designed or not.
    expect(types).toMatch(/ErrorCode: "AUTH_MISSING_TOKEN" \| "AUTH_INVALID_TOKEN" \|[^;]*"CAM_INVOICE_NOT_FOUND";/);
    expect(types).not.toMatch(/ErrorCode: [^;]*string & \{\}/);
  });

  // One test per case, each with one generator run's limit: the eight runs in a row took more than four minutes on
  // a two-core machine running two copies of the test suite.
  const cases: [string, (doc: any) => void, RegExp][] = [
    ['no-limits', (doc) => delete doc.info['x-limits'], /does not state info\.x-limits/],
    ['no-retry-after', (doc) => delete doc.components.responses.TooManyRequests.headers['Retry-After'], /Retry-After/],
    [
      'no-bearer',
      (doc) => delete doc.components.securitySchemes.BearerAuth,
      /unknown security scheme BearerAuth|no bearer/,
    ],
    [
      'over-limit',
      (doc) => (doc.components.schemas.OrderBulkRequest.properties.orders.maxItems = 5000),
      /above bulk_rows_per_request/,
    ],
    // The client sends one credential per request: a requirement of two schemes at once is beyond it.
    [
      'both-at-once',
      (doc) => (doc.paths['/v3/manager/orders'].get.security = [{ ManagerApiKey: [], BearerAuth: [] }]),
      /listManagerOrders requires ManagerApiKey and BearerAuth together/,
    ],
    // Known values make an open type of a scalar; anywhere else their meaning would be a guess.
    [
      'known-values-object',
      (doc) => (doc.components.schemas.Pagination[KNOWN_VALUES_KEYWORD] = [1]),
      /Pagination: x-known-values needs a string, integer or number type/,
    ],
    [
      'known-values-closed',
      (doc) => (doc.components.schemas.ErrorCode[KNOWN_VALUES_KEYWORD] = ['NEW_CODE']),
      /ErrorCode: x-known-values beside \$ref, enum, const or a composition/,
    ],
    [
      'known-values-type',
      (doc) => (doc.components.schemas.OrderStatusCode[KNOWN_VALUES_KEYWORD] = [10, 30, 40, 'shipped']),
      /OrderStatusCode: known value "shipped" is not of type "integer"/,
    ],
  ];
  it.for(cases)(
    'stops generation when a fact the client acts on disappears: %s',
    { timeout: 120_000 },
    async ([name, mutate, message]) => {
      const doc = loadSpec();
      mutate(doc);
      await expect(generateFrom(doc, name), name).rejects.toThrow(message);
    },
  );
});
