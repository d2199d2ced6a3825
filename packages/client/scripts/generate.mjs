#!/usr/bin/env node
// `generate`: writes generated/openapi.ts (openapi-typescript types of the bundled contract) and
// generated/contract.ts (the runtime facts the client acts on, read from the same bundle), and generated/sandbox.ts
// (the types of the reference sandbox's helpers, from its own bundle, @cls-api/spec/sandbox.json).
//
// The client runs in browsers, Deno and Bun with nothing but fetch, so it cannot read the bundle at run time;
// instead the facts it needs are extracted here, once, into plain constants. Every fact comes from the document:
// if the contract changes, the constants change with it, and if a fact the client depends on disappears, this
// script fails instead of generating a client that silently ignores it.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, NULL, NUMBER, STRING, tsLiteral } from 'openapi-typescript';
import ts from 'typescript';
import {
  contractModel,
  deref,
  isProvisional,
  KNOWN_VALUES_KEYWORD,
  openapiJsonPath,
  sandboxJsonPath,
  sandboxOutcomes,
  withFormerNames,
} from '@cls-api/spec';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

// `--spec <bundle.json>` generates from another bundle and `--out <dir>` writes elsewhere: the tests use them to
// show that a change of the contract changes what the client is generated with.
const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : resolve(args[i + 1]);
};
const specPath = option('--spec') ?? openapiJsonPath;
const sandboxPath = option('--sandbox') ?? sandboxJsonPath;
const outDir = option('--out') ?? join(packageDir, 'generated');

function fail(message) {
  throw new Error(`generate: ${message} (in ${specPath})`);
}

/** The component name of a `#/components/schemas/Name` reference, or undefined. */
function schemaName(schema) {
  const ref = schema?.$ref;
  if (typeof ref !== 'string') return undefined;
  const match = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
  return match ? match[1] : undefined;
}

/** Follows schema `$ref`s to the schema object itself. */
function resolveSchema(doc, schema) {
  return deref(doc, schema ?? {});
}

// ---------------------------------------------------------------------------------------------------------------

const doc = JSON.parse(readFileSync(specPath, 'utf8'));
// The facts the contract model derives (limits, time zone, catalogue, quota headers) are picked from it, as every
// other tool picks them; what is read here on top is the client's own concern (security, paging, bulk shapes).
let model;
try {
  model = contractModel(doc);
} catch (err) {
  fail(err.message);
}
const ops = model.operations;

// Error codes: the `oneOf` consts of components.schemas.ErrorCode, with their HTTP status.
const catalog = model.catalog;
if (catalog.size === 0) fail('components.schemas.ErrorCode lists no codes');
const errorStatus = Object.fromEntries([...catalog].map(([code, entry]) => [code, entry.status]));

// Security schemes: the header the API key travels in, and the bearer scheme of the JWT (the contract model's). A
// scheme the model leaves out (not sent in a header) or an HTTP scheme other than bearer is one the client cannot send.
const credentialSchemes = new Map(model.credentialSchemes.map((s) => [s.name, s]));
const securitySchemes = {};
for (const [name, raw] of Object.entries(doc.components?.securitySchemes ?? {})) {
  const scheme = credentialSchemes.get(name);
  if (scheme?.kind === 'apiKey') securitySchemes[name] = { type: 'apiKey', header: scheme.header };
  else if (scheme?.httpScheme === 'bearer') securitySchemes[name] = { type: 'bearer', header: scheme.header };
  else if (deref(doc, raw).type === 'apiKey') fail(`security scheme ${name} is not sent in a header`);
  else fail(`security scheme ${name} (${deref(doc, raw).type}) is not supported by the client`);
}
if (!Object.values(securitySchemes).some((s) => s.type === 'apiKey')) fail('no API-key security scheme');
if (!Object.values(securitySchemes).some((s) => s.type === 'bearer')) fail('no bearer (JWT) security scheme');

/** Whether a schema refers to `target` (a `#/components/schemas/...` reference), directly or through others. */
function reaches(doc, schema, target, seen = new Set()) {
  if (Array.isArray(schema)) return schema.some((s) => reaches(doc, s, target, seen));
  if (typeof schema !== 'object' || schema === null) return false;
  if (typeof schema.$ref === 'string') {
    if (schema.$ref === target) return true;
    if (seen.has(schema.$ref)) return false;
    seen.add(schema.$ref);
    return reaches(doc, deref(doc, schema), target, seen);
  }
  return Object.values(schema).some((v) => reaches(doc, v, target, seen));
}

// Stock quantities must never be cached (the source's Limits rule 7); an operation whose success body carries the
// stock-quantity schema anywhere is flagged, whatever its path.
const stockRef = '#/components/schemas/StockQuantity';
if (!doc.components?.schemas?.StockQuantity) fail('components.schemas.StockQuantity is missing');

// Operations: security, paging, and the shape of the data they return (for the cache policy).
const operationTable = [];
for (const op of ops) {
  for (const name of op.security) {
    if (!securitySchemes[name]) fail(`${op.operationId} uses unknown security scheme ${name}`);
  }
  // Each requirement object of `security` is one way in, and the client sends one credential per request (the
  // manager area lists the API key and the JWT as two ways). A requirement naming two schemes means both at once,
  // which the client cannot do: stop rather than send half of it.
  const declared = deref(doc, doc.paths[op.path])[op.method].security ?? doc.security ?? [];
  for (const requirement of declared) {
    const names = Object.keys(requirement);
    if (names.length > 1)
      fail(`${op.operationId} requires ${names.join(' and ')} together; the client sends one credential per request`);
  }
  const ok = op.responses['200'];
  let paged = false;
  let data;
  if (ok?.schema) {
    const body = resolveSchema(doc, ok.schema);
    paged = Boolean(body.properties?.pagination);
    const dataSchema = body.properties?.data;
    if (dataSchema) {
      const resolved = resolveSchema(doc, dataSchema);
      if (resolved.type === 'array') data = { list: true, schema: schemaName(resolved.items) ?? null };
      else data = { list: false, schema: schemaName(dataSchema) ?? null };
    }
  }
  operationTable.push({
    method: op.method,
    path: op.path,
    operationId: op.operationId,
    security: op.security,
    paged,
    data: data ?? null,
    carriesStock: ok?.schema ? reaches(doc, ok.schema, stockRef) : false,
  });
}
if (!operationTable.some((o) => o.paged)) fail('no operation returns `pagination`');

// Per area (`/v3/pay/`, `/v3/manager/`, …): the schemes its operations accept, when they all accept the same ones.
// A path the table does not know (a newer server, a hand-built request) takes its area's schemes: a JWT-only area
// (the source: /v3/pay/) never gets an API key, and an area that takes either credential gets the one the client has.
const byArea = new Map();
for (const op of ops) {
  if (op.security.length === 0) continue;
  const area = op.path.split('/').filter(Boolean).slice(0, 2).join('/');
  if (!byArea.has(area)) byArea.set(area, []);
  byArea.get(area).push(op);
}
const areaSecurity = {};
for (const [area, list] of byArea) {
  const sets = new Set(list.map((op) => JSON.stringify([...op.security].sort())));
  if (sets.size === 1) areaSecurity[`/${area}/`] = list[0].security;
}
if (!Object.values(areaSecurity).some((names) => names.every((s) => securitySchemes[s].type === 'bearer'))) {
  fail('no JWT-only area (the source makes /v3/pay/ JWT-only)');
}

// Bulk operations: a body with one array of rows bounded by `maxItems`, answered with `failed_count`, a
// success count and one result array (the source's bulk wrapper).
const bulkOperations = {};
for (const op of ops) {
  if (!op.requestBody?.schema || !op.responses['200']?.schema) continue;
  const body = resolveSchema(doc, op.requestBody.schema);
  const arrays = Object.entries(body.properties ?? {}).filter(([, s]) => resolveSchema(doc, s).type === 'array');
  if (arrays.length !== 1) continue;
  const [rowsField, rowsSchema] = arrays[0];
  const maxRows = resolveSchema(doc, rowsSchema).maxItems;
  const okBody = resolveSchema(doc, op.responses['200'].schema);
  const data = resolveSchema(doc, okBody.properties?.data);
  const props = Object.keys(data.properties ?? {});
  if (!props.includes('failed_count')) continue;
  const successCounts = props.filter((p) => p.endsWith('_count') && p !== 'failed_count');
  const results = props.filter((p) => resolveSchema(doc, data.properties[p]).type === 'array');
  if (successCounts.length !== 1 || results.length !== 1) {
    fail(`bulk operation ${op.operationId} has no single success count and result array`);
  }
  if (!Number.isInteger(maxRows) || maxRows < 1)
    fail(`bulk operation ${op.operationId} has no maxItems on ${rowsField}`);
  bulkOperations[op.operationId] = {
    method: op.method,
    path: op.path,
    rowsField,
    maxRows,
    successCountField: successCounts[0],
    failedCountField: 'failed_count',
    resultsField: results[0],
  };
}
if (Object.keys(bulkOperations).length === 0) fail('no bulk operations found');

// Limits: the gateway limits (per source IP) and the rows per bulk request, as the contract model reads them.
const { limits, timeZone: serviceTimeZone, quotaHeaders } = model;
const bulkRowsPerRequest = limits.bulkRowsPerRequest;
for (const [id, b] of Object.entries(bulkOperations)) {
  if (b.maxRows > bulkRowsPerRequest) fail(`${id} allows ${b.maxRows} rows, above bulk_rows_per_request`);
}

// ---------------------------------------------------------------------------------------------------------------
// Open value sets (spec/DECISIONS.md G24). Where the source leaves a set of values open it lists the known ones in
// `x-known-values` (draft `status`, `OrderStatusCode`), and an `enum` inside a node marked `x-provisional` is a set
// we designed, not one the source shows. A closed union would make a value the service may rightly send a compile
// error in the integrator's code; plain `string` would drop the known values from the editor. Both become the known
// literals plus an open branch, `'open' | (string & {})`. Closed sets the source shows (ErrorCode's `oneOf` of
// consts, `const` fields such as `success: true`) are left exact.

/** Keys whose value maps names (of properties, components, status codes such as `default`) to objects. */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'paths',
  'webhooks',
  'schemas',
  'responses',
  'parameters',
  'headers',
  'requestBodies',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'content',
  'encoding',
]);
/** Keywords whose values are data, not subschemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'example', 'examples']);
const OPEN_TYPES = new Set(['string', 'integer', 'number']);

function valueFits(value, type) {
  if (type === 'string') return typeof value === 'string';
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  return type === 'null' && value === null;
}

/** The JSON Schema `type` of an `enum` written without one: one scalar type, or that type and `null`. */
function typeOfValues(values, where) {
  const types = [...new Set(values.map((v) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v)))];
  const scalar = types.filter((t) => t !== 'null');
  if (scalar.length !== 1) fail(`${where}: the enum mixes ${scalar.join(' and ')} values; give it a type`);
  return types.length === 1 ? scalar[0] : [scalar[0], 'null'];
}

/** Checks a node carrying `x-known-values`: a scalar type, no closed set beside it, values of that type. */
function checkKnownValues(node, where) {
  const values = node[KNOWN_VALUES_KEYWORD];
  if (!Array.isArray(values) || values.length === 0) fail(`${where}: ${KNOWN_VALUES_KEYWORD} must be a non-empty list`);
  // Beside a reference, a closed set or a composition, the known values would say something the rest contradicts.
  if (['$ref', 'enum', 'const', 'oneOf', 'anyOf', 'allOf', 'not'].some((k) => k in node)) {
    fail(`${where}: ${KNOWN_VALUES_KEYWORD} beside $ref, enum, const or a composition (oneOf, anyOf, allOf, not)`);
  }
  const types = [node.type].flat();
  const scalar = types.filter((t) => t !== 'null');
  if (scalar.length === 0 || !scalar.every((t) => OPEN_TYPES.has(t))) {
    fail(`${where}: ${KNOWN_VALUES_KEYWORD} needs a string, integer or number type, not ${JSON.stringify(node.type)}`);
  }
  for (const value of values) {
    if (!types.some((t) => valueFits(value, t)))
      fail(`${where}: known value ${JSON.stringify(value)} is not of type ${JSON.stringify(node.type)}`);
  }
}

/**
 * A copy of the document for openapi-typescript in which every `enum` inside a node marked `x-provisional` (the
 * node itself or one that contains it, e.g. `Return.status` inside the designed `Return`) has become
 * `x-known-values`. Everything a designed operation, parameter or schema contains is designed.
 */
function openValueSets(document) {
  const visit = (node, where, designed, names) => {
    if (Array.isArray(node)) return node.map((child, i) => visit(child, `${where}/${i}`, designed, false));
    if (!node || typeof node !== 'object') return node;
    const inDesign = designed || (!names && isProvisional(node));
    const out = {};
    for (const [key, child] of Object.entries(node)) {
      const data = !names && (DATA_KEYWORDS.has(key) || key.startsWith('x-'));
      out[key] = data ? child : visit(child, `${where}/${key}`, inDesign, !names && NAME_MAPS.has(key));
    }
    if (names) return out;
    // Only sets of strings or numbers have other values to leave room for (a designed `[true, false]` is all of them).
    const openable =
      Array.isArray(out.enum) &&
      out.enum.some((v) => v !== null) &&
      out.enum.every((v) => v === null || typeof v === 'string' || typeof v === 'number');
    if (inDesign && openable) {
      if (KNOWN_VALUES_KEYWORD in out) fail(`${where}: both enum and ${KNOWN_VALUES_KEYWORD}`);
      out[KNOWN_VALUES_KEYWORD] = out.enum;
      delete out.enum;
      if (out.type === undefined) out.type = typeOfValues(out[KNOWN_VALUES_KEYWORD], where);
    }
    if (KNOWN_VALUES_KEYWORD in out) checkKnownValues(out, where);
    return out;
  };
  return visit(document, '#', false, false);
}

/** openapi-typescript `transform`: the type of a node with `x-known-values` (checked by openValueSets). */
function openValueType(schema) {
  if (!schema || typeof schema !== 'object' || !(KNOWN_VALUES_KEYWORD in schema)) return undefined;
  const types = [schema.type].flat();
  const members = schema[KNOWN_VALUES_KEYWORD].filter((v) => v !== null).map((v) => tsLiteral(v));
  const openBranches = new Set(types.filter((t) => t !== 'null').map((t) => (t === 'string' ? 'string' : 'number')));
  for (const branch of openBranches) {
    // `string & {}` is every string, but TypeScript keeps it apart from the literals, so they still complete.
    const base = branch === 'string' ? STRING : NUMBER;
    members.push(
      ts.factory.createParenthesizedType(
        ts.factory.createIntersectionTypeNode([base, ts.factory.createTypeLiteralNode([])]),
      ),
    );
  }
  if (types.includes('null')) members.push(NULL);
  return ts.factory.createUnionTypeNode(members);
}

// ---------------------------------------------------------------------------------------------------------------
// The reference sandbox's helpers (spec/sandbox/openapi.yaml, DECISIONS.md G31): a document of their own, so their
// operations stay out of `operations` (the service's) and their types out of generated/openapi.ts. The client needs
// the security of each helper (any area's API key, or a JWT) and the forced-outcome headers, as sandboxOutcomes
// reads them for every tool.
const sandboxDoc = JSON.parse(readFileSync(sandboxPath, 'utf8'));
if (sandboxDoc.info?.['x-sandbox'] !== true) fail(`${sandboxPath} is not marked as the sandbox's (info.x-sandbox)`);
const sandboxOperationTable = [];
for (const [path, rawItem] of Object.entries(sandboxDoc.paths ?? {})) {
  if (!path.startsWith('/sandbox/')) fail(`sandbox path ${path} is not under /sandbox/`);
  const item = deref(sandboxDoc, rawItem);
  for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
    const op = item[method];
    if (!op) continue;
    const security = [...new Set((op.security ?? sandboxDoc.security ?? []).flatMap((r) => Object.keys(r)))];
    for (const name of security) {
      if (!securitySchemes[name])
        fail(`sandbox ${op.operationId} uses security scheme ${name}, unknown to the contract`);
    }
    sandboxOperationTable.push({ method, path, operationId: op.operationId, security });
  }
}
const forced = sandboxOutcomes(sandboxDoc);
const sandboxFacts = {
  outcomeHeader: forced.outcomeHeader,
  failedRowsHeader: forced.failedRowsHeader,
  outcomes: [...forced.outcomes.keys()],
  failedRowsPattern: forced.failedRowsPattern.source,
};

// ---------------------------------------------------------------------------------------------------------------

const json = (value) => JSON.stringify(value, null, 2);
const contract = `// Generated by scripts/generate.mjs from @cls-api/spec (dist/openapi.json). Do not edit: run \`pnpm generate\`.
/* eslint-disable */

/** \`info.version\` of the contract this client was generated from. */
export const contractVersion = ${json(doc.info.version)} as const;

/** \`info.x-service-time-zone\`: the zone of every service time. */
export const serviceTimeZone = ${json(serviceTimeZone)} as const;

/** The \`oneOf\` consts of \`components.schemas.ErrorCode\`, in catalogue order. */
export const errorCodes = ${json([...catalog.keys()])} as const;

/** The HTTP status of each error code (\`x-http-status\`). */
export const errorStatus = ${json(errorStatus)} as const;

/** The security schemes and the header each travels in. */
export const securitySchemes = ${json(securitySchemes)} as const;

/** Per area (path prefix): the security schemes every one of its operations accepts, when they all accept the same. */
export const areaSecurity = ${json(areaSecurity)} as const;

/** Every operation: its security schemes, whether it is a paged list, and the schema of its \`data\`. */
export const operations = ${json(operationTable)} as const;

/** The bulk operations: the body's row array, its row limit (\`maxItems\`), and the wrapper's fields. */
export const bulkOperations = ${json(bulkOperations)} as const;

/** \`info.x-limits\`: gateway speed buckets (per source IP) and rows per bulk request. */
export const limits = ${json({ gateway: limits.gateway, bulkRowsPerRequest })} as const;

/** The rate-limit headers of the monthly quota (Limits rule 2 of the source). */
export const quotaHeaders = ${json(quotaHeaders)} as const;

/** The reference sandbox's helpers (@cls-api/spec/sandbox.json), not the service's: their security. */
export const sandboxOperations = ${json(sandboxOperationTable)} as const;

/** The sandbox's forced-outcome request headers and the outcomes \`X-Sandbox-Outcome\` takes. */
export const sandboxHeaders = ${json(sandboxFacts)} as const;
`;

// openapi-typescript types a copy of the bundle whose designed value sets are open (see openValueSets). The bundle
// has local references only, so the copy needs no file location.
// A free-form object (McpToolCall.arguments, McpTool.input_schema) must accept any members, not none.
// A schema's former names (`x-former-names`) stay in `components['schemas']` as deprecated aliases.
const ast = await openapiTS(withFormerNames(openValueSets(doc)), {
  emptyObjectsUnknown: true,
  transform: openValueType,
});
const types = `// Generated by scripts/generate.mjs with openapi-typescript from @cls-api/spec (dist/openapi.json). Do not edit.\n\n${astToString(ast)}`;
const sandboxAst = await openapiTS(openValueSets(sandboxDoc), { emptyObjectsUnknown: true, transform: openValueType });
const sandboxTypes = `// Generated by scripts/generate.mjs with openapi-typescript from @cls-api/spec (dist/sandbox.json): the reference sandbox's helpers, not the service's. Do not edit.\n\n${astToString(sandboxAst)}`;

mkdirSync(outDir, { recursive: true });
for (const [name, text] of [
  ['openapi.ts', types],
  ['contract.ts', contract],
  ['sandbox.ts', sandboxTypes],
]) {
  const file = join(outDir, name);
  let previous;
  try {
    previous = readFileSync(file, 'utf8');
  } catch {
    previous = undefined;
  }
  if (previous === text) continue;
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}
console.log(
  `generated/openapi.ts, generated/contract.ts and generated/sandbox.ts from contract ${doc.info.version} and its sandbox document`,
);
