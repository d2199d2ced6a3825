// Turns what Prism answered into what this API answers: every error in the envelope
// `{success: false, error: {code, message}}` with a catalogue code, and only the headers the contract gives values
// for. Pure functions, so every rule can be tested without a running Prism.
import { isDeepStrictEqual } from 'node:util';
import {
  describeRequestError,
  noOperationMessage,
  type RequestPart,
  type SchemaRefusal,
  schemaAt,
} from '@cls-api/server';
import {
  apiKeyShape,
  calledToolName,
  type JsonSchema,
  type McpToolDefinition,
  type OperationInfo,
  toolAreaMessage,
  unknownToolMessage,
} from '@cls-api/spec';
import { type CredentialScheme, errorCodeOf, type Contract, type ErrorRole, type Scenario } from './contract.js';

/** A violation as Prism reports it in its `sl-violations` header. */
export interface Violation {
  location: Array<string | number>;
  severity?: string;
  code: string | number;
  message: string;
}

export interface Preference {
  code?: string;
  example?: string;
  /** Tokens other than code and example (Prism's `dynamic=true`), passed on unchanged. */
  rest: string[];
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface ShapedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** The named example served, when the body is one. */
  example?: string;
  /** Why the mock rewrote Prism's answer, when it did. */
  rewritten?: string;
}

export interface RequestFacts {
  method: string;
  pathname: string;
  /** Lower-cased request headers. */
  headers: Record<string, string | string[] | undefined>;
  op?: OperationInfo;
  prefer: Preference;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);
/** Prism's header for request problems: kept, because it tells a mock user exactly what was wrong. */
export const VIOLATIONS_HEADER = 'sl-violations';

export function parsePrefer(value: string | string[] | undefined): Preference {
  const out: Preference = { rest: [] };
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  for (const token of text.split(/[,;]/)) {
    const trimmed = token.trim();
    if (!trimmed) continue;
    const eq = trimmed.indexOf('=');
    const key = (eq < 0 ? trimmed : trimmed.slice(0, eq)).trim().toLowerCase();
    const raw = eq < 0 ? '' : trimmed.slice(eq + 1).trim();
    const val = raw.replace(/^"(.*)"$/, '$1');
    if (key === 'code') out.code = val;
    else if (key === 'example') out.example = val;
    else out.rest.push(trimmed);
  }
  return out;
}

export function formatPrefer(p: Preference): string {
  return [...(p.code ? [`code=${p.code}`] : []), ...(p.example ? [`example=${p.example}`] : []), ...p.rest].join(', ');
}

/**
 * Checks a `Prefer` header against the operation's documented responses and completes it: `example=` alone gets
 * the status that documents that example (Prism alone only looks under the default 2xx response).
 * Returns an error message for a status or example the operation does not document.
 */
export function resolvePrefer(
  contract: Contract,
  op: OperationInfo,
  prefer: Preference,
): { prefer: Preference } | { error: string } {
  const scenarios = contract.scenariosOf(op);
  const list = () => scenarios.map((s) => `${s.example} (${s.status})`).join(', ');
  if (prefer.example !== undefined) {
    const matches = scenarios.filter((s) => s.example === prefer.example);
    const chosen = prefer.code !== undefined ? matches.find((s) => s.status === prefer.code) : matches[0];
    if (!chosen) {
      const where = prefer.code !== undefined ? ` under status ${prefer.code}` : '';
      return {
        error: `Mock: Prefer example=${prefer.example} names no example of ${op.operationId}${where}. Its examples: ${list()}.`,
      };
    }
    return { prefer: { ...prefer, code: chosen.status } };
  }
  if (prefer.code !== undefined && !(prefer.code in op.responses)) {
    const statuses = Object.keys(op.responses).join(', ');
    return { error: `Mock: Prefer code=${prefer.code} is not a documented status of ${op.operationId} (${statuses}).` };
  }
  return { prefer };
}

/**
 * The entries of Prism's `sl-violations` header, each once, or undefined when it holds no JSON list. Prism reports a
 * keyword once for every schema of a value that declares it (a parameter whose schema and `allOf` both say
 * `minimum: 1`), and one problem listed twice would read as two.
 */
function violationEntries(value: string | string[] | undefined): unknown[] | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Array.isArray(value) ? value[0]! : value);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  const seen = new Set<string>();
  return parsed.filter((v: unknown) => {
    // Prism's repeats are the same entry written again, word for word.
    const key = JSON.stringify(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const isViolation = (v: unknown): v is Violation =>
  typeof v === 'object' &&
  v !== null &&
  Array.isArray((v as Violation).location) &&
  typeof (v as Violation).message === 'string';

/** One line of at most 1,000 characters: the contract's `Text`. */
export function asText(message: string): string {
  const line = message.replace(/[\x00-\x1F\x7F]+/g, ' ').trim();
  return line.length > 1000 ? `${line.slice(0, 997)}...` : line;
}

// A body that names none of the fields it must name at least one of (`minProperties`, an update with nothing to
// change) misses a required item, like a missing property (DECISIONS G27).
const isRequired = (v: Violation) => v.code === 'required' || v.code === 'minProperties';

/**
 * One of Prism's violations of a parameter or the body as the refusal of the schema it reports, so that it is worded
 * as the reference server words it (`describeRequestError`); undefined for any other (a header, a media type, a
 * body missing). Prism keeps Ajv's keyword as the code and writes the value's place before Ajv's words ("Request
 * body property orders.2 must have required property 'receiver_name'"); what Ajv kept as parameters is in the words.
 */
export function refusalOf(v: Violation): { part: RequestPart; error: SchemaRefusal } | undefined {
  const part = ({ body: 'body', query: 'query', path: 'params' } as const)[String(v.location[1])];
  if (part === undefined || typeof v.code !== 'string') return undefined;
  const segments = v.location.slice(2).map(String);
  const dotted = segments.join('.');
  const at = dotted ? v.message.indexOf(`${dotted} `) : -1;
  const message =
    at >= 0
      ? v.message.slice(at + dotted.length + 1)
      : v.message.replace(/^Request (?:body(?: property)?|(?:query|path) parameter) /, '');
  const limit = / than (\d+) propert/.exec(message)?.[1];
  return {
    part,
    error: {
      keyword: v.code,
      instancePath: segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join(''),
      params: {
        missingProperty: /required property '([^']*)'/.exec(message)?.[1],
        additionalProperty: /; found '([^']*)'$/.exec(message)?.[1],
        limit: limit === undefined ? undefined : Number(limit),
      },
      message,
    },
  };
}

/**
 * A sentence naming the field, from one of Prism's violations, in the reference server's words. `bodySchemaAt`
 * gives the body's schema at an instance path, for an object that must name at least one of its fields.
 */
export function describeViolation(
  v: Violation,
  bodySchemaAt?: (instancePath: string) => JsonSchema | undefined,
): string {
  const refusal = refusalOf(v);
  if (refusal) {
    const schemaOf = refusal.part === 'body' ? bodySchemaAt : undefined;
    return describeRequestError(refusal.part, refusal.error, schemaOf).message;
  }
  if (isRequired(v) && v.location[1] === undefined) return 'The request body is required.';
  if (v.code === 415) return `Unsupported Content-Type. ${v.message}.`;
  return `${v.message}.`;
}

function envelope(code: string, message: string): Buffer {
  return Buffer.from(JSON.stringify({ success: false, error: { code, message: asText(message) } }));
}

function isEnvelope(body: unknown): boolean {
  return typeof body === 'object' && body !== null && typeof (body as { success?: unknown }).success === 'boolean';
}

/** The JSON value of `body`, or undefined when it is not JSON. */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A mock-made error: a catalogue code with its catalogue status, or the status the operation documents. */
export function errorResponse(
  contract: Contract,
  role: ErrorRole,
  message: string,
  op?: OperationInfo,
): ShapedResponse {
  let { code, status } = contract.errorFor(role);
  // Prefer a code this operation documents for that status, so clients only ever see documented codes.
  const documented = op?.responses[String(status)]?.errorCodes;
  if (documented && documented.length > 0 && !documented.includes(code)) code = documented[0]!;
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: envelope(code, message),
    rewritten: role,
  };
}

/** The operation's documented example for `status` with `error.code`, served as written. */
function documentedError(contract: Contract, op: OperationInfo, status: number, code: string): Scenario | undefined {
  return contract.scenariosOf(op).find((s) => s.status === String(status) && s.errorCode === code);
}

function credentialSent(contract: Contract, req: RequestFacts, schemeName: string): boolean {
  const scheme = contract.schemes.get(schemeName);
  if (!scheme) return false;
  const value = req.headers[scheme.header];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text?.trim()) return false;
  return scheme.httpScheme ? typeof schemeToken(scheme.httpScheme, text) === 'string' : true;
}

/**
 * The token of an authorization header of `scheme` (`Bearer <token>`): the scheme's name in any case (RFC 9110
 * 11.1), one token after it. Null for a header of another shape (`Basic …`, `Bearer` alone, two tokens), which the
 * reference server refuses as an invalid credential; undefined for no header or an empty one.
 */
export function schemeToken(scheme: string, header: string | string[] | undefined): string | null | undefined {
  const text = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!text) return undefined;
  const [name, ...rest] = text.split(/ +/);
  return name!.toLowerCase() === scheme.toLowerCase() && rest.length === 1 ? rest[0]! : null;
}

/**
 * The answer to an authorization header the reference server refuses by its shape alone (401 `AUTH_INVALID_TOKEN`),
 * where the operation takes it and no API key it takes is sent (the key is the one read then, DECISIONS G22).
 */
export function refuseAuthorization(
  contract: Contract,
  req: RequestFacts,
  op: OperationInfo,
): ShapedResponse | undefined {
  const schemes = op.security.map((name) => contract.schemes.get(name)).filter((s) => s !== undefined);
  const http = schemes.find((s) => s.httpScheme !== undefined);
  if (!http || schemes.some((s) => s.httpScheme === undefined && credentialSent(contract, req, s.name)))
    return undefined;
  if (schemeToken(http.httpScheme!, req.headers[http.header]) !== null) return undefined;
  return (
    documentedRefusal(contract, op, 'invalidCredential') ??
    errorResponse(contract, 'invalidCredential', `The ${headerName(http.header)} header must be ${bearer(http)}.`, op)
  );
}

/** `authorization` → `Authorization`, as a message names a header. */
const headerName = (header: string) =>
  header.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
const bearer = (scheme: CredentialScheme) => `${headerName(scheme.httpScheme!)} <access_token>`;

/**
 * The authorization header as Prism reads it: Prism takes the scheme's name in one case only (`Bearer`), where the
 * service takes any. Undefined when the header is absent, refused, or written so already.
 */
export function prismAuthorization(
  contract: Contract,
  op: OperationInfo,
  headers: RequestFacts['headers'],
): { header: string; value: string } | undefined {
  for (const scheme of op.security.map((name) => contract.schemes.get(name))) {
    if (scheme?.httpScheme === undefined) continue;
    const token = schemeToken(scheme.httpScheme, headers[scheme.header]);
    const value = `${headerName(scheme.httpScheme)} ${token}`;
    if (typeof token === 'string' && headers[scheme.header] !== value) return { header: scheme.header, value };
  }
  return undefined;
}

/**
 * Answers a failed security check: 403 when only an API key was sent to an operation that takes none (the JWT-only
 * /v3/pay/, spec/components/responses/ForbiddenPay.yaml), else 401. A JWT sent where only API keys are taken is a
 * missing key, as the contract's 401 says (spec/components/responses/Unauthorized.yaml: "The API key is missing or
 * invalid") and the reference server answers: the operation's 403 is for a valid key that may not be used there.
 */
function securityFailure(contract: Contract, req: RequestFacts, op: OperationInfo): ShapedResponse {
  const isKey = (name: string) => contract.schemes.get(name)?.httpScheme === undefined;
  const foreign =
    !op.security.some(isKey) &&
    [...contract.schemes.keys()].some((name) => isKey(name) && credentialSent(contract, req, name));
  const role: ErrorRole = foreign ? 'wrongCredential' : 'noCredential';
  const documented = documentedRefusal(contract, op, role);
  if (documented) return documented;
  const accepted = op.security.map((s) => contract.schemes.get(s)?.header ?? s).join(' or ');
  return errorResponse(contract, role, foreign ? `This operation accepts only ${accepted}.` : `Send ${accepted}.`, op);
}

/**
 * The answer to an API key the reference server refuses though the mock cannot look it up: more than one key (the
 * header sent twice), which is no key (401 `AUTH_INVALID_TOKEN`), and a key of another area (`manager_test_…` on a
 * `/v3/wms/` operation, 403 `AUTH_FORBIDDEN`), each as the operation's first documented example of its code. A JWT
 * sent beside the key changes nothing: where both are taken, the key is the one read (DECISIONS G22). Undefined when
 * the key's area is one the operation takes, or when the key has no area (`{area}_{env}_{random}`, which the mock
 * cannot judge otherwise).
 */
export function refuseKey(contract: Contract, req: RequestFacts, op: OperationInfo): ShapedResponse | undefined {
  const accepted = op.security.map((name) => contract.schemes.get(name)).filter((s) => s !== undefined);
  const keyed = accepted.filter((s) => s.keyArea !== undefined);
  if (keyed.length === 0) return undefined;
  const raw = req.headers[keyed[0]!.header];
  const key = ((Array.isArray(raw) ? raw[0] : raw) ?? '').trim();
  // Node joins a header sent twice with ", ", and no key holds a comma.
  if (key.includes(','))
    return (
      documentedRefusal(contract, op, 'invalidCredential') ??
      errorResponse(contract, 'invalidCredential', 'The API key is invalid.', op)
    );
  const shape = apiKeyShape(key);
  if (!shape || keyed.some((s) => s.keyArea === shape.area)) return undefined;
  return (
    documentedRefusal(contract, op, 'wrongCredential') ??
    errorResponse(contract, 'wrongCredential', 'This API key is not valid for this area.', op)
  );
}

/** The tool a request of the tool-call operation names, and its definition when the contract has it. */
function calledTool(
  contract: Contract,
  req: RequestFacts,
  op: OperationInfo,
): { name: string; tool: McpToolDefinition | undefined } | undefined {
  if (op !== contract.toolCall?.op) return undefined;
  const name = calledToolName(op, req.pathname);
  return name === undefined ? undefined : { name, tool: contract.tools.get(name) };
}

/**
 * The answer to a tool call the mock takes, as the reference server gives it: the called tool's name, and the wrapped
 * operation's `data` (with its `pagination`, for a paged list) from that operation's first success example. Prism
 * served the tool-call operation's one example, whose `tool` is `wms_get_order` whichever tool was called. A Prefer
 * that names an example is served as written, as for any operation.
 */
export function toolCallResult(
  contract: Contract,
  req: RequestFacts,
  op: OperationInfo,
  shaped: ShapedResponse,
): ShapedResponse | undefined {
  if (shaped.status !== 200 || req.prefer.example !== undefined) return undefined;
  const tool = calledTool(contract, req, op)?.tool;
  const wrapped = tool && contract.operations.find((o) => o.operationId === tool.operation_id);
  const success = wrapped && contract.scenariosOf(wrapped).find((s) => s.status === '200');
  if (!success) return undefined;
  const { data, pagination } = success.value as { data: unknown; pagination?: unknown };
  const result = { tool: tool.name, result: data, ...(pagination === undefined ? {} : { pagination }) };
  return {
    ...shaped,
    body: Buffer.from(JSON.stringify({ success: true, data: result })),
    example: `${success.operationId} ${success.example}`,
    rewritten: 'toolResult',
  };
}

/**
 * The answer to a tool call the reference server refuses once the request itself is taken: a tool the area does not
 * have (404, unless a Prefer names the answer), a key of another area than the tool's (403, DECISIONS G8; a key
 * without an area is not judged), and arguments its input schema refuses (400), each in the reference server's
 * words. Prism answered each with the operation's example result.
 */
export function refuseToolCall(
  contract: Contract,
  req: RequestFacts,
  op: OperationInfo,
  body: Buffer,
): ShapedResponse | undefined {
  const called = calledTool(contract, req, op);
  if (!called) return undefined;
  const { name, tool } = called;
  // A name is data, as an order number is: with a Prefer naming an answer, that answer is served for any name.
  if (!tool) {
    const chosen = req.prefer.code !== undefined || req.prefer.example !== undefined;
    return chosen ? undefined : errorResponse(contract, 'unknownRoute', unknownToolMessage(name), op);
  }
  const keyed = op.security.map((s) => contract.schemes.get(s)).find((s) => s?.keyArea !== undefined);
  const raw = keyed ? req.headers[keyed.header] : undefined;
  const area = apiKeyShape(((Array.isArray(raw) ? raw[0] : raw) ?? '').trim())?.area;
  if (area !== undefined && area !== tool.area)
    return errorResponse(contract, 'wrongCredential', toolAreaMessage(tool), op);
  const args = (parseJson(body) as { arguments?: unknown } | undefined)?.arguments;
  const refused = contract.toolArgumentRefusal(tool, args);
  if (refused)
    return errorResponse(contract, refused.code === 'REQUIRED_PARAMETER' ? 'missing' : 'invalid', refused.message, op);
  return undefined;
}

/**
 * What the reference server answers before it reads a body: no credential of a scheme the operation takes (401, or
 * 403 when only an API key was sent where none is taken), or a key it refuses (`refuseKey`); undefined otherwise.
 */
export function credentialRefusal(
  contract: Contract,
  req: RequestFacts,
  op: OperationInfo,
): ShapedResponse | undefined {
  if (op.security.length === 0) return undefined;
  const malformed = refuseAuthorization(contract, req, op);
  if (malformed) return malformed;
  if (!op.security.some((name) => credentialSent(contract, req, name))) return securityFailure(contract, req, op);
  return refuseKey(contract, req, op);
}

/** The operation's first documented example of the code the mock answers for `role`, served as written. */
function documentedRefusal(contract: Contract, op: OperationInfo, role: ErrorRole): ShapedResponse | undefined {
  const { code, status } = contract.errorFor(role);
  const example = documentedError(contract, op, status, code);
  if (!example) return undefined;
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(JSON.stringify(example.value)),
    example: example.example,
    rewritten: role,
  };
}

const PATTERN_MESSAGE = 'must match pattern "';

/**
 * Prism's violations with each value whose pattern the contract puts in words (`x-pattern-meaning`) said in words,
 * once, where its first violation was: its length, pattern and format violations would each quote the pattern or
 * say less, as the reference server's validator puts them in words too.
 */
export function inWords(meanings: ReadonlyMap<string, string>, violations: Violation[]): Violation[] {
  const worded = new Map<string, Violation>();
  for (const v of violations) {
    const at = v.message.indexOf(PATTERN_MESSAGE);
    const meaning = at < 0 ? undefined : meanings.get(v.message.slice(at + PATTERN_MESSAGE.length, -1));
    if (meaning !== undefined) {
      worded.set(JSON.stringify(v.location), { ...v, message: `${v.message.slice(0, at)}must be ${meaning}` });
    }
  }
  if (worded.size === 0) return violations;
  const out: Violation[] = [];
  const placed = new Set<string>();
  for (const v of violations) {
    const key = JSON.stringify(v.location);
    const said = worded.get(key);
    if (!said) out.push(v);
    else if (!placed.has(key)) {
      placed.add(key);
      out.push(said);
    }
  }
  return out;
}

/** Answers a request Prism found invalid: REQUIRED_PARAMETER when something is missing, else INVALID_PARAMETER. */
function validationFailure(
  contract: Contract,
  op: OperationInfo | undefined,
  found: Violation[],
  fallback: string,
): ShapedResponse {
  const violations = inWords(contract.patternMeanings, found);
  const first = violations.find(isRequired) ?? violations[0];
  const role: ErrorRole = first && isRequired(first) ? 'missing' : 'invalid';
  const bodySchemaAt = (at: string) => schemaAt(contract.doc, op?.requestBody?.schema, at);
  let message = first ? describeViolation(first, bodySchemaAt) : fallback;
  if (violations.length > 1) message += ` (${violations.length - 1} more: see the ${VIOLATIONS_HEADER} header)`;
  return errorResponse(contract, role, message, op);
}

/**
 * The response the mock sends for Prism's `upstream` answer to `req`:
 * - Prism's own errors (`application/problem+json`, or JSON without `success`) become envelopes with a catalogue
 *   code: unknown route or method 404, invalid request 400, Prism failure 500.
 * - A request that failed validation gets the code that fits its first problem and a message naming the field,
 *   instead of Prism's first documented 400 example.
 * - A failed security check gets the operation's documented `AUTH_MISSING_TOKEN` example, or `AUTH_FORBIDDEN`
 *   when only a credential of another scheme was sent (an API key on the JWT-only /v3/pay/).
 * - Optional headers are sent only with the values the served example declares (`x-response-headers`): Prism
 *   fills them with placeholders such as `0`, which the service never sends.
 */
export function shapeResponse(contract: Contract, req: RequestFacts, upstream: UpstreamResponse): ShapedResponse {
  const contentType = String(upstream.headers['content-type'] ?? '').toLowerCase();
  const json = /json/.test(contentType) ? parseJson(upstream.body) : undefined;
  const entries = violationEntries(upstream.headers[VIOLATIONS_HEADER]);
  const violations = (entries ?? []).filter(isViolation).filter((v) => v.location[0] === 'request');
  const { op } = req;
  const chosen = req.prefer.example;

  let shaped: ShapedResponse;
  if (/json/.test(contentType) && !isEnvelope(json)) {
    shaped = prismError(contract, req, upstream.status, json, violations);
  } else if (
    op &&
    upstream.status === 401 &&
    violations.some((v) => v.code === 401) &&
    !(chosen && documentedStatus(contract, op, chosen) === '401')
  ) {
    shaped = securityFailure(contract, req, op);
  } else if (op && violations.length > 0 && upstream.status >= 400 && upstream.status < 500) {
    shaped = validationFailure(contract, op, violations, 'The request is invalid.');
  } else if (upstream.status >= 400 && !/json/.test(contentType)) {
    // Prism's own refusals are JSON; an error without one comes from the HTTP layer under it, which answers a request
    // it cannot read with a bare 400 and nothing else. The client still gets the envelope.
    shaped =
      upstream.status < 500
        ? errorResponse(contract, 'invalid', `The request could not be read (HTTP ${upstream.status}).`, op)
        : errorResponse(contract, 'internal', `Mock: Prism answered ${upstream.status} without a body.`, op);
  } else {
    shaped = { status: upstream.status, headers: {}, body: upstream.body };
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) shaped.headers[name.toLowerCase()] = value;
    }
    if (op && json !== undefined) {
      const served = servedExample(contract, op, String(upstream.status), json, chosen);
      if (served) shaped.example = served.example;
      else shaped = generatedBody(contract, op, shaped, json);
    }
  }

  // Keep Prism's CORS and violation headers on rewritten answers too.
  for (const [name, value] of Object.entries(upstream.headers)) {
    const lower = name.toLowerCase();
    if (
      value !== undefined &&
      (lower.startsWith('access-control-') || lower === 'vary' || lower === VIOLATIONS_HEADER)
    ) {
      shaped.headers[lower] ??= value;
    }
  }
  // The header the message points to names each problem once too.
  if (entries) shaped.headers[VIOLATIONS_HEADER] = JSON.stringify(entries);
  return withContractHeaders(contract, op, shaped);
}

/**
 * A body Prism generated from the schema (`Prefer: dynamic=true`) rather than an example. Its generator follows
 * neither the property order nor the codes of the contract: `success` goes first again, and an error whose code the
 * operation does not document for that status becomes the operation's documented example for it.
 */
function generatedBody(contract: Contract, op: OperationInfo, shaped: ShapedResponse, json: unknown): ShapedResponse {
  if (!isEnvelope(json)) return shaped;
  const { success, ...rest } = json as { success: boolean } & Record<string, unknown>;
  if (shaped.status >= 400) {
    const code = (rest.error as { code?: unknown } | undefined)?.code;
    const documented = op.responses[String(shaped.status)]?.errorCodes ?? [];
    if (typeof code !== 'string' || !documented.includes(code)) {
      const example = contract
        .scenariosOf(op)
        .find((s) => s.status === String(shaped.status) && s.errorCode !== undefined);
      if (example) {
        return {
          ...shaped,
          body: Buffer.from(JSON.stringify(example.value)),
          example: example.example,
          rewritten: 'undocumented code',
        };
      }
      return errorResponse(contract, 'internal', `Mock: generated an undocumented error for ${shaped.status}.`, op);
    }
  }
  const ordered = Buffer.from(JSON.stringify({ success, ...rest }));
  return ordered.equals(shaped.body)
    ? shaped
    : { ...shaped, body: ordered, rewritten: shaped.rewritten ?? 'envelope order' };
}

/** The answer to a method and path that name no operation of the contract: 404 NOT_FOUND, in the envelope. */
export function unknownRoute(contract: Contract, method: string, pathname: string): ShapedResponse {
  return errorResponse(contract, 'unknownRoute', noOperationMessage(method, pathname, contract.methodsAt(pathname)));
}

function documentedStatus(contract: Contract, op: OperationInfo, example: string): string | undefined {
  return contract.scenariosOf(op).find((s) => s.example === example)?.status;
}

function servedExample(
  contract: Contract,
  op: OperationInfo,
  status: string,
  body: unknown,
  chosen: string | undefined,
): Scenario | undefined {
  const candidates = contract.scenariosOf(op).filter((s) => s.status === status);
  return (
    candidates.find((s) => s.example === chosen && isDeepStrictEqual(s.value, body)) ??
    candidates.find((s) => isDeepStrictEqual(s.value, body))
  );
}

function prismError(
  contract: Contract,
  req: RequestFacts,
  status: number,
  json: unknown,
  violations: Violation[],
): ShapedResponse {
  const problem = (json ?? {}) as { type?: string; title?: string; detail?: string; error?: { message?: string } };
  const detail =
    [problem.title, problem.detail].filter(Boolean).join(': ') || problem.error?.message || `Prism answered ${status}`;
  const { op } = req;
  if (status === 404 || status === 405) {
    if (!op) return unknownRoute(contract, req.method, req.pathname);
    // The operation exists, so Prism refused a mock control (an unknown example or status).
    return errorResponse(contract, 'invalid', `Mock: ${detail}`, op);
  }
  if (status === 401 && op) return securityFailure(contract, req, op);
  if (status >= 400 && status < 500) {
    if (/invalid.json/i.test(`${detail} ${JSON.stringify(json ?? '')}`)) {
      return errorResponse(contract, 'invalid', 'The request body is not valid JSON.', op);
    }
    return validationFailure(contract, op, violations, `${detail.replace(/\.$/, '')}.`);
  }
  return errorResponse(contract, 'internal', `Mock: Prism failed: ${detail}`, op);
}

/** Drops optional headers Prism made up and adds the values the served example declares. */
function withContractHeaders(
  contract: Contract,
  op: OperationInfo | undefined,
  shaped: ShapedResponse,
): ShapedResponse {
  const declared = op?.responses[String(shaped.status)]?.headers ?? {};
  const example =
    shaped.example && op
      ? contract.scenariosOf(op).find((s) => s.status === String(shaped.status) && s.example === shaped.example)
      : undefined;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(shaped.headers)) headers[name.toLowerCase()] = value;
  for (const [name, info] of Object.entries(declared)) {
    if (!info.required) delete headers[name.toLowerCase()];
  }
  for (const [name, value] of Object.entries(example?.headers ?? {})) headers[name.toLowerCase()] = value;
  return { ...shaped, headers };
}

export { errorCodeOf };
