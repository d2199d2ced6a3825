// A bulk body checked in slices (src/validation.ts, `bulkRowsOf`) is refused or accepted exactly as one validation
// of the whole body does it, with the same first error (the one the 400 reports): generated bodies of every bulk
// operation, valid, with bad rows at every kind of position, bad envelopes, too many rows and wrong types, and
// both together. And while the rows are checked, other work gets turns of the event loop (counted, not timed).
import { createHash } from 'node:crypto';
import { type OperationInfo, resolvePointer } from '@cls-api/spec';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { contract } from '../../src/contract-facts.js';
import { Slices } from '../../src/slices.js';
import { bulkRowsOf, type RequestValidator, RequestValidationError, requestValidator } from '../../src/validation.js';
import { LIMITS_OFF, startTestServer, type TestServer } from '../support/server.js';
import { turnsDuring } from '../support/turns.js';

const spec = contract();
const doc = spec.doc;
const validators = {
  parameters: spec.model.validator({ coerceTypes: true, openValues: true }),
  body: spec.model.validator({ openValues: true }),
};

/** Numbers in [0, 1) drawn from `seed` by SHA-256, so that a failure names a seed that reproduces it. */
function random(seed: string): () => number {
  let n = 0;
  return () => createHash('sha256').update(`${seed}:${n++}`).digest().readUInt32BE(0) / 2 ** 32;
}

type Schema = Record<string, unknown>;

/** A schema with its `$ref`s followed and its `allOf` parts merged in (the test's own reading of the contract). */
function unwrap(node: unknown): Schema {
  const { $ref, allOf, ...own } = node as Schema;
  const parts = [
    ...(typeof $ref === 'string' ? [unwrap(resolvePointer(doc, $ref))] : []),
    ...(Array.isArray(allOf) ? allOf.map(unwrap) : []),
  ];
  return Object.assign({}, ...parts, own);
}

/** The operations whose body has a member that is an array of objects: the bulk ones. */
const bulkOperations = spec.model.operations.filter((op) => {
  const body = op.requestBody?.schema && unwrap(op.requestBody.schema);
  return Object.values((body?.properties ?? {}) as Record<string, unknown>).some((member) => {
    const m = unwrap(member);
    return m.items !== undefined && unwrap(m.items).type === 'object';
  });
});

interface Shape {
  op: OperationInfo;
  member: string;
  minItems: number;
  maxItems: number;
  templates: Array<Record<string, unknown>>;
  required: string[];
  properties: Record<string, Schema>;
  params: Record<string, unknown>;
}

function shapeOf(op: OperationInfo): Shape {
  const body = unwrap(op.requestBody!.schema);
  const [member, memberSchema] = Object.entries(body.properties as Record<string, unknown>).find(
    ([, m]) => unwrap(m).items !== undefined,
  )!;
  const rows = unwrap(memberSchema);
  const row = unwrap(rows.items);
  const templates = Object.values(op.requestBody?.examples ?? {}).flatMap(
    (e) => ((e.value as Record<string, unknown>)[member] as Array<Record<string, unknown>>) ?? [],
  );
  // A path parameter's value: the first of its schema's examples.
  const params = Object.fromEntries(
    op.parameters
      .filter((p) => p.in === 'path')
      .map((p) => [p.name, (unwrap(p.schema).examples as unknown[] | undefined)?.[0]]),
  );
  return {
    op,
    member,
    minItems: (rows.minItems as number | undefined) ?? 0,
    maxItems: rows.maxItems as number,
    templates,
    required: row.required as string[],
    properties: Object.fromEntries(
      Object.entries(row.properties as Record<string, unknown>).map(([k, v]) => [k, unwrap(v)]),
    ),
    params,
  };
}

/** A row made wrong in one way the schema refuses. */
function badRow(rand: () => number, shape: Shape, row: Record<string, unknown>): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const names = Object.keys(shape.properties);
  const name = pick(names);
  const schema = shape.properties[name]!;
  const copy = { ...row };
  switch (pick(['missing', 'extra', 'type', 'bound', 'control', 'null', 'not an object', 'empty', 'float'] as const)) {
    case 'missing':
      delete copy[pick(shape.required)];
      return copy;
    case 'extra':
      return { ...copy, [pick(['extra', 'a/b~c', '가'])]: 1 };
    case 'type':
      copy[name] = schema.type === 'string' ? 12345 : 'text';
      return copy;
    case 'bound':
      copy[name] =
        schema.type === 'string'
          ? 'x'.repeat(((schema.maxLength as number | undefined) ?? 100) + 1)
          : rand() < 0.5
            ? ((schema.maximum as number | undefined) ?? 0) + 1
            : ((schema.minimum as number | undefined) ?? 0) - 1;
      return copy;
    case 'control':
      copy[name] = 'a\u0001b';
      return copy;
    case 'null':
      copy[name] = null;
      return copy;
    case 'not an object':
      return pick(['row', 7, null, [], true, [copy]]);
    case 'empty':
      return {};
    case 'float':
      copy[name] = 1.5;
      return copy;
  }
}

/** A body of the operation: valid, or wrong in its rows, its envelope, or both. */
function bodyOf(rand: () => number, shape: Shape): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const size = pick([1, 2, 3, 7, 20, 60, shape.maxItems, shape.maxItems + 1]);
  const rows: unknown[] = Array.from({ length: size }, () => {
    const row = { ...pick(shape.templates) };
    // Optional members sometimes left out.
    for (const k of Object.keys(row)) if (!shape.required.includes(k) && rand() < 0.3) delete row[k];
    return row;
  });
  if (rand() < 0.6) {
    const bad = Math.floor(rand() * 3) + 1;
    for (let i = 0; i < bad; i++) {
      const at = pick([0, size - 1, Math.floor(rand() * size)]);
      rows[at] = badRow(rand, shape, rows[at] as Record<string, unknown>);
    }
  }
  const body: Record<string, unknown> = { [shape.member]: rows };
  if (rand() < 0.35) {
    switch (pick(['extra member', 'extra member first', 'missing', 'member type', 'empty', 'body type'] as const)) {
      case 'extra member':
        body[pick(['extra', 'a/b~c'])] = 1;
        break;
      case 'extra member first':
        return { note: 'x', ...body };
      case 'missing':
        return { [`${shape.member}s`]: rows };
      case 'member type':
        body[shape.member] = pick([{}, 'rows', null, 5, true, { 0: rows[0] }]);
        break;
      case 'empty':
        body[shape.member] = [];
        break;
      case 'body type':
        return pick([rows, 'rows', null, 3, []]);
    }
  }
  return body;
}

/** What the client is told: the first error as the 400 describes it, or 'valid'. */
async function outcome(validate: RequestValidator, shape: Shape, body: unknown, inSlices: boolean) {
  try {
    await validate({ params: { ...shape.params }, query: {}, body }, inSlices);
    return 'valid';
  } catch (err) {
    if (!(err instanceof RequestValidationError)) throw err;
    return { part: err.part, item: err.item, missing: err.missing, message: err.message };
  }
}

const validatorOf = (op: OperationInfo) =>
  requestValidator(op, validators, { doc, integerSyntax: spec.limits, sliceMs: 0 });

describe('a bulk body checked in slices', () => {
  it('is found for every operation whose body holds an array of rows, and for no other', () => {
    const found = spec.model.operations.filter((op) => bulkRowsOf(doc, op.requestBody?.schema) !== undefined);
    expect(bulkOperations.length).toBeGreaterThanOrEqual(3);
    expect(found.map((op) => op.operationId)).toEqual(bulkOperations.map((op) => op.operationId));
  });

  for (const op of bulkOperations) {
    it(`${op.operationId}: gives the same outcome and first error as the whole body's validation`, async () => {
      const shape = shapeOf(op);
      const validate = validatorOf(op);
      expect(await outcome(validate, shape, { [shape.member]: shape.templates }, true)).toBe('valid');
      const differing: string[] = [];
      const seen = new Map<string, number>();
      for (let seed = 0; seed < 400; seed++) {
        const body = bodyOf(random(`${op.operationId}:${seed}`), shape);
        const before = JSON.stringify(body);
        const whole = await outcome(validate, shape, body, false);
        const sliced = await outcome(validate, shape, body, true);
        // Bodies are checked as sent: neither way changes them.
        expect(JSON.stringify(body)).toBe(before);
        if (JSON.stringify(sliced) !== JSON.stringify(whole))
          differing.push(`seed ${seed}: sliced ${JSON.stringify(sliced)}, whole ${JSON.stringify(whole)}`);
        const kind =
          whole === 'valid'
            ? 'valid'
            : new RegExp(`^${shape.member}\\[([1-9]\\d*)\\]`).test(whole.item)
              ? 'a later row'
              : whole.item.startsWith(`${shape.member}[0]`)
                ? 'the first row'
                : 'the envelope';
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
      }
      expect(differing.slice(0, 5)).toEqual([]);
      // The bodies reach every kind of outcome.
      for (const kind of ['valid', 'the first row', 'a later row', 'the envelope'])
        expect(seen.get(kind) ?? 0, kind).toBeGreaterThan(10);
    });
  }

  it('lets the event loop serve others while the rows are checked, and none in one piece', async () => {
    const shape = shapeOf(bulkOperations[0]!);
    const validate = validatorOf(shape.op);
    const rows = Array.from({ length: 200 }, (_, i) => shape.templates[i % shape.templates.length]);
    const request = { params: shape.params, query: {}, body: { [shape.member]: rows } };
    // Every row is a slice of its own here (sliceMs 0).
    const { turns } = await turnsDuring(async () => {
      await validate(request, true);
    });
    expect(turns).toBeGreaterThanOrEqual(rows.length - 1);
    expect(validate(request, false)).toBeUndefined();
    // A bad last row is found after the same turns.
    const bad = { ...request, body: { [shape.member]: [...rows.slice(1), {}] } };
    const refused = await turnsDuring(() => outcome(validate, shape, bad.body, true));
    expect(refused.turns).toBeGreaterThanOrEqual(rows.length - 1);
    expect(refused.result).toEqual(await outcome(validate, shape, bad.body, false));
  });
});

describe('a large bulk request', () => {
  let s: TestServer;
  let wms: string;
  beforeAll(async () => {
    s = await startTestServer({ env: LIMITS_OFF });
    wms = await s.key(await s.account({ paid: true }), 'wms', 'live');
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await s?.close();
  });

  it('has its rows checked one slice at a time, and is refused with the first error of the whole body', async () => {
    const op = spec.model.operation('registerDraftOrders');
    const shape = shapeOf(op);
    const rows: unknown[] = Array.from({ length: 800 }, (_, i) => shape.templates[i % shape.templates.length]);
    rows[700] = { ...(rows[700] as object), quantity: 0 };
    rows[750] = {};
    const body = { [shape.member]: rows };
    const text = JSON.stringify(body);
    expect(text.length).toBeGreaterThan(64 * 1024);
    const maybe = vi.spyOn(Slices.prototype, 'maybe');
    const r = await s.request('POST', op.path, { body: text, apiKey: wms });
    expect(r.status).toBe(400);
    const whole = (await outcome(validatorOf(op), shape, body, false)) as { message: string };
    expect(whole.message).toMatch(/^orders\[700\]/);
    expect(r.body.error.message).toBe(whole.message);
    // The parse takes a few slices of its own; the rows one each, up to the first bad one.
    expect(maybe.mock.calls.length).toBeGreaterThan(700);
  });
});
