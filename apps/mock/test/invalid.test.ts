// Invalid requests get this API's error envelope with a documented catalogue code, never problem+json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractModel,
  deref,
  integerQueryMessage,
  loadSpec,
  type JsonSchema,
  type OperationInfo,
  type RequestBodyObject,
  toolAreaMessage,
  unknownToolMessage,
} from '@cls-api/spec';
import { noOperationMessage } from '@cls-api/server';
import { Contract, exampleRequest, startMock, type MockServer } from '../src/index.js';
import { VIOLATIONS_HEADER } from '../src/shape.js';
import { schemaValidator, send, type Answer } from './support.js';

const doc = loadSpec();
const contract = new Contract(doc);
const validator = schemaValidator(doc);
const envelopeSchema = { $ref: '#/components/schemas/ErrorEnvelope' };
const code = (role: Parameters<Contract['errorFor']>[0]) => contract.errorFor(role).code;
/** REQUIRED_PARAMETER where the operation documents it; an operation that does not gets INVALID_PARAMETER. */
const missingCode = (op: OperationInfo) => {
  const documented = op.responses[String(contract.errorFor('missing').status)]?.errorCodes ?? [];
  return documented.includes(code('missing')) ? code('missing') : code('invalid');
};

let mock: MockServer;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => {
  await mock?.close();
});

/**
 * The answer is the error envelope with `expected` (a catalogue code), sent with the catalogue's status for it,
 * and a code the operation documents for that status.
 */
function expectEnvelope(answer: Answer, expected: string, op?: OperationInfo): void {
  const context = `${answer.status} ${answer.text}`;
  expect(answer.headers.get('content-type'), context).toMatch(/^application\/json/);
  expect(validator.errors(envelopeSchema, answer.body), context).toEqual([]);
  const body = answer.body as { error: { code: string; message: string } };
  expect(body.error.code, context).toBe(expected);
  expect(answer.status, context).toBe(contract.catalog.get(expected)!.status);
  expect(Object.keys(answer.body as object)[0]).toBe('success');
  if (op) {
    const documented = op.responses[String(answer.status)];
    expect(documented, `${op.operationId} documents ${answer.status}`).toBeDefined();
    if (documented!.schema) expect(validator.errors(documented!.schema, answer.body), context).toEqual([]);
    expect(documented!.errorCodes, context).toContain(expected);
  }
}

const secured = contract.operations.filter((op) => op.security.length > 0);
const byId = (op: OperationInfo) => [op.operationId, op] as const;

function withoutHeader(headers: Record<string, string>, names: string[]): Record<string, string> {
  const drop = new Set(names.map((n) => n.toLowerCase()));
  return Object.fromEntries(Object.entries(headers).filter(([n]) => !drop.has(n.toLowerCase())));
}

describe('authentication (source: Authentication 6 and 9)', () => {
  it.each(secured.map(byId))('%s without a credential: 401 AUTH_MISSING_TOKEN', async (_, op) => {
    const req = exampleRequest(doc, op);
    const schemeHeaders = op.security.map((s) => contract.schemes.get(s)!.header);
    const answer = await send(mock.url, req.method, req.url, withoutHeader(req.headers, schemeHeaders), req.body);
    expectEnvelope(answer, code('noCredential'), op);
  });

  // Operations that accept no API key (the JWT-only /v3/pay/) refuse one with 403 AUTH_FORBIDDEN.
  const keySchemes = [...contract.schemes.values()].filter((s) => !s.httpScheme);
  const apiKeyScheme = keySchemes[0]!;
  const jwtOnly = secured.filter((op) => !keySchemes.some((s) => op.security.includes(s.name)));
  it('the contract has a JWT-only operation to check', () => {
    expect(jwtOnly.length).toBeGreaterThan(0);
  });
  /** The operation's example request with its own credential replaced by `header: value`. */
  const withOnly = (op: OperationInfo, header: string, value: string) => {
    const req = exampleRequest(doc, op);
    const schemeHeaders = op.security.map((s) => contract.schemes.get(s)!.header);
    const headers = { ...withoutHeader(req.headers, schemeHeaders), [header]: value };
    return send(mock.url, req.method, req.url, headers, req.body);
  };
  it.each(jwtOnly.map(byId))('%s with only an API key: 403 AUTH_FORBIDDEN', async (_, op) => {
    expectEnvelope(await withOnly(op, apiKeyScheme.header, 'wms_test_mock'), code('wrongCredential'), op);
  });

  // The key header sent twice (Node joins the two with ", ") is no key: the reference server answers 401
  // AUTH_INVALID_TOKEN, where the mock took it (200).
  const takesKeys = secured.filter((op) => keySchemes.some((s) => op.security.includes(s.name)));
  it.each(takesKeys.map(byId))('%s with the API key header sent twice: 401 AUTH_INVALID_TOKEN', async (_, op) => {
    const req = exampleRequest(doc, op);
    const headers = new Headers(req.headers);
    const scheme = keySchemes.find((s) => op.security.includes(s.name))!;
    headers.append(scheme.header, headers.get(scheme.header)!);
    const answer = await send(mock.url, req.method, req.url, Object.fromEntries(headers), req.body);
    expectEnvelope(answer, code('invalidCredential'), op);
  });

  // A JWT where only API keys are taken is a missing key (the contract's 401), as the reference server answers. The
  // mock answered 403 with the operation's first AUTH_FORBIDDEN example: "This API key is not valid for this area."
  const jwtScheme = [...contract.schemes.values()].find((s) => s.httpScheme)!;
  const keyOnly = secured.filter((op) => !op.security.includes(jwtScheme.name));
  it('the contract has operations that take API keys only', () => expect(keyOnly.length).toBeGreaterThan(0));
  it.each(keyOnly.map(byId))('%s with only a JWT: 401 AUTH_MISSING_TOKEN', async (_, op) => {
    expectEnvelope(await withOnly(op, jwtScheme.header, 'Bearer mock-token'), code('noCredential'), op);
  });

  // An Authorization header that is not `Bearer <token>` is an invalid credential (401 AUTH_INVALID_TOKEN) on the
  // reference server. The mock answered it as no credential (AUTH_MISSING_TOKEN), took `Bearer a b`, and refused the
  // scheme's name in lower case, which the service takes (an HTTP scheme's name is not case-sensitive).
  const takesJwt = secured.filter((op) => op.security.includes(jwtScheme.name));
  it('the contract has operations that take a JWT', () => expect(takesJwt.length).toBeGreaterThan(0));
  it.each(takesJwt.map(byId))(
    '%s: an Authorization header not of the Bearer <token> shape is 401 AUTH_INVALID_TOKEN; bearer <token> is taken',
    async (_, op) => {
      for (const value of ['Basic bW9jazptb2Nr', 'Bearer', 'Bearer mock token']) {
        expectEnvelope(await withOnly(op, jwtScheme.header, value), code('invalidCredential'), op);
      }
      expect((await withOnly(op, jwtScheme.header, 'bearer mock-token')).status).not.toBe(401);
      // Beside an API key the operation takes, the key is the credential read (DECISIONS G22).
      const key = keySchemes.find((s) => op.security.includes(s.name));
      if (!key) return;
      const req = exampleRequest(doc, op);
      const schemeHeaders = op.security.map((s) => contract.schemes.get(s)!.header);
      const headers = {
        ...withoutHeader(req.headers, schemeHeaders),
        [key.header]: `${key.keyArea}_test_mock`,
        [jwtScheme.header]: 'Basic x',
      };
      expect((await send(mock.url, req.method, req.url, headers, req.body)).status).not.toBe(401);
    },
  );

  // A key names its area (`{area}_{env}_{random}`, source: Authentication 3): one of an area the operation does not
  // take is 403 AUTH_FORBIDDEN, as on the reference server. Prism checked only that a key was sent.
  const areas = keySchemes.map((s) => s.keyArea!);
  const keyed = secured.filter((op) => keySchemes.some((s) => op.security.includes(s.name)));
  const narrow = keyed.filter((op) =>
    areas.some((a) => !op.security.some((n) => contract.schemes.get(n)!.keyArea === a)),
  );
  it("the contract has operations that take keys of some areas only, and some that take every area's", () => {
    expect(narrow.length).toBeGreaterThan(0);
    expect(narrow.length).toBeLessThan(keyed.length);
    expect(narrow.filter((op) => op.security.includes(jwtScheme.name)).length).toBeGreaterThan(0);
  });
  it.each(keyed.map(byId))(
    '%s: a key of an area it does not take is 403 AUTH_FORBIDDEN, one it takes is not',
    async (_, op) => {
      const req = exampleRequest(doc, op);
      // A tool call takes every area's key, and then a key of the called tool's own area only (tested below).
      const tool = [...contract.tools.values()].find((t) => req.url.includes(`/${t.name}/`));
      const takes = (area: string) =>
        op.security.some((n) => contract.schemes.get(n)!.keyArea === area) && (!tool || tool.area === area);
      const schemeHeaders = op.security.map((s) => contract.schemes.get(s)!.header);
      for (const area of areas) {
        const headers = { ...withoutHeader(req.headers, schemeHeaders), [apiKeyScheme.header]: `${area}_test_mock` };
        const answer = await send(mock.url, req.method, req.url, headers, req.body);
        if (takes(area)) expect(answer.status, area).not.toBe(403);
        else expectEnvelope(answer, code('wrongCredential'), op);
        // Where a JWT is taken too, one sent beside the key changes nothing: the key is read (DECISIONS G22).
        if (!op.security.includes(jwtScheme.name) || takes(area)) continue;
        const both = { ...headers, [jwtScheme.header]: 'Bearer mock-token' };
        expectEnvelope(await send(mock.url, req.method, req.url, both, req.body), code('wrongCredential'), op);
      }
      // A key without an area is not judged: the mock takes it as Prism does.
      const plain = { ...withoutHeader(req.headers, schemeHeaders), [apiKeyScheme.header]: 'mock-key' };
      expect((await send(mock.url, req.method, req.url, plain, req.body)).status).not.toBe(403);
    },
  );
});

// A call of an MCP-area tool is refused, as the reference server refuses it, once the request is taken: a tool the
// area does not have (404), a key of another area than the tool's (403, DECISIONS G8), arguments its input schema
// refuses (400). Prism answered every one with the operation's example result; one it takes is answered with the
// called tool's own result (below).
describe('tool calls of the MCP area', () => {
  const tools = [...contract.tools.values()];
  const call = contract.operations.find((op) => op.operationId === 'callMcpTool')!;
  const keyHeader = [...contract.schemes.values()].find((s) => s.keyArea !== undefined)!.header;
  const callTool = (name: string, area: string, body: unknown) =>
    send(
      mock.url,
      'POST',
      call.path.replace('{tool_name}', name),
      { [keyHeader]: `${area}_test_mock`, 'Content-Type': 'application/json' },
      JSON.stringify(body),
    );
  const message = (answer: Answer) => (answer.body as { error: { message: string } }).error.message;
  it('the contract has tools of more than one area', () => {
    expect(new Set(tools.map((t) => t.area)).size).toBeGreaterThan(1);
  });

  it('an unknown tool is 404 NOT_FOUND, naming it; with a Prefer naming an answer, that answer', async () => {
    const answer = await callTool('no_such_tool', tools[0]!.area, { arguments: {} });
    expectEnvelope(answer, code('unknownRoute'), call);
    expect(message(answer)).toBe(unknownToolMessage('no_such_tool'));
    // A name is data, as an order number is: the documented answer asked for is served for any (the kit does so).
    const asked = await send(
      mock.url,
      'POST',
      call.path.replace('{tool_name}', 'no_such_tool'),
      { [keyHeader]: `${tools[0]!.area}_test_mock`, 'Content-Type': 'application/json', Prefer: 'code=200' },
      JSON.stringify({ arguments: {} }),
    );
    expect(asked.status).toBe(200);
  });

  it.each(tools.map((t) => [t.name, t] as const))(
    '%s: refused to a key of another area and to arguments it does not take',
    async (_, tool) => {
      const args = Object.fromEntries(
        ((tool.input_schema.required as string[] | undefined) ?? []).map((name) => [name, 'X-1']),
      );
      for (const area of new Set(tools.map((t) => t.area))) {
        const answer = await callTool(tool.name, area, { arguments: args });
        if (area === tool.area) expect(answer.status, `${area}: ${answer.text}`).toBe(200);
        else {
          expectEnvelope(answer, code('wrongCredential'), call);
          expect(message(answer)).toBe(toolAreaMessage(tool));
        }
      }
      const unknown = await callTool(tool.name, tool.area, { arguments: { ...args, not_an_argument: 1 } });
      expectEnvelope(unknown, code('invalid'), call);
      expect(message(unknown)).toBe('arguments.not_an_argument is not an argument of this tool.');
      const required = (tool.input_schema.required as string[] | undefined) ?? [];
      if (required.length === 0) return;
      const missing = await callTool(tool.name, tool.area, { arguments: {} });
      expectEnvelope(missing, code('missing'), call);
      expect(message(missing)).toBe(`arguments.${required[0]} is required.`);
    },
  );

  // As the reference server answers: the called tool's name, and the wrapped operation's own result (here its first
  // success example), not the tool-call operation's one example, which is another tool's.
  it.each(tools.map((t) => [t.name, t] as const))(
    "%s: taken, answers with its own name and its operation's result",
    async (_, tool) => {
      const args = Object.fromEntries(
        ((tool.input_schema.required as string[] | undefined) ?? []).map((name) => [name, 'X-1']),
      );
      const answer = await callTool(tool.name, tool.area, { arguments: args });
      expect(answer.status, answer.text).toBe(200);
      expect(validator.errors(call.responses['200']!.schema, answer.body)).toEqual([]);
      const wrapped = contract.operations.find((op) => op.operationId === tool.operation_id)!;
      const example = contract.scenariosOf(wrapped).find((s) => s.status === '200')!.value as Record<string, unknown>;
      const expected = {
        tool: tool.name,
        result: example.data,
        ...(example.pagination ? { pagination: example.pagination } : {}),
      };
      expect((answer.body as { data: unknown }).data).toEqual(expected);
    },
  );
});

describe('parameters', () => {
  const schemaOf = (s: JsonSchema | undefined) => (s ? deref<JsonSchema>(doc, s) : {});

  const bounded = contract.operations.flatMap((op) =>
    op.parameters
      .filter((p) => p.in === 'query' && typeof schemaOf(p.schema).maximum === 'number')
      .map((p) => [`${op.operationId} ${p.name}`, op, p.name, schemaOf(p.schema).maximum as number] as const),
  );
  it('the contract has bounded query parameters to check', () => expect(bounded.length).toBeGreaterThan(0));
  it.each(bounded)('%s above its maximum: 400 INVALID_PARAMETER naming it', async (_, op, name, maximum) => {
    const req = exampleRequest(doc, op);
    const url = new URL(req.url, 'http://x');
    url.searchParams.set(name, String(maximum + 1));
    const answer = await send(mock.url, req.method, `${url.pathname}${url.search}`, req.headers, req.body);
    expectEnvelope(answer, code('invalid'), op);
    expect((answer.body as { error: { message: string } }).error.message).toContain(name);
  });

  // Integer query parameters are decimal digits only (info.x-limits.query_integer_syntax), and their schemas say so
  // with their bounds: the mock refuses a negative one from the schemas (Prism), as the reference server does.
  const integers = contract.operations.flatMap((op) =>
    op.parameters
      .filter((p) => p.in === 'query' && schemaOf(p.schema).type === 'integer')
      .map((p) => [`${op.operationId} ${p.name}`, op, p.name] as const),
  );
  it('the contract has the order status filter among its integer query parameters', () =>
    expect(integers.map(([at]) => at)).toContain('listWmsOrders order_status_code'));
  it.each(integers)('%s negative: 400 INVALID_PARAMETER naming it', async (_, op, name) => {
    const req = exampleRequest(doc, op);
    const url = new URL(req.url, 'http://x');
    url.searchParams.set(name, '-1');
    const answer = await send(mock.url, req.method, `${url.pathname}${url.search}`, req.headers, req.body);
    expectEnvelope(answer, code('invalid'), op);
    expect((answer.body as { error: { message: string } }).error.message).toContain(name);
  });

  // One below its minimum (`page=0`): the one problem in the reference server's words, and nothing more. A schema
  // and its `allOf` may both declare the minimum (page), and Prism then reports the same problem twice. Below a
  // minimum of 0 there is no value written as decimal digits: `-1` is refused for its sign (below).
  const floored = contract.operations.flatMap((op) =>
    op.parameters
      .filter((p) => p.in === 'query' && Number(schemaOf(p.schema).minimum ?? 0) >= 1)
      .map((p) => [`${op.operationId} ${p.name}`, op, p.name, schemaOf(p.schema).minimum as number] as const),
  );
  it('the contract has query parameters with a minimum, page among them', () =>
    expect(floored.map(([at]) => at)).toContain('listWmsOrders page'));
  it.each(floored)('%s below its minimum: 400 INVALID_PARAMETER saying that, once', async (_, op, name, minimum) => {
    const req = exampleRequest(doc, op);
    const url = new URL(req.url, 'http://x');
    url.searchParams.set(name, String(minimum - 1));
    const answer = await send(mock.url, req.method, `${url.pathname}${url.search}`, req.headers, req.body);
    expectEnvelope(answer, code('invalid'), op);
    expect((answer.body as { error: { message: string } }).error.message).toBe(
      `The query parameter ${name} must be >= ${minimum}.`,
    );
    // The header the longer messages point to lists it once too.
    const listed = JSON.parse(answer.headers.get(VIOLATIONS_HEADER) ?? '[]') as Array<{ location: string[] }>;
    expect(listed.filter((v) => v.location.join('.') === `request.query.${name}`)).toHaveLength(1);
  });

  // Written another way than info.x-limits.query_integer_syntax allows, or twice: Prism read `1e1` as ten and
  // answered 200. The words are the reference server's (integerQueryMessage of @cls-api/spec).
  const syntax = contractModel(doc).limits;
  it.each(integers)(
    "%s written another way than decimal digits, or twice: 400 in the reference's words",
    async (_, op, name) => {
      const req = exampleRequest(doc, op);
      for (const written of ['1e1', '+5', '10.0', ' 10', '0x10', '']) {
        const url = new URL(req.url, 'http://x');
        url.searchParams.set(name, written);
        const answer = await send(mock.url, req.method, `${url.pathname}${url.search}`, req.headers, req.body);
        expectEnvelope(answer, code('invalid'), op);
        expect((answer.body as { error: { message: string } }).error.message, written).toBe(
          integerQueryMessage(name, written, syntax),
        );
      }
      const url = new URL(req.url, 'http://x');
      url.searchParams.set(name, '1');
      url.searchParams.append(name, '2');
      const twice = await send(mock.url, req.method, `${url.pathname}${url.search}`, req.headers, req.body);
      expectEnvelope(twice, code('invalid'), op);
      expect((twice.body as { error: { message: string } }).error.message).toBe(
        `The query parameter ${name} must be given once.`,
      );
      // A credential missing is answered first, as on the reference server.
      const { 'X-API-Key': _key, Authorization: _jwt, ...anonymous } = req.headers as Record<string, string>;
      const bare = new URL(req.url, 'http://x');
      bare.searchParams.set(name, '1e1');
      expect((await send(mock.url, req.method, `${bare.pathname}${bare.search}`, anonymous, req.body)).status).toBe(
        401,
      );
    },
  );

  // A pattern the contract puts in words (x-pattern-meaning) is said in words: the calendar check is a few hundred
  // characters of regular expression, which Prism quoted, once for the pattern and again for its length and format.
  const worded = contract.operations.flatMap((op) =>
    op.parameters
      .filter((p) => p.in === 'query' && contract.patternMeanings.has(String(schemaOf(p.schema).pattern)))
      .map((p) => [`${op.operationId} ${p.name}`, op, p.name, schemaOf(p.schema).pattern as string] as const),
  );
  it('the contract has query parameters whose pattern it puts in words', () =>
    expect(worded.map(([at]) => at)).toEqual(
      expect.arrayContaining(['listWmsOrders updated_after', 'listInventory product_code']),
    ));
  it.each(worded)('%s written wrong: 400 INVALID_PARAMETER saying what it must be', async (_, op, name, pattern) => {
    const req = exampleRequest(doc, op);
    const url = new URL(req.url, 'http://x');
    // Wrong for every worded pattern: not a date, and a control character, which no text pattern allows.
    url.searchParams.set(name, '2026/12/1\u0001');
    const answer = await send(mock.url, req.method, `${url.pathname}${url.search}`, req.headers, req.body);
    expectEnvelope(answer, code('invalid'), op);
    expect((answer.body as { error: { message: string } }).error.message).toBe(
      `The query parameter ${name} must be ${contract.patternMeanings.get(pattern)}.`,
    );
  });

  const requiredQuery = contract.operations.flatMap((op) =>
    op.parameters
      .filter((p) => p.in === 'query' && p.required)
      .map((p) => [`${op.operationId} ${p.name}`, op, p.name] as const),
  );
  it('the contract has required query parameters to check', () => expect(requiredQuery.length).toBeGreaterThan(0));
  it.each(requiredQuery)('%s missing: 400 REQUIRED_PARAMETER naming it', async (_, op, name) => {
    const req = exampleRequest(doc, op);
    const url = new URL(req.url, 'http://x');
    url.searchParams.delete(name);
    const answer = await send(mock.url, req.method, `${url.pathname}${url.search}`, req.headers, req.body);
    expectEnvelope(answer, missingCode(op), op);
    expect((answer.body as { error: { message: string } }).error.message).toContain(name);
  });

  const patterned = contract.operations.flatMap((op) =>
    op.parameters
      .filter((p) => p.in === 'path' && typeof schemaOf(p.schema).pattern === 'string')
      .map((p) => [`${op.operationId} ${p.name}`, op, p.name] as const),
  );
  it.each(patterned)('%s breaking its pattern: 400 INVALID_PARAMETER naming it', async (_, op, name) => {
    const req = exampleRequest(doc, op);
    const [path, query] = req.url.split('?');
    const segments = path!.split('/');
    // A control character breaks every identifier pattern (spec Identifier); dots, spaces and Hangul do not.
    segments[op.path.split('/').indexOf(`{${name}}`)] = encodeURIComponent('no\u0007such');
    const url = segments.join('/') + (query ? `?${query}` : '');
    const answer = await send(mock.url, req.method, url, req.headers, req.body);
    expectEnvelope(answer, code('invalid'), op);
    expect((answer.body as { error: { message: string } }).error.message).toContain(name);
  });
});

describe('request bodies (source: Errors, rule 5)', () => {
  const withBody = contract.operations.filter((op) => op.requestBody);
  const message = (answer: Answer) => (answer.body as { error: { message: string } }).error.message;

  it.each(withBody.map(byId))('%s without a body: 400 REQUIRED_PARAMETER (where documented)', async (_, op) => {
    const req = exampleRequest(doc, op);
    const answer = await send(mock.url, req.method, req.url, req.headers);
    expectEnvelope(answer, missingCode(op), op);
  });

  it.each(withBody.map(byId))('%s with a body that is not JSON: 400 INVALID_PARAMETER', async (_, op) => {
    const req = exampleRequest(doc, op);
    const answer = await send(mock.url, req.method, req.url, req.headers, '{"orders": [');
    expectEnvelope(answer, code('invalid'), op);
  });

  it.each(withBody.map(byId))('%s with a text/plain body: 400 INVALID_PARAMETER', async (_, op) => {
    const req = exampleRequest(doc, op);
    const answer = await send(mock.url, req.method, req.url, { ...req.headers, 'Content-Type': 'text/plain' }, 'hello');
    expectEnvelope(answer, code('invalid'), op);
  });

  // Prism took a `+json` type for JSON (200), failed on a list of types (500 INTERNAL_ERROR), and read a Content-Type
  // without a body as no body (REQUIRED_PARAMETER); the reference server refuses each as a body of another type.
  it.each(withBody.map(byId))("%s sent as another media type: 400 in the reference server's words", async (_, op) => {
    const req = exampleRequest(doc, op);
    const expected = `The request body must be sent as ${op.requestBody!.contentType}.`;
    for (const [type, body] of [
      ['application/vnd.api+json', req.body],
      ['application/json, text/plain', req.body],
      ['text/json', req.body],
      ['text/plain', undefined],
    ] as const) {
      const answer = await send(mock.url, req.method, req.url, { ...req.headers, 'Content-Type': type }, body);
      expectEnvelope(answer, code('invalid'), op);
      expect(message(answer), type).toBe(expected);
    }
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      const answer = await send(mock.url, req.method, req.url, { ...req.headers, 'Content-Type': type }, req.body);
      expect(answer.status, `${type}: ${answer.text}`).toBeLessThan(300);
    }
  });

  // The reference server checks the credential before it reads the body; the mock refused the body first (400).
  const securedWithBody = withBody.filter((op) => op.security.length > 0);
  it.each(securedWithBody.map(byId))(
    '%s without a credential and with a body it would refuse: 401 first',
    async (_, op) => {
      const req = exampleRequest(doc, op);
      const headers = withoutHeader(
        req.headers,
        op.security.map((s) => contract.schemes.get(s)!.header),
      );
      for (const [extra, body] of [
        [{ 'Content-Encoding': 'gzip' }, req.body],
        [{ 'Content-Type': 'text/json' }, req.body],
        [{}, new Uint8Array([0xff, 0xfe])],
        [{}, 'null'],
      ] as const) {
        const answer = await send(mock.url, req.method, req.url, { ...headers, ...extra }, body);
        expect([answer.status, (answer.body as { error?: { code?: string } }).error?.code], answer.text).toEqual([
          401,
          code('noCredential'),
        ]);
      }
    },
  );

  it.each(withBody.map(byId))('%s with an empty object: 400, the code the contract gives', async (_, op) => {
    const req = exampleRequest(doc, op);
    const schema = deref<JsonSchema>(doc, op.requestBody!.schema!);
    // Nothing required is there: a `required` property, or the one field an update must name at least (G27).
    const required =
      (Array.isArray(schema.required) && schema.required.length > 0) ||
      (typeof schema.minProperties === 'number' && schema.minProperties > 0);
    const answer = await send(mock.url, req.method, req.url, req.headers, '{}');
    expectEnvelope(answer, required ? missingCode(op) : code('invalid'), op);
  });

  // Prism took a body of JSON `null` for no body (REQUIRED_PARAMETER "The request body is required."), and worded an
  // unknown field and a body naming no field in its own words; the reference server's words are asserted here.
  it.each(withBody.map(byId))(
    '%s with a body of JSON null: 400 INVALID_PARAMETER, a body of the wrong type',
    async (_, op) => {
      const req = exampleRequest(doc, op);
      const schema = deref<JsonSchema>(doc, op.requestBody!.schema!);
      const answer = await send(mock.url, req.method, req.url, req.headers, 'null');
      expectEnvelope(answer, code('invalid'), op);
      expect(message(answer)).toBe(`The request body must be ${String(schema.type)}.`);
    },
  );

  const closed = withBody.filter(
    (op) => deref<JsonSchema>(doc, op.requestBody!.schema!).additionalProperties === false,
  );
  it('the contract has request bodies that take no unknown field', () => expect(closed.length).toBeGreaterThan(0));
  it.each(closed.map(byId))('%s with an unknown field: 400 INVALID_PARAMETER naming the field', async (_, op) => {
    const req = exampleRequest(doc, op);
    const body = JSON.stringify({ ...(JSON.parse(req.body!) as object), 'no\u0007such': 1 });
    const answer = await send(mock.url, req.method, req.url, req.headers, body);
    expectEnvelope(answer, code('invalid'), op);
    expect(message(answer)).toBe('no\\u0007such is not allowed.');
  });

  const updates = withBody.filter((op) => deref<JsonSchema>(doc, op.requestBody!.schema!).minProperties === 1);
  it('the contract has an update that must name a field', () => expect(updates.length).toBeGreaterThan(0));
  it.each(updates.map(byId))('%s naming no field: the fields it may name (DECISIONS G27)', async (_, op) => {
    const req = exampleRequest(doc, op);
    const fields = Object.keys(deref<JsonSchema>(doc, op.requestBody!.schema!).properties as object);
    const answer = await send(mock.url, req.method, req.url, req.headers, '{}');
    expectEnvelope(answer, missingCode(op), op);
    expect(message(answer)).toBe(`The request body names no field: give at least 1 of ${fields.join(', ')}.`);
  });

  // The contract's own deliberately invalid bodies, each with the answer it must get.
  const invalidExamples = contract.operations.flatMap((op) => {
    const raw = deref<RequestBodyObject>(doc, doc.paths![op.path]![op.method]!.requestBody ?? { content: {} });
    const examples = (raw['x-invalid-examples'] ?? {}) as Record<
      string,
      { value: unknown; expected: { status: number; code: string } }
    >;
    return Object.entries(examples).map(([name, ex]) => [`${op.operationId} ${name}`, op, ex] as const);
  });
  it('the contract has x-invalid-examples to send', () => expect(invalidExamples.length).toBeGreaterThan(0));
  it.each(invalidExamples)('%s: the expected status and code', async (_, op, ex) => {
    const req = exampleRequest(doc, op);
    const answer = await send(mock.url, req.method, req.url, req.headers, JSON.stringify(ex.value));
    expect(answer.status).toBe(ex.expected.status);
    expectEnvelope(answer, ex.expected.code, op);
  });

  // Bulk bodies: more rows than the contract allows is a format error of the whole request.
  const bulk = withBody.flatMap((op) => {
    const schema = deref<JsonSchema>(doc, op.requestBody!.schema!);
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    return Object.entries(props)
      .map(([name, prop]) => [name, deref<JsonSchema>(doc, prop)] as const)
      .filter(([, prop]) => typeof prop.maxItems === 'number')
      .map(([name, prop]) => [`${op.operationId} ${name}`, op, name, prop.maxItems as number] as const);
  });
  it('the bulk row limit is the one of x-limits', () => {
    const limit = (doc.info['x-limits'] as { bulk_rows_per_request: number }).bulk_rows_per_request;
    expect(bulk.length).toBeGreaterThan(0);
    for (const [, , , max] of bulk) expect(max).toBe(limit);
  });
  it.each(bulk)('%s with one row more than maxItems: 400 INVALID_PARAMETER', async (_, op, name, maxItems) => {
    const req = exampleRequest(doc, op);
    const body = JSON.parse(req.body!) as Record<string, unknown[]>;
    const row = body[name]![0];
    body[name] = Array.from({ length: maxItems + 1 }, () => row);
    const answer = await send(mock.url, req.method, req.url, req.headers, JSON.stringify(body));
    expectEnvelope(answer, code('invalid'), op);
  });
  it.each(bulk)('%s with exactly maxItems rows: accepted', async (_, op, name, maxItems) => {
    const req = exampleRequest(doc, op);
    const body = JSON.parse(req.body!) as Record<string, unknown[]>;
    const row = body[name]![0];
    body[name] = Array.from({ length: maxItems }, () => row);
    const answer = await send(mock.url, req.method, req.url, req.headers, JSON.stringify(body));
    expect(answer.status).toBe(200);
  });
});

describe('routes and mock controls', () => {
  const anyKey = { 'X-API-Key': 'wms_test_mock', Accept: 'application/json' };

  it('an unknown path: 404 NOT_FOUND', async () => {
    expectEnvelope(await send(mock.url, 'GET', '/v3/wms/no-such-thing', anyKey), code('unknownRoute'));
    expectEnvelope(await send(mock.url, 'GET', '/', anyKey), code('unknownRoute'));
    expectEnvelope(await send(mock.url, 'GET', '/v2/manager/orders', anyKey), code('unknownRoute'));
  });

  it('a method the path does not have: 404 NOT_FOUND', async () => {
    for (const op of contract.operations) {
      const unused = ['delete', 'put', 'patch', 'post', 'get'].find((m) => !doc.paths![op.path]![m as 'get']);
      if (!unused) continue;
      const req = exampleRequest(doc, op);
      const answer = await send(mock.url, unused.toUpperCase(), req.url, req.headers);
      expectEnvelope(answer, code('unknownRoute'));
      // In the reference server's words, naming the methods the path has.
      expect((answer.body as { error: { message: string } }).error.message).toBe(
        noOperationMessage(unused.toUpperCase(), req.url.split('?')[0]!),
      );
      expect((answer.body as { error: { message: string } }).error.message).toMatch(/: it has [A-Z, ]+\.$/);
    }
  });

  it('an Accept header that excludes JSON: 400 INVALID_PARAMETER, in JSON', async () => {
    const op = contract.operations.find((o) => o.method === 'get' && o.security.length > 0)!;
    const req = exampleRequest(doc, op);
    expectEnvelope(await send(mock.url, 'GET', req.url, { ...req.headers, Accept: 'text/html' }), code('invalid'), op);
  });

  it.each(contract.operations.map(byId))(
    '%s: an undocumented example or status in Prefer is refused with the list',
    async (_, op) => {
      const req = exampleRequest(doc, op);
      const names = contract.scenariosOf(op).map((s) => s.example);
      for (const prefer of [
        'example=no_such_example',
        'code=418',
        `code=${Object.keys(op.responses)[0] === '200' ? '500' : '200'}, example=${names.find((n) => contract.scenariosOf(op).find((s) => s.example === n)!.status !== '500')}`,
      ]) {
        const answer = await send(mock.url, req.method, req.url, { ...req.headers, Prefer: prefer }, req.body);
        expect(answer.status, prefer).toBe(contract.errorFor('invalid').status);
        const body = answer.body as { error: { code: string; message: string } };
        expect(body.error.message, prefer).toMatch(/^Mock: /);
        expect(validator.errors(envelopeSchema, answer.body)).toEqual([]);
        if (prefer.startsWith('example=')) for (const name of names) expect(body.error.message).toContain(name);
      }
    },
  );

  it('a missing credential wins over a Prefer for a success example', async () => {
    const op = secured.find((o) => o.method === 'get')!;
    const req = exampleRequest(doc, op);
    const headers = withoutHeader(
      req.headers,
      op.security.map((s) => contract.schemes.get(s)!.header),
    );
    const success = contract.scenariosOf(op).find((s) => s.status.startsWith('2'))!;
    const answer = await send(mock.url, 'GET', req.url, { ...headers, Prefer: `example=${success.example}` });
    expectEnvelope(answer, code('noCredential'), op);
  });
});
