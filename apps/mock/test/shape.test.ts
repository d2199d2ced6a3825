// The front server's rules on their own, without Prism.
import { describe, expect, it } from 'vitest';
import { schemaAt } from '@cls-api/server';
import { loadSpec } from '@cls-api/spec';
import { Contract } from '../src/contract.js';
import {
  asText,
  describeViolation,
  formatPrefer,
  parsePrefer,
  resolvePrefer,
  shapeResponse,
  unknownRoute,
  type RequestFacts,
} from '../src/shape.js';

const doc = loadSpec();
const contract = new Contract(doc);
const op = contract.operations.find((o) =>
  contract.scenariosOf(o).some((s) => s.example === 'monthly_quota_exhausted'),
)!;

describe('Prefer', () => {
  it('parses code, example and other tokens', () => {
    expect(parsePrefer('code=429, example=monthly_quota_exhausted')).toEqual({
      code: '429',
      example: 'monthly_quota_exhausted',
      rest: [],
    });
    expect(parsePrefer('example="no_orders"; dynamic=true')).toEqual({ example: 'no_orders', rest: ['dynamic=true'] });
    expect(parsePrefer(undefined)).toEqual({ rest: [] });
    expect(formatPrefer({ code: '200', example: 'x', rest: ['dynamic=false'] })).toBe(
      'code=200, example=x, dynamic=false',
    );
  });

  it('gives example= alone the status that documents it', () => {
    const s = contract.scenariosOf(op).find((x) => x.example === 'monthly_quota_exhausted')!;
    expect(resolvePrefer(contract, op, { example: s.example, rest: [] })).toEqual({
      prefer: { example: s.example, code: s.status, rest: [] },
    });
  });

  it('refuses an example under the wrong status, an unknown example and an undocumented status', () => {
    for (const prefer of [{ code: '200', example: 'monthly_quota_exhausted' }, { example: 'nope' }, { code: '418' }]) {
      const result = resolvePrefer(contract, op, { ...prefer, rest: [] });
      expect('error' in result && result.error).toMatch(/^Mock: /);
    }
  });
});

describe('violations', () => {
  it('name the field the way the reference server does (orders[2].receiver_name, the query parameter size)', () => {
    expect(
      describeViolation({
        location: ['request', 'body', 'orders', '2'],
        code: 'required',
        message: "Request body property orders.2 must have required property 'receiver_name'",
      }),
    ).toBe('orders[2].receiver_name is required.');
    expect(
      describeViolation({
        location: ['request', 'query', 'size'],
        code: 'maximum',
        message: 'Request query parameter size must be <= 100',
      }),
    ).toBe('The query parameter size must be <= 100.');
    expect(
      describeViolation({
        location: ['request', 'query'],
        code: 'required',
        message: "Request query parameter must have required property 'date_from'",
      }),
    ).toBe('The query parameter date_from is required.');
    expect(describeViolation({ location: ['request'], code: 'required', message: 'Body parameter is required' })).toBe(
      'The request body is required.',
    );
  });

  // Prism's own words were "Request body must NOT have additional properties; found 'zzz'." and "Request body must
  // NOT have fewer than 1 properties.", where the reference server says "zzz is not allowed." and names the fields.
  it('word an unknown field, a body naming no field and the whole body as the reference server does', () => {
    const violation = (location: string[], code: string, message: string) => ({
      location: ['request', 'body', ...location],
      code,
      message,
    });
    expect(
      describeViolation(
        violation([], 'additionalProperties', "Request body must NOT have additional properties; found 'zzz'"),
      ),
    ).toBe('zzz is not allowed.');
    expect(
      describeViolation(
        violation(
          ['orders', '0'],
          'additionalProperties',
          "Request body property orders.0 must NOT have additional properties; found 'a\u0001b'",
        ),
      ),
    ).toBe('orders[0].a\\u0001b is not allowed.');
    expect(describeViolation(violation([], 'type', 'Request body must be object'))).toBe(
      'The request body must be object.',
    );
    const update = contract.operations.find((o) => o.path === '/v3/wms/orders/{order_no}' && o.method === 'patch')!;
    const bodySchemaAt = (at: string) => schemaAt(doc, update.requestBody!.schema, at);
    expect(
      describeViolation(
        violation([], 'minProperties', 'Request body must NOT have fewer than 1 properties'),
        bodySchemaAt,
      ),
    ).toMatch(/^The request body names no field: give at least 1 of quantity, receiver_name, .*\.$/);
  });

  it('messages are one line of at most 1,000 characters', () => {
    expect(asText('a\nb\tc')).toBe('a b c');
    expect(asText('x'.repeat(2000))).toHaveLength(1000);
  });
});

describe('unknownRoute', () => {
  it('names the methods the served document has at the path, not those of the bundled contract', () => {
    const message = (c: Contract) =>
      (
        JSON.parse(unknownRoute(c, 'PUT', '/v3/wms/orders/ORD-1').body.toString()) as {
          error: { message: string };
        }
      ).error.message;
    expect(message(contract)).toBe('PUT is not an operation of /v3/wms/orders/ORD-1: it has GET, PATCH.');
    const served = structuredClone(doc);
    delete served.paths!['/v3/wms/orders/{order_no}']!.patch;
    expect(message(new Contract(served))).toBe('PUT is not an operation of /v3/wms/orders/ORD-1: it has GET.');
  });
});

describe('Contract', () => {
  // Without the tool-call operation, or with none of its path naming the tool, no call's tool could be read: every
  // call would be taken unchecked, so the mock refuses to start.
  const toolCallPath = contract.toolCall!.op.path;
  const refusal = /the contract has MCP tools but no callMcpTool operation naming one in its path/;

  it('refuses a contract whose MCP tools have no tool-call operation', () => {
    const served = structuredClone(doc);
    delete served.paths![toolCallPath];
    expect(() => new Contract(served)).toThrow(refusal);
  });

  it('refuses a contract whose tool-call operation names no tool in its path', () => {
    const served = structuredClone(doc);
    const item = served.paths![toolCallPath]!;
    delete item.parameters;
    delete item.post!.parameters;
    expect(() => new Contract(served)).toThrow(refusal);
  });

  it('reads the tool-call operation of the contract as served', () => {
    expect(contract.toolCall!.op.operationId).toBe('callMcpTool');
    expect(contract.tools.size).toBeGreaterThan(0);
  });
});

describe('shapeResponse', () => {
  const facts: RequestFacts = { method: 'GET', pathname: op.path, headers: {}, op, prefer: { rest: [] } };

  it('drops placeholder headers Prism invents for optional response headers', () => {
    const s = contract.scenariosOf(op).find((x) => x.status === '200')!;
    const shaped = shapeResponse(contract, facts, {
      status: 200,
      headers: {
        'content-type': 'application/json',
        'x-ratelimit-limit': '0',
        'x-ratelimit-remaining': '0',
        'access-control-allow-origin': '*',
      },
      body: Buffer.from(JSON.stringify(s.value)),
    });
    expect(shaped.headers['x-ratelimit-limit']).toBeUndefined();
    expect(shaped.headers['x-ratelimit-remaining']).toBeUndefined();
    expect(shaped.headers['access-control-allow-origin']).toBe('*');
    expect(shaped.example).toBe(s.example);
  });

  it('turns problem+json into the envelope with a catalogue code', () => {
    const shaped = shapeResponse(
      contract,
      { method: 'GET', pathname: '/v3/nothing', headers: {}, prefer: { rest: [] } },
      {
        status: 404,
        headers: { 'content-type': 'application/problem+json' },
        body: Buffer.from(
          JSON.stringify({
            type: 'https://stoplight.io/prism/errors#NO_PATH_MATCHED_ERROR',
            title: 'Route not resolved',
            status: 404,
          }),
        ),
      },
    );
    const { code, status } = contract.errorFor('unknownRoute');
    expect(shaped.status).toBe(status);
    expect(JSON.parse(shaped.body.toString())).toEqual({
      success: false,
      error: { code, message: expect.any(String) },
    });
  });

  it('turns a Prism failure into INTERNAL_ERROR', () => {
    const shaped = shapeResponse(contract, facts, {
      status: 500,
      headers: { 'content-type': 'application/problem+json' },
      body: Buffer.from(JSON.stringify({ title: 'boom', status: 500 })),
    });
    expect(shaped.status).toBe(contract.errorFor('internal').status);
    expect(JSON.parse(shaped.body.toString()).error.code).toBe(contract.errorFor('internal').code);
  });

  it("turns an error answered without a JSON body (Prism's HTTP layer refusing a request) into the envelope", () => {
    for (const [status, role] of [
      [400, 'invalid'],
      [431, 'invalid'],
      [503, 'internal'],
    ] as const) {
      const shaped = shapeResponse(contract, facts, {
        status,
        headers: { connection: 'close' },
        body: Buffer.alloc(0),
      });
      expect(shaped.status).toBe(contract.errorFor(role).status);
      expect(shaped.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(shaped.body.toString())).toEqual({
        success: false,
        error: { code: expect.any(String), message: expect.stringContaining(String(status)) },
      });
      expect(op.responses[String(shaped.status)]?.errorCodes ?? [contract.errorFor(role).code]).toContain(
        JSON.parse(shaped.body.toString()).error.code,
      );
    }
  });

  it('every role maps to a catalogue code', () => {
    for (const role of [
      'unknownRoute',
      'invalid',
      'missing',
      'noCredential',
      'wrongCredential',
      'invalidCredential',
      'internal',
    ] as const) {
      const { code, status } = contract.errorFor(role);
      expect(contract.catalog.get(code)?.status).toBe(status);
    }
  });

  it('refuses a contract whose catalogue lacks a code the mock answers with', () => {
    const copy = loadSpec();
    const schema = copy.components!.schemas!.ErrorCode as { oneOf: Array<{ const?: string }> };
    schema.oneOf = schema.oneOf.filter((b) => b.const !== 'NOT_FOUND');
    expect(() => new Contract(copy)).toThrow(/NOT_FOUND/);
  });
});

describe('the MCP area', () => {
  it('knows the operation that calls a tool, and refuses to start on a contract that renamed it', () => {
    expect(new Contract(doc).toolCall?.op.operationId).toBe('callMcpTool');
    // Every call would be taken unchecked (200 for a tool that does not exist): a renamed operation stops the mock.
    const renamed = loadSpec();
    for (const item of Object.values(renamed.paths ?? {}))
      for (const op of Object.values(item ?? {}))
        if ((op as { operationId?: string }).operationId === 'callMcpTool')
          (op as { operationId: string }).operationId = 'invokeTool';
    expect(() => new Contract(renamed)).toThrow(/no callMcpTool operation/);
  });
});
