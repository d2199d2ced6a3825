// How large a request body the contract can need, computed from its own schemas: the body limit is sized to the
// largest body a client may rightly send (a 1,000-row bulk request at every maximum length), not to a guess, so
// that a body far larger than any the contract allows is refused from its Content-Length before it is read. Every
// server of the contract (the reference server, the nginx in front of its cluster, the mock) takes these limits and
// refuses a larger body in the same words.

import { referenceOf, resolvePointer, type JsonSchema, type OpenApiDocument, type OperationInfo } from '@cls-api/spec';

/**
 * Bytes one character of a string may take in the JSON text. An ASCII-only encoder (Python's `json.dumps`
 * default, for one) writes every non-ASCII character as a `\uXXXX` escape: six bytes for any character of the
 * Basic Multilingual Plane (Hangul, every script of a name or an address). Plain UTF-8 takes at most four.
 */
export const BYTES_PER_CHARACTER = 6;
/** A JSON number as a client may write it (sign, 17 significant digits, fraction point, exponent). */
export const BYTES_PER_NUMBER = 32;
/** Pretty-printing: a line break and up to four spaces of indent per level before each member, a space after `:`. */
const INDENT_PER_LEVEL = 4;

type Schema = Record<string, unknown>;

/**
 * A schema with its `$ref` chain followed: the nearest node's keywords win, except the upper bounds, where the
 * smallest along the chain holds (a value must satisfy every node of the chain).
 */
function flatten(doc: OpenApiDocument, schema: unknown): Schema {
  const merged: Schema = {};
  let node = schema as Schema | undefined;
  for (let hops = 0; hops < 32 && node && typeof node === 'object'; hops++) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' || (key === 'allOf' && referenceOf(node))) continue;
      if ((key === 'maxLength' || key === 'maxItems' || key === 'maxProperties') && typeof value === 'number') {
        merged[key] = typeof merged[key] === 'number' ? Math.min(merged[key] as number, value) : value;
      } else if (!(key in merged)) {
        merged[key] = value;
      }
    }
    const next = referenceOf(node);
    if (!next) break;
    node = resolvePointer(doc, next.$ref) as Schema | undefined;
  }
  return merged;
}

const stringBytes = (characters: number) => 2 + characters * BYTES_PER_CHARACTER;

/**
 * The most bytes the JSON text of a value valid under `schema` can take (allowing pretty-printing and an ASCII-only
 * encoder), or undefined when the schema puts no bound on it (a string without `maxLength`, an open object).
 */
export function maxJsonBytes(doc: OpenApiDocument, schema: unknown, depth = 0): number | undefined {
  if (depth > 32) return undefined;
  const s = flatten(doc, schema);
  const branches = (key: 'oneOf' | 'anyOf' | 'allOf') =>
    Array.isArray(s[key]) ? (s[key] as unknown[]).map((b) => maxJsonBytes(doc, b, depth)) : undefined;
  // A value of allOf satisfies every branch, so any bounded branch bounds it; of oneOf/anyOf, the largest branch.
  const all = branches('allOf');
  const bounded = all?.filter((b): b is number => b !== undefined);
  if (bounded && bounded.length > 0) return Math.min(...bounded);
  for (const key of ['oneOf', 'anyOf'] as const) {
    const found = branches(key);
    if (found) return found.some((b) => b === undefined) ? undefined : Math.max(...(found as number[]));
  }
  const listed = (s.enum as unknown[] | undefined) ?? ('const' in s ? [s.const] : undefined);
  if (listed)
    return Math.max(...listed.map((v) => (typeof v === 'string' ? stringBytes(v.length) : JSON.stringify(v).length)));
  const indent = 2 + INDENT_PER_LEVEL * (depth + 1);
  switch (s.type) {
    case 'string':
      return typeof s.maxLength === 'number' ? stringBytes(s.maxLength) : undefined;
    case 'integer':
    case 'number':
      return BYTES_PER_NUMBER;
    case 'boolean':
      return 5;
    case 'null':
      return 4;
    case 'array': {
      if (typeof s.maxItems !== 'number') return undefined;
      const item = maxJsonBytes(doc, s.items ?? {}, depth + 1);
      return item === undefined ? undefined : 2 + indent + s.maxItems * (item + 1 + indent);
    }
    case 'object': {
      if (s.additionalProperties !== false) return undefined;
      const members = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => {
        const value = maxJsonBytes(doc, property, depth + 1);
        return value === undefined ? undefined : stringBytes(name.length) + 2 + value + 1 + indent;
      });
      if (members.some((m) => m === undefined)) return undefined;
      const sizes = (members as number[]).sort((a, b) => b - a);
      const count = typeof s.maxProperties === 'number' ? Math.min(s.maxProperties, sizes.length) : sizes.length;
      return 2 + indent + sizes.slice(0, count).reduce((sum, n) => sum + n, 0);
    }
    default:
      return undefined;
  }
}

/**
 * The largest request body of any operation whose body the contract bounds (the bulk requests: 1,000 rows at every
 * maximum length). Bodies the contract leaves open (an MCP tool call's `arguments`) are bounded by this too, and by
 * the nesting limit.
 */
export function maxRequestBodyBytes(
  doc: OpenApiDocument,
  ops: Iterable<OperationInfo>,
): { bytes: number; operationId: string } {
  let largest = { bytes: 0, operationId: '' };
  for (const op of ops) {
    if (!op.requestBody?.schema) continue;
    const bytes = maxJsonBytes(doc, op.requestBody.schema);
    if (bytes !== undefined && bytes > largest.bytes) largest = { bytes, operationId: op.operationId };
  }
  if (largest.bytes === 0) throw new Error('the contract (@cls-api/spec) bounds no request body');
  return largest;
}

/**
 * Each operation's own body limit: the most its request body's schema allows (a token request takes about a
 * kilobyte, a bulk request megabytes). Operations whose body the contract leaves open (an MCP tool call's
 * `arguments`) are absent: they take up to the largest bounded body.
 */
export function operationBodyLimits(doc: OpenApiDocument, ops: Iterable<OperationInfo>): Map<string, number> {
  const limits = new Map<string, number>();
  for (const op of ops) {
    if (!op.requestBody?.schema) continue;
    const bytes = maxJsonBytes(doc, op.requestBody.schema);
    if (bytes !== undefined) limits.set(op.operationId, bytes);
  }
  return limits;
}

/** The limits a server holds request bodies to: the largest it reads, and each operation's own bound. */
export interface BodyLimits {
  /** The largest body read, in bytes: by default the largest the contract allows (maxRequestBodyBytes). */
  bodyLimit: number;
  /** Each operation's own limit (operationBodyLimits); an operation absent from it takes `bodyLimit`. */
  operationLimits: ReadonlyMap<string, number>;
}

/** The largest body an operation reads: its own schema's bound, never above the server's limit. */
export function bodyLimitOf(operationId: string | undefined, limits: BodyLimits): number {
  const own = operationId === undefined ? undefined : limits.operationLimits.get(operationId);
  return own === undefined ? limits.bodyLimit : Math.min(own, limits.bodyLimit);
}

/** The message of a body over an operation's limit, from a server or the proxy in front of it alike. */
export function bodyTooLargeMessage(limit: number, serverLimit: number): string {
  return limit < serverLimit
    ? `The request body is larger than ${limit} bytes, the most this operation takes.`
    : `The request body is larger than ${limit} bytes, the most any operation takes.`;
}
