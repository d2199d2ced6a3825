#!/usr/bin/env node
// `generate`: writes generated/tools.ts, the MCP server's tool table: one tool per operation of the bundled contract,
// with its name (`operationId`), title (summary), description for a model (area, description, neighbours), input
// schema (path and query parameters, and the request body as `body`, references inlined) and annotations; and the
// facts the server's instructions state (areas, quota, rows per request).
//
// The server reads every fact it acts on from here, extracted once; at run time it only checks arguments with the spec
// package's validator. If the contract changes, the table changes with it.
//
// Usage: node scripts/generate.mjs [--spec <openapi.json>] [--out <dir>]
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bulkOperations } from '@cls-api/client';
import {
  contractModel,
  openapiJsonPath,
  operations,
  referenceOf,
  relaxProvisional,
  resolvePointer,
} from '@cls-api/spec';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : resolve(args[i + 1]);
};
const specPath = option('--spec') ?? openapiJsonPath;
const outDir = option('--out') ?? join(packageDir, 'generated');

function fail(message) {
  throw new Error(`generate: ${message} (in ${specPath})`);
}

// Designed constraints (x-provisional) are dropped before anything is read: the server meets real services, and an
// agent host that checks arguments against a tool's schema must not refuse a value the service takes
// (spec/README.md, "Provisional"). The source's own constraints stay.
// Whether a parameter, the body or a member of the body is required is read from the contract as written: that is
// the request's shape (a call's `arguments`, a bulk request's `orders`), not a constraint on a value. Inside the
// body's members (the fields of a row) a designed `required` stays relaxed like any other designed constraint.
const written = JSON.parse(readFileSync(specPath, 'utf8'));
const doc = relaxProvisional(written);
const writtenOps = new Map(operations(written).map((op) => [op.operationId, op]));

/** OpenAPI's own keywords and the contract's extensions, which are not JSON Schema. */
const notJsonSchema = (key) =>
  key.startsWith('x-') || ['example', 'discriminator', 'xml', 'externalDocs', 'title'].includes(key);

/** A schema with every `$ref` inlined and only JSON Schema keywords left, so that it stands alone in a tool. */
function standalone(schema, seen = []) {
  if (Array.isArray(schema)) return schema.map((s) => standalone(s, seen));
  if (typeof schema !== 'object' || schema === null) return schema;
  // A reference, or one wrapped in a one-branch `allOf` beside its description and bounds: the target, with them.
  const reference = referenceOf(schema);
  if (reference) {
    const { $ref } = reference;
    if (seen.includes($ref)) fail(`${$ref} refers to itself; a tool's input schema cannot inline it`);
    const { $ref: _ref, allOf: _allOf, ...siblings } = schema;
    return standalone({ ...resolvePointer(doc, $ref), ...siblings }, [...seen, $ref]);
  }
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (notJsonSchema(key)) continue;
    // `properties` maps names to schemas: its keys are field names, never keywords.
    out[key] =
      key === 'properties' || key === 'patternProperties' || key === '$defs'
        ? Object.fromEntries(Object.entries(value).map(([name, s]) => [name, standalone(s, seen)]))
        : standalone(value, seen);
  }
  return withoutEmptyAllOf(out);
}

/**
 * The schema less the `allOf` members that constrain nothing more than it does: once the designed keywords are
 * relaxed, a member that only repeated the type or carried a description of its own (the page number's, the status
 * filter's) tells a model nothing and costs it tokens.
 */
function withoutEmptyAllOf(schema) {
  if (!Array.isArray(schema.allOf)) return schema;
  const members = schema.allOf
    .map((m) =>
      Object.fromEntries(
        Object.entries(m).filter(
          ([key, value]) => key !== 'description' && JSON.stringify(schema[key]) !== JSON.stringify(value),
        ),
      ),
    )
    .filter((m) => Object.keys(m).length > 0);
  const { allOf: _allOf, ...rest } = schema;
  return members.length > 0 ? { ...rest, allOf: members } : rest;
}

/** Markdown as one line of plain text: a model reads the words, not the emphasis or the source's line wrapping. */
const plain = (text) =>
  String(text ?? '')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();

/** The first sentence of a text: what a parameter is. The rest (how its text is written) does not apply to JSON. */
const firstSentence = (text) => {
  const m = /^(.+?[.!?])(?:\s|$)/.exec(plain(text));
  return m ? m[1] : plain(text);
};

/** Each operation's area, by its tag's group: `Warehouse (/v3/wms/)` for a tag of that group. */
const groupOfTag = new Map(
  (doc['x-tagGroups'] ?? []).flatMap((g) => g.tags.map((t) => [t, g.name.replace(/\s*\(\/v3\/[^)]*\)$/, '')])),
);
const tagDescription = new Map(
  (doc.tags ?? []).map((t) => [t.name, typeof t.description === 'string' ? t.description : '']),
);

/** The same call in another area (`GET /v3/wms/orders` and `GET /v3/manager/orders`): the neighbours a model must tell apart. */
const shapeOf = (op) => `${op.method} ${op.path.replace(/^\/v3\/[^/]+/, '').replace(/\{[^}]+\}/g, '{}')}`;
const byShape = new Map();
for (const op of operations(doc)) byShape.set(shapeOf(op), [...(byShape.get(shapeOf(op)) ?? []), op]);

/**
 * The description a model reads: the area, what the operation does (its description, as one paragraph of plain
 * text; the summary is the tool's title already), and the same call of other areas with what sets it apart, so
 * that a model picks between `listWmsOrders` and `listManagerOrders` by what each lists. Left out: sentences about
 * the headers the server handles itself, and those about the list parameters the instructions describe.
 */
function describe(op, raw) {
  const area = groupOfTag.get(op.tags[0]) ?? op.area;
  // A sentence naming a list parameter the instructions describe says again what they and the schema say.
  const shared = op.parameters
    .filter((p) => p.in === 'query' && isShared(p.name, firstSentence(p.description ?? p.schema?.description)))
    .map((p) => `\`${p.name}\``);
  const what = sentences(plain(raw.description ?? raw.summary)).filter(
    (s) => !aboutServerHeaders(s) && !shared.some((name) => s.includes(name)),
  );
  const parts = [`${area} area.`, what.join(' ')];
  if (op.area === 'mcp' && directTools.length > 0) {
    // The service's MCP area reaches only operations this server lists itself: a model should call those.
    const [tool, operationId] = directTools[0];
    parts.push(
      `Every tool of this area is also a direct tool of this server, named by its operation (${tool} is ${operationId}): call that instead.`,
    );
  }
  for (const other of byShape.get(shapeOf(op)) ?? []) {
    if (other.operationId === op.operationId) continue;
    const otherArea = groupOfTag.get(other.tags[0]) ?? other.area;
    const what = firstSentence(tagDescription.get(other.tags[0]) ?? '');
    parts.push(
      `For the ${otherArea.toLowerCase()} area use ${other.operationId} instead${what ? ` (${what.replace(/\.$/, '').toLowerCase()})` : ''}.`,
    );
  }
  return parts.filter(Boolean).join(' ');
}

/** `apiKey` or `jwt` for each security scheme of the contract: which of the server's credentials an operation takes. */
const credentialOf = Object.fromEntries(
  Object.entries(doc.components?.securitySchemes ?? {}).map(([name, scheme]) => {
    if (scheme.type === 'apiKey') return [name, 'apiKey'];
    if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer') return [name, 'jwt'];
    return fail(`security scheme ${name} (${scheme.type}) is neither an API key nor a bearer token`);
  }),
);

const methods = (path) => Object.keys(doc.paths[path] ?? {});

/** Each tool of the service's MCP area (`x-mcp-tool`) with the operation, and so the direct tool, it calls. */
const directTools = operations(written).flatMap((op) => (op.mcpTool ? [[op.mcpTool, op.operationId]] : []));

/**
 * Annotations from what the contract says of the operation. A GET reads. A write changes data; it is destructive
 * when it changes or ends something that exists (PATCH, PUT, DELETE, and a POST that acts on one resource, a path
 * ending in an action after the resource's parameter with nothing to read there: `…/{return_no}/cancel`), and
 * additive when it creates (a POST to a collection, `…/orders`, `…/{product_code}/options`). A write is idempotent
 * only when the contract says a repeat has no further effect: PUT and DELETE, a create whose repeat the contract
 * refuses (`DUPLICATE`), or an operation marked `x-idempotent` (a repeat refused row by row, or one that changes
 * nothing; spec/README.md, "Idempotent writes").
 */
function annotations(op, title, raw) {
  if (op.method === 'get' || op.method === 'head') {
    return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
  }
  const segments = op.path.split('/');
  const last = segments.at(-1) ?? '';
  const actsOnOne =
    op.method === 'post' &&
    !last.startsWith('{') &&
    segments.slice(0, -1).some((s) => s.startsWith('{')) &&
    !methods(op.path).includes('get');
  const destructive = ['patch', 'put', 'delete'].includes(op.method) || actsOnOne;
  const refusesRepeat = Object.values(op.responses).some((r) => r.errorCodes.includes('DUPLICATE'));
  const idempotent = ['put', 'delete'].includes(op.method) || refusesRepeat || raw['x-idempotent'] === true;
  return { title, readOnlyHint: false, destructiveHint: destructive, idempotentHint: idempotent, openWorldHint: true };
}

/**
 * A call of an MCP-area tool does what the tool it calls does: when every tool it can call only reads, the call reads
 * too (read-only mode lists it); otherwise it carries the annotations of a write.
 */
function callAnnotations(op, title, raw) {
  const reads = Object.values(mcpToolReads);
  if (reads.length > 0 && reads.every(Boolean)) {
    return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
  }
  return annotations(op, title, raw);
}

// The tools of the `/v3/mcp/` area are the operations marked `x-mcp-tool`; a call of one takes a key of the tool's
// own area (spec/guides/authentication.md), so the server needs to know each tool's area.
const mcpToolAreas = Object.fromEntries(
  operations(written).flatMap((op) => (op.mcpTool ? [[op.mcpTool, op.area]] : [])),
);
/** Whether each of those tools only reads: a call of the MCP area is judged by the tool it calls. */
const mcpToolReads = Object.fromEntries(
  operations(written).flatMap((op) => (op.mcpTool ? [[op.mcpTool, op.method === 'get' || op.method === 'head']] : [])),
);

/**
 * The path parameter of a `/v3/mcp/` operation that names one of those tools: the one whose schema's examples are
 * tool names. Its value picks the key the call goes out with.
 */
function toolNameParam(op) {
  if (op.area !== 'mcp') return undefined;
  const writtenOp = writtenOps.get(op.operationId);
  const named = writtenOp.parameters.filter((p) => {
    if (p.in !== 'path') return false;
    const examples = standaloneWritten(p.schema ?? {}).examples ?? [];
    return examples.length > 0 && examples.every((e) => e in mcpToolAreas);
  });
  if (named.length > 1) fail(`${op.operationId}: more than one path parameter names an MCP tool`);
  return named[0]?.name;
}

/** A written (not relaxed) parameter schema, `$ref`s followed: only to read its examples. */
function standaloneWritten(schema) {
  let s = schema;
  for (let next = referenceOf(s); next; next = referenceOf(s)) s = resolvePointer(written, next.$ref);
  return s ?? {};
}

/**
 * The query parameters several operations share, named and described the same way (`page`, `size`,
 * `updated_after`, `date_from` of the lists): the instructions describe each once, and a tool's schema keeps only
 * its type, default and constraints, instead of the same sentence in every list tool.
 */
const sharedQuery = new Map();
for (const op of operations(doc)) {
  for (const p of op.parameters) {
    if (p.in !== 'query') continue;
    const key = `${p.name}\n${firstSentence(p.description ?? p.schema?.description)}`;
    sharedQuery.set(key, (sharedQuery.get(key) ?? 0) + 1);
  }
}
const sharedParameters = Object.fromEntries([...sharedQuery].filter(([, n]) => n > 1).map(([key]) => key.split('\n')));
const isShared = (name, description) => sharedParameters[name] === description;

/**
 * A sentence that names a header the server itself sends (the credentials) or reads (the quota's): a model can
 * neither set nor see one, and what follows from it the server does (and the instructions say).
 */
const model = contractModel(written);
const serverHeaders = [
  ...model.credentialSchemes.map((s) => s.header),
  ...Object.values(model.quotaHeaders).map((h) => h.replace(/-(Limit|Remaining|Reset)$/, '-')),
];
const aboutServerHeaders = (sentence) => serverHeaders.some((h) => sentence.includes(`\`${h}`));
const sentences = (text) => text.split(/(?<=[.!?])\s+(?=[A-Z`])/);

const tools = [];
for (const op of operations(doc)) {
  if (!op.operationId) fail(`${op.method.toUpperCase()} ${op.path} has no operationId`);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(op.operationId)) fail(`operationId ${op.operationId} cannot name an MCP tool`);
  const raw = doc.paths[op.path][op.method];
  const properties = {};
  const required = [];
  const pathParams = [];
  const queryParams = [];
  for (const p of op.parameters) {
    if (p.in === 'header' || p.in === 'cookie') {
      fail(`${op.operationId}: ${p.in} parameter ${p.name}; the server sends only credentials in headers`);
    }
    if (p.name === 'body') fail(`${op.operationId}: a parameter named body would clash with the request body`);
    const schema = standalone(p.schema ?? {});
    const description = firstSentence(p.description ?? schema.description);
    const { description: _own, ...bare } = schema;
    properties[p.name] =
      p.in === 'query' && isShared(p.name, description) ? bare : { ...schema, ...(description ? { description } : {}) };
    if (writtenOps.get(op.operationId)?.parameters.find((w) => w.name === p.name && w.in === p.in)?.required) {
      required.push(p.name);
    }
    (p.in === 'path' ? pathParams : queryParams).push(p.name);
  }
  let bulk;
  if (op.requestBody) {
    if (!op.requestBody.schema) fail(`${op.operationId}: the request body has no JSON schema`);
    const body = standalone(op.requestBody.schema);
    const helper = bulkOperations[op.operationId];
    if (helper) {
      // The client sends any number of rows in requests within the contract's limit, one after another
      // (packages/client/src/bulk.ts): the tool takes them all.
      const rows = body.properties?.[helper.rowsField];
      if (rows?.type !== 'array') fail(`${op.operationId}: the body has no array ${helper.rowsField}`);
      const { maxItems: _perRequest, ...unbounded } = rows;
      body.properties[helper.rowsField] = {
        ...unbounded,
        description:
          `${rows.description ?? ''} Any number of rows: they are sent in requests of at most ${helper.maxRows}, one after another, and the results merged in row order.`.trim(),
      };
      bulk = { rowsField: helper.rowsField, maxRows: helper.maxRows };
    }
    // The body's own members as the contract writes them required: a request without them is not the operation.
    const writtenRequired = standaloneWritten(writtenOps.get(op.operationId)?.requestBody?.schema).required;
    if (Array.isArray(writtenRequired) && writtenRequired.length > 0) body.required = writtenRequired;
    properties.body = body;
    if (writtenOps.get(op.operationId)?.requestBody?.required) required.push('body');
  }
  const inputSchema = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) inputSchema.required = required;
  tools.push({
    name: op.operationId,
    title: raw.summary ?? op.operationId,
    description: describe(op, raw),
    method: op.method,
    path: op.path,
    area: op.area,
    provisional: op.provisional,
    credentials: op.security.map((name) => credentialOf[name] ?? fail(`${op.operationId}: unknown scheme ${name}`)),
    pathParams,
    queryParams,
    ...(bulk ? { bulk } : {}),
    ...(toolNameParam(op)
      ? { keyAreaFrom: { param: toolNameParam(op), areas: mcpToolAreas, reads: mcpToolReads } }
      : {}),
    inputSchema,
    annotations: toolNameParam(op)
      ? callAnnotations(op, raw.summary ?? op.operationId, raw)
      : annotations(op, raw.summary ?? op.operationId, raw),
  });
}
if (tools.length === 0) fail('the contract has no operations');
for (const id of Object.keys(bulkOperations)) {
  if (!tools.some((t) => t.name === id)) fail(`the client's bulk operation ${id} is not in the contract`);
}

// What the server tells a model once, in its instructions: the areas by name, what a call costs, and the
// parameters the lists share.
const areaNames = {};
for (const op of operations(written)) areaNames[op.area] ??= groupOfTag.get(op.tags[0]) ?? op.area;
const serviceFacts = {
  title: `${written.info.title} v${String(written.info.version).split('.')[0]}`,
  summary: plain(written.info.summary ?? ''),
  areas: areaNames,
  testCallsPerMonth: model.limits.monthlyQuota.get('test') ?? null,
  bulkRowsPerRequest: model.limits.bulkRowsPerRequest,
  sharedParameters,
};

const source = `// GENERATED by @cls-api/mcp scripts/generate.mjs from the bundled contract. Do not edit.
import type { ServiceFacts, ToolDefinition } from '../src/definition.js';

/** One tool per operation of the contract, in the contract's order. */
export const toolTable: readonly ToolDefinition[] = ${JSON.stringify(tools, null, 2)};

/** The facts of the service the server's instructions state. */
export const serviceFacts: ServiceFacts = ${JSON.stringify(serviceFacts, null, 2)};
`;
mkdirSync(outDir, { recursive: true });
const target = join(outDir, 'tools.ts');
writeFileSync(`${target}.tmp`, source);
renameSync(`${target}.tmp`, target);
console.log(`generate: ${tools.length} tools → ${target}`);
