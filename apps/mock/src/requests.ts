// A valid request for any operation, built from the contract's own examples: path and required query values from
// the parameter schemas' `examples`, the body from the first request example, and a credential of the operation's
// scheme. The mock checks that a credential is present, not its value.
import { deref, type JsonSchema, type OpenApiDocument, type OperationInfo } from '@cls-api/spec';

export interface ExampleRequest {
  method: string;
  /** Path and query, e.g. `/v3/pay/deposits?date_from=2026-11-20&date_to=2026-11-20`. */
  url: string;
  headers: Record<string, string>;
  /** JSON text of the body, when the operation takes one. */
  body?: string;
}

function schemaExample(doc: OpenApiDocument, schema: JsonSchema | undefined, seen = new Set<JsonSchema>()): unknown {
  if (!schema || seen.has(schema)) return undefined;
  seen.add(schema);
  const s = deref<JsonSchema>(doc, schema);
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = s[key];
    if (Array.isArray(list)) {
      for (const sub of list) {
        const found = schemaExample(doc, sub as JsonSchema, seen);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined;
}

/** The area whose key a request uses: the path's area, or for the MCP area (no keys of its own) the tool's. */
function keyArea(op: OperationInfo, pathValues: Record<string, string>): string {
  if (op.area !== 'mcp') return op.area;
  const tool = Object.values(pathValues).find((v) => /^[a-z]+_/.test(v));
  return tool ? tool.split('_')[0]! : 'wms';
}

/** A request that the contract accepts for `op`, ready to be sent to the mock. */
export function exampleRequest(doc: OpenApiDocument, op: OperationInfo): ExampleRequest {
  const pathValues: Record<string, string> = {};
  const query = new URLSearchParams();
  for (const p of op.parameters) {
    if (p.in === 'path') {
      const value = schemaExample(doc, p.schema);
      if (value === undefined) throw new Error(`${op.operationId}: path parameter ${p.name} has no schema example`);
      pathValues[p.name] = String(value);
    } else if (p.in === 'query' && p.required) {
      const value = schemaExample(doc, p.schema);
      if (value === undefined) throw new Error(`${op.operationId}: query parameter ${p.name} has no schema example`);
      query.set(p.name, String(value));
    }
  }
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathValues[name]!));
  const search = query.toString();
  const headers: Record<string, string> = { Accept: 'application/json' };
  const schemes = doc.components?.securitySchemes ?? {};
  const schemeName = op.security[0];
  if (schemeName !== undefined) {
    const scheme = deref<Record<string, unknown>>(doc, schemes[schemeName]!);
    if (scheme.type === 'apiKey' && typeof scheme.name === 'string') {
      headers[scheme.name] = `${keyArea(op, pathValues)}_test_mock`;
    } else if (scheme.type === 'http') {
      headers.Authorization = `${String(scheme.scheme).replace(/^./, (c) => c.toUpperCase())} mock-token`;
    }
  }
  const request: ExampleRequest = {
    method: op.method.toUpperCase(),
    url: search ? `${path}?${search}` : path,
    headers,
  };
  if (op.requestBody) {
    const first = Object.values(op.requestBody.examples)[0];
    if (!first) throw new Error(`${op.operationId}: the request body has no example`);
    headers['Content-Type'] = op.requestBody.contentType ?? 'application/json';
    request.body = JSON.stringify(first.value);
  }
  return request;
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** One `curl` command line for `request` against `baseUrl`, with extra headers such as `Prefer`. */
export function curlFor(baseUrl: string, request: ExampleRequest, extraHeaders: Record<string, string> = {}): string {
  const parts = ['curl -sS -i'];
  if (request.method !== 'GET') parts.push(`-X ${request.method}`);
  parts.push(`"${baseUrl}${request.url}"`);
  for (const [name, value] of Object.entries({ ...request.headers, ...extraHeaders })) {
    if (name === 'Accept') continue;
    parts.push(`-H "${name}: ${value}"`);
  }
  if (request.body !== undefined) parts.push(`-d ${shellQuote(request.body)}`);
  return parts.join(' ');
}
