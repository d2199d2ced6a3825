// The breaking-change classifier: two bundles of the contract in, one classified change per line out.
//
// Optic (its diff engine and its breaking-changes ruleset) compares the operations and schemas; it works offline on
// OpenAPI 3.1. What it does not judge is added here, from the same diff: narrowed constraints (`pattern`, bounds,
// `format`, `const`), removed enum values, and the contract's own extensions that tools act on (the error catalogue
// and `info.x-limits`, read through `@cls-api/spec`). A change at or under an element marked `x-provisional` is
// "provisional": allowed in a minor release, but listed (spec/README.md, "Provisional").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  errorCatalog,
  FORMER_NAMES_KEYWORD,
  HTTP_METHODS,
  type OpenApiDocument,
  referenceOf,
  resolvePointer,
} from '@cls-api/spec';

/**
 * Optic's modules, loaded at the first comparison: they take one to two CPU-seconds to load, which `--help`, a
 * wrong option, `--publish` and a contract compared with itself need not wait for.
 */
function optic() {
  const require = createRequire(import.meta.url);
  return {
    io: require('@useoptic/openapi-io') as typeof import('@useoptic/openapi-io'),
    utilities: require('@useoptic/openapi-utilities') as typeof import('@useoptic/openapi-utilities'),
    BreakingChangesRuleset: (require('@useoptic/standard-rulesets') as typeof import('@useoptic/standard-rulesets'))
      .BreakingChangesRuleset,
    RuleRunner: (require('@useoptic/rulesets-base') as typeof import('@useoptic/rulesets-base')).RuleRunner,
  };
}

export type ChangeKind = 'breaking' | 'provisional' | 'non-breaking';

export interface ContractChange {
  kind: ChangeKind;
  /** `POST /v3/auth/token`, or `contract` for a change outside the operations (error catalogue, limits). */
  operation: string;
  /** Where, in the API's words: `response 200 body data.items.order_no`, `request body client_id`, `limit …`. */
  location: string;
  /** What changed: `removed`, `added`, `pattern changed from … to …`. */
  what: string;
  /** JSON pointer into the bundle (the head's for an addition, else the base's). */
  pointer: string;
}

type Json = Record<string, unknown>;

/** Keys that never change what a request or a response may be: left out before diffing. */
const PROSE_KEYS = new Set([
  'description',
  'summary',
  'examples',
  'example',
  'x-codeSamples',
  'x-invalid-examples',
  'x-response-headers',
  'x-enumDescriptions',
  'x-tagGroups',
  'tags',
  'externalDocs',
]);

function withoutProse(node: unknown, fieldNames = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutProse(n));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    // Under `properties` the keys are field names (a field may be called `description` or `tags`): all kept.
    if (!fieldNames && PROSE_KEYS.has(key)) continue;
    out[key] = withoutProse(value, !fieldNames && key === 'properties');
  }
  return out;
}

/** Keys whose changes say nothing about what a request or a response may be. */
function isNoise(segment: string): boolean {
  return (
    segment === 'title' ||
    segment === '$comment' ||
    segment === 'x-provisional' ||
    (segment.startsWith('x-') && segment !== 'x-error-codes' && segment !== 'x-known-values')
  );
}

const decode = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

function splitPointer(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map(decode);
}

/** `GET /v3/manager/orders` for a pointer under an operation, else undefined. */
function operationOf(segments: string[]): string | undefined {
  if (segments[0] !== 'paths' || segments.length < 3) return undefined;
  const method = segments[2]!;
  if (!(HTTP_METHODS as readonly string[]).includes(method)) return undefined;
  return `${method.toUpperCase()} ${segments[1]}`;
}

/** The pointer below the operation, in the API's words: fields by their dotted names, statuses, parameters. */
export function describeLocation(segments: string[], doc: Json | undefined): string {
  const rest = segments.slice(3);
  const parts: string[] = [];
  let fields: string[] = [];
  let inSchema = false;
  for (let i = 0; i < rest.length; i++) {
    const s = rest[i]!;
    if (s === 'responses' && rest[i + 1]) {
      parts.push(`response ${rest[++i]}`);
    } else if (s === 'requestBody') {
      parts.push('request');
    } else if (s === 'parameters' && rest[i + 1] !== undefined) {
      const param = walk(doc, [...segments.slice(0, 3), 'parameters', rest[i + 1]!]) as Json | undefined;
      parts.push(param ? `parameter ${String(param.in)} ${String(param.name)}` : `parameter #${rest[i + 1]}`);
      i++;
    } else if (s === 'content') {
      i++; // the media type: one per response in this contract
      if (!parts.includes('body')) parts.push('body');
    } else if (s === 'headers' && rest[i + 1] && !inSchema) {
      parts.push(`header ${rest[++i]}`);
    } else if (s === 'schema') {
      inSchema = true;
    } else if (inSchema && s === 'properties' && rest[i + 1]) {
      fields.push(rest[++i]!);
    } else if (inSchema && s === 'items') {
      fields.push('[]');
    } else if (inSchema && (s === 'allOf' || s === 'oneOf' || s === 'anyOf') && rest[i + 1]) {
      i++;
    } else {
      if (fields.length) parts.push(fields.join('.').replace(/\.\[\]/g, '[]'));
      fields = [];
      parts.push(s);
    }
  }
  if (fields.length) parts.push(fields.join('.').replace(/\.\[\]/g, '[]'));
  return parts.join(' ') || 'operation';
}

function walk(doc: unknown, segments: string[]): unknown {
  let node = doc;
  for (const s of segments) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Json)[s];
  }
  return node;
}

/**
 * Whether the element at `segments` (in the bundle, whose `$ref`s are followed on the way) is marked provisional.
 * A mark on an operation or a parameter covers everything inside it. A mark on a schema covers the schema nodes
 * written inside it, not a schema it references (`$ref`), which keeps its own marks (spec/README.md, "Provisional").
 */
export function isProvisionalAt(bundle: Json, segments: string[]): boolean {
  let node: unknown = bundle;
  let outer = false;
  let schemaMark = false;
  let inSchema = false;
  const mark = () => {
    if ((node as Json)['x-provisional'] !== true) return;
    if (inSchema) schemaMark = true;
    else outer = true;
  };
  for (const s of segments) {
    if (!node || typeof node !== 'object') break;
    node = (node as Json)[s];
    if (s === 'schema') inSchema = true;
    for (
      let hops = 0;
      node && typeof node === 'object' && typeof (node as Json).$ref === 'string' && hops < 20;
      hops++
    ) {
      const ref = (node as Json).$ref as string;
      if (!ref.startsWith('#/')) break;
      node = walk(bundle, splitPointer(ref.slice(1)));
      if (inSchema) schemaMark = false;
    }
    if (node && typeof node === 'object') mark();
    if (outer || schemaMark) return true;
  }
  return outer || schemaMark;
}

// Bounds whose narrowing refuses a request that was valid, or lets a response carry what a client never saw.
const UPPER = new Set(['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties']);
const LOWER = new Set(['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties']);
const SHAPE = new Set(['pattern', 'format', 'const', 'multipleOf']);

interface RawDiff {
  before?: string;
  after?: string;
}

function isRequestSide(segments: string[]): boolean {
  return segments.includes('requestBody') || segments[3] === 'parameters';
}

/** Constraint changes Optic's ruleset does not judge: narrowing on the request side, widening on the response side. */
function constraintChange(diff: RawDiff, base: Json, head: Json): { breaking: boolean; what: string } | undefined {
  const pointer = (diff.after ?? diff.before)!;
  const segments = splitPointer(pointer);
  const key = segments.at(-1)!;
  const parent = segments.at(-2);
  const request = isRequestSide(segments);
  const before = diff.before ? walk(base, splitPointer(diff.before)) : undefined;
  const after = diff.after ? walk(head, splitPointer(diff.after)) : undefined;
  const show = (v: unknown) => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;
  if (parent === 'enum' && /^\d+$/.test(key)) {
    if (diff.before && !diff.after) return { breaking: request, what: `enum value ${show(before)} removed` };
    if (diff.after && !diff.before) return { breaking: !request, what: `enum value ${show(after)} added` };
    return { breaking: true, what: `enum value ${show(before)} changed to ${show(after)}` };
  }
  if (parent === 'required' && /^\d+$/.test(key)) return undefined; // Optic's ruleset judges required fields
  if (!UPPER.has(key) && !LOWER.has(key) && !SHAPE.has(key)) return undefined;
  if (typeof before === 'object' || typeof after === 'object') return undefined;
  if (diff.before && !diff.after) return { breaking: !request, what: `${key} ${show(before)} removed` };
  if (diff.after && !diff.before) return { breaking: request, what: `${key} ${show(after)} added` };
  const narrowed =
    UPPER.has(key) && typeof before === 'number' && typeof after === 'number'
      ? after < before
      : LOWER.has(key) && typeof before === 'number' && typeof after === 'number'
        ? after > before
        : true; // a changed pattern, format or const cannot be shown to accept a superset: taken as narrowed
  return {
    breaking: request ? narrowed : !narrowed || SHAPE.has(key),
    what: `${key} changed from ${show(before)} to ${show(after)}`,
  };
}

async function opticCompare(
  base: Json,
  head: Json,
): Promise<{ diffs: RawDiff[]; failed: OpticResult[]; before: Json; after: Json }> {
  const { io, utilities, BreakingChangesRuleset, RuleRunner } = optic();
  const dir = mkdtempSync(join(tmpdir(), 'cls-breaking-'));
  try {
    const load = async (name: string, doc: Json) => {
      const file = join(dir, name);
      writeFileSync(file, JSON.stringify(doc));
      const parsed = await io.parseOpenAPIWithSourcemap(file);
      const version = io.checkOpenAPIVersion(parsed.jsonLike);
      return { ...io.denormalize(parsed, version), version, isEmptySpec: false };
    };
    const [compareBase, compareHead] = withoutUnchangedPaths(
      withoutProse(asCompared(base)) as Json,
      withoutProse(asCompared(head)) as Json,
    );
    const [b, h] = [await load('base.json', compareBase), await load('head.json', compareHead)];
    const runner = new RuleRunner([new BreakingChangesRuleset()]);
    // biome-ignore lint/suspicious/noExplicitAny: Optic types the parsed spec with its own internal interfaces.
    const result = await utilities.compareSpecs(b as any, h as any, runner, {});
    const failed = (result.results as unknown as OpticResult[]).filter((r) => !r.passed && !r.exempted);
    // Optic's pointers address its own parsed copies (dereferenced, path parameters moved into operations).
    return { diffs: result.diffs as RawDiff[], failed, before: b.jsonLike as Json, after: h.jsonLike as Json };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `base` and `head` without the path items that are the same on both sides, down to every component they reach
 * through `$ref`. Optic's ruleset judges each operation on its own, and one that did not change has nothing to report,
 * but building its facts was most of a comparison's time (about 11 CPU-seconds for the whole contract). Every path
 * item is kept when anything else that shapes an operation changed: a key at the top other than `info` (`security`,
 * `servers`), or the security schemes (operations name them without a `$ref`).
 */
export function withoutUnchangedPaths(base: Json, head: Json): [Json, Json] {
  const { paths: basePaths, components: baseComponents, info: _baseInfo, ...baseRest } = base;
  const { paths: headPaths, components: headComponents, info: _headInfo, ...headRest } = head;
  const schemes = (components: unknown) => (components as Json | undefined)?.securitySchemes;
  if (!isDeepStrictEqual(baseRest, headRest) || !isDeepStrictEqual(schemes(baseComponents), schemes(headComponents)))
    return [base, head];
  const before = (basePaths ?? {}) as Json;
  const after = (headPaths ?? {}) as Json;
  const unchanged = new Set(
    Object.keys(before).filter(
      (path) =>
        path in after && isDeepStrictEqual(before[path], after[path]) && reachesTheSame(before[path], base, head),
    ),
  );
  if (unchanged.size === 0) return [base, head];
  const changed = (paths: Json) => Object.fromEntries(Object.entries(paths).filter(([path]) => !unchanged.has(path)));
  return [
    { ...base, paths: changed(before) },
    { ...head, paths: changed(after) },
  ];
}

/** What `ref` points at in `doc`; undefined when nothing is there (a component one side lacks). */
function targetOf(doc: Json, ref: string): unknown {
  try {
    return resolvePointer(doc as unknown as OpenApiDocument, ref);
  } catch {
    return undefined;
  }
}

/** Whether every component `node` reaches through `$ref`, directly or not, is the same in `base` and in `head`. */
function reachesTheSame(node: unknown, base: Json, head: Json, seen = new Set<string>()): boolean {
  if (Array.isArray(node)) return node.every((item) => reachesTheSame(item, base, head, seen));
  if (!node || typeof node !== 'object') return true;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      if (seen.has(value)) continue;
      seen.add(value);
      const was = targetOf(base, value);
      if (was === undefined || !isDeepStrictEqual(was, targetOf(head, value)) || !reachesTheSame(was, base, head, seen))
        return false;
    } else if (!reachesTheSame(value, base, head, seen)) return false;
  }
  return true;
}

/**
 * A bundle as it is compared: two ways the contract writes a schema are read as the values they allow, not as the
 * keywords they use, so that rewriting one as the other is no change. A reference wrapped in a one-branch `allOf`
 * beside its description and bounds (spec/README.md, "What other tools read") is the reference with them, as
 * Optic reads a `$ref` with siblings; and a `oneOf` of object rows (a success row and a failure row) also lists
 * their fields, each as its first row (the success row) declares it, required where every row requires it, as an
 * object with
 * `if`/`then`/`else` shapes listed them.
 */
export function asCompared(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asCompared);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = asCompared(v);
  const reference = referenceOf(node);
  if (reference && !('$ref' in node)) {
    const { allOf: _allOf, ...rest } = out;
    return { ...rest, $ref: reference.$ref };
  }
  const rows = out.oneOf;
  if (
    Array.isArray(rows) &&
    out.properties === undefined &&
    rows.length > 1 &&
    rows.every((r) => r && typeof r === 'object' && (r as Json).type === 'object' && (r as Json).properties)
  ) {
    const properties: Json = {};
    for (const row of rows as Json[])
      for (const [name, schema] of Object.entries(row.properties as Json))
        if (!(name in properties)) properties[name] = schema;
    const requiredOf = (row: Json) => (Array.isArray(row.required) ? (row.required as string[]) : []);
    const required = requiredOf(rows[0] as Json).filter((name) =>
      (rows as Json[]).every((r) => requiredOf(r).includes(name)),
    );
    return { type: 'object', ...out, properties, ...(required.length > 0 ? { required } : {}) };
  }
  return out;
}

interface OpticResult {
  passed: boolean;
  exempted: boolean;
  error?: string;
  name?: string;
  type?: string;
  location: { jsonPath: string; spec: 'before' | 'after' };
}

/** Every change from `base` to `head`, classified; breaking first. */
export async function classifyChanges(base: OpenApiDocument, head: OpenApiDocument): Promise<ContractChange[]> {
  // The same document on both sides (a change that left the spec alone) has no change to find: Optic's comparison
  // of the whole contract with itself took seconds to say so.
  if (isDeepStrictEqual(base, head)) return [];
  const b = base as unknown as Json;
  const h = head as unknown as Json;
  const { diffs, failed, before, after } = await opticCompare(b, h);
  const changes: ContractChange[] = [];
  const seen = new Set<string>();
  const add = (kind: ChangeKind, pointer: string, side: 'before' | 'after', what: string) => {
    const segments = splitPointer(pointer);
    const doc = side === 'before' ? before : after;
    const operation = operationOf(segments) ?? 'contract';
    const location = operationOf(segments) ? describeLocation(segments, doc) : segments.join('.');
    const provisional = isProvisionalAt(b, segments) || isProvisionalAt(h, segments);
    const finalKind: ChangeKind = kind === 'breaking' && provisional ? 'provisional' : kind;
    const key = `${operation}|${location}|${what}`;
    if (seen.has(key)) return;
    seen.add(key);
    changes.push({ kind: finalKind, operation, location, what, pointer });
  };

  // Optic's findings: one per breaking change, but a removed operation or field also reports everything under it.
  const removed: string[] = [];
  for (const r of [...failed].sort((x, y) => x.location.jsonPath.length - y.location.jsonPath.length)) {
    const p = r.location.jsonPath;
    if (removed.some((outer) => p.startsWith(`${outer}/`))) continue;
    if (r.type === 'removed') removed.push(p);
    add(
      'breaking',
      p,
      r.location.spec,
      (r.error ?? r.name ?? 'changed').replace(/\. This is a breaking change\.$/, ''),
    );
  }

  // The rest of the diff: what Optic's ruleset does not judge, and every non-breaking change, listed once.
  const listed = new Set(removed);
  for (const d of diffs) {
    const pointer = (d.after ?? d.before)!;
    const side = d.after ? 'after' : 'before';
    if ([...listed].some((outer) => pointer === outer || pointer.startsWith(`${outer}/`))) continue;
    const segments = splitPointer(pointer);
    if (segments[0] === 'paths' && segments.length === 2 && !(d.before && d.after)) {
      // A whole path added or removed: listed as its operations.
      const item = walk(d.after ? after : before, segments) as Json | undefined;
      for (const method of Object.keys(item ?? {}).filter((m) => (HTTP_METHODS as readonly string[]).includes(m))) {
        const at = `${pointer}/${method}`;
        if (listed.has(at)) continue;
        listed.add(at);
        add('non-breaking', at, side, d.after ? 'added' : 'removed');
      }
      listed.add(pointer);
      continue;
    }
    // Components are compared where operations use them; prose and tool-only extensions are not the contract.
    if (!operationOf(segments) || segments.some(isNoise)) continue;
    const constraint = constraintChange(d, before, after);
    if (constraint) {
      add(constraint.breaking ? 'breaking' : 'non-breaking', pointer, side, constraint.what);
      continue;
    }
    if (failed.some((r) => r.location.jsonPath === pointer || pointer.startsWith(`${r.location.jsonPath}/`))) continue;
    // An added or removed operation, parameter, response or field is listed at its own level only.
    let what = d.before && d.after ? 'changed' : d.after ? 'added' : 'removed';
    const parent = segments.at(-2);
    if ((parent === 'required' || parent === 'x-error-codes' || parent === 'x-known-values') && d.before !== d.after) {
      const value = walk(d.after ? after : before, segments);
      const noun = parent === 'required' ? 'required field' : parent === 'x-error-codes' ? 'error code' : 'known value';
      what = `${noun} ${JSON.stringify(value)} ${d.after ? 'added' : 'removed'}`;
      segments.splice(-2);
      const encode = (parts: string[]) => `/${parts.map((x) => x.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
      // A field made required (or optional) that Optic's ruleset judged is listed once, as its finding.
      const field = encode([...segments, 'properties', String(value)]);
      if (parent === 'required' && failed.some((r) => r.location.jsonPath === field)) continue;
      add('non-breaking', encode(segments), side, what);
      continue;
    }
    if (what !== 'changed') listed.add(pointer);
    add('non-breaking', pointer, side, what);
  }

  for (const change of extensionChanges(base, head)) changes.push(change);
  for (const change of componentNameChanges(base, head)) changes.push(change);
  const order: Record<ChangeKind, number> = { breaking: 0, provisional: 1, 'non-breaking': 2 };
  return changes.sort((x, y) => order[x.kind] - order[y.kind]);
}

/** The error catalogue and `info.x-limits`: extensions Optic does not read, and that every tool here acts on. */
export function extensionChanges(base: OpenApiDocument, head: OpenApiDocument): ContractChange[] {
  const out: ContractChange[] = [];
  const before = errorCatalog(base);
  const after = errorCatalog(head);
  const pointer = '/components/schemas/ErrorCode';
  for (const [code, entry] of before) {
    const now = after.get(code);
    if (!now)
      out.push({
        kind: 'non-breaking',
        operation: 'contract',
        location: `error code ${code}`,
        what: 'removed from the catalogue',
        pointer,
      });
    else if (now.status !== entry.status)
      out.push({
        kind: 'breaking',
        operation: 'contract',
        location: `error code ${code}`,
        what: `status changed from ${entry.status} to ${now.status}`,
        pointer,
      });
  }
  for (const [code, entry] of after) {
    if (!before.has(code))
      out.push({
        kind: 'non-breaking',
        operation: 'contract',
        location: `error code ${code}`,
        what: `added (${entry.status})`,
        pointer,
      });
  }
  const limitsBefore = flatten(base.info['x-limits']);
  const limitsAfter = flatten(head.info['x-limits']);
  for (const key of new Set([...limitsBefore.keys(), ...limitsAfter.keys()])) {
    const was = limitsBefore.get(key);
    const now = limitsAfter.get(key);
    if (JSON.stringify(was) === JSON.stringify(now)) continue;
    // A lower number is a tighter limit: an integration that stayed under the old one can now be refused.
    const tighter = typeof was === 'number' && typeof now === 'number' ? now < was : was !== undefined;
    out.push({
      kind: tighter ? 'breaking' : 'non-breaking',
      operation: 'contract',
      location: `limit ${key}`,
      what:
        was === undefined
          ? `added: ${JSON.stringify(now)}`
          : now === undefined
            ? 'removed'
            : `changed from ${JSON.stringify(was)} to ${JSON.stringify(now)}`,
      pointer: '/info/x-limits',
    });
  }
  return out;
}

// The sections of `components` whose names generated code uses: openapi-typescript writes `components['schemas']`,
// `['parameters']`, `['responses']`, `['headers']` and `['requestBodies']`, and a generator's auth option names the
// security schemes. Examples are data, not types.
const NAMED_SECTIONS = ['schemas', 'parameters', 'responses', 'headers', 'requestBodies', 'securitySchemes'];

/**
 * Components renamed or removed: breaking for code generated from the contract, which names them, though nothing
 * changes on the wire. A schema whose name another schema keeps in `x-former-names` still compiles (its alias).
 */
function componentNameChanges(base: OpenApiDocument, head: OpenApiDocument): ContractChange[] {
  const out: ContractChange[] = [];
  const sections = (doc: OpenApiDocument) => (doc.components ?? {}) as Record<string, Json | undefined>;
  const former = new Set(
    Object.values(head.components?.schemas ?? {}).flatMap((s) => {
      const names = (s as Json)[FORMER_NAMES_KEYWORD];
      return Array.isArray(names) ? (names as string[]) : [];
    }),
  );
  for (const section of NAMED_SECTIONS) {
    const before = Object.keys(sections(base)[section] ?? {});
    const after = Object.keys(sections(head)[section] ?? {});
    for (const name of before.filter((n) => !after.includes(n))) {
      const kept = section === 'schemas' && former.has(name);
      out.push({
        kind: kept ? 'non-breaking' : 'breaking',
        operation: 'contract',
        location: `components.${section}.${name}`,
        what: kept ? 'renamed, kept as a former name' : 'removed: generated code that names it no longer compiles',
        pointer: `/components/${section}/${name}`,
      });
    }
    for (const name of after.filter((n) => !before.includes(n)))
      out.push({
        kind: 'non-breaking',
        operation: 'contract',
        location: `components.${section}.${name}`,
        what: 'added',
        pointer: `/components/${section}/${name}`,
      });
  }
  return out;
}

function flatten(node: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (node && typeof node === 'object' && !Array.isArray(node)) {
    for (const [k, v] of Object.entries(node)) {
      // Words, not limits: a description, and the words that tell what a limit beside them says as data
      // (`query_integer_meaning`). New words change nothing a client sends or gets, but its messages.
      if (k === 'description' || k.endsWith('_meaning')) continue;
      flatten(v, prefix ? `${prefix}.${k}` : k, out);
    }
  } else if (prefix) out.set(prefix, node);
  return out;
}

/** One line per change: `BREAKING  POST /v3/auth/token  response 200 body data.token  removed`. */
export function formatChange(change: ContractChange): string {
  return `${change.kind.toUpperCase().padEnd(12)} ${change.operation}  ${change.location}  ${change.what}`;
}
