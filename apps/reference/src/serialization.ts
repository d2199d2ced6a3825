// Success responses serialized from their schemas by Fastify's own serializer (fast-json-stringify) instead of
// generic JSON.stringify. A serializer built from a schema writes each property it knows by compiled code, but it
// writes properties in the schema's order, drops the ones the schema does not name, and turns a value of the wrong
// type into one of the right type. The bytes must stay exactly those JSON.stringify wrote, so a schema is used only
// when every part of it is one that such a serializer writes as JSON.stringify would for the values the handlers
// give (test/framework/serialization.test.ts compares the bytes for every example of the contract and for the
// handlers' own results): objects with every property named and no others allowed, arrays of such, strings,
// integers, numbers and booleans. A schema with a choice (`oneOf`, `anyOf`, `allOf`), several types, a default or
// an open object keeps JSON.stringify.
import { type JsonSchema, type OpenApiDocument, referenceOf, resolvePointer } from '@cls-api/spec';
import type { Contract } from './contract-facts.js';

/** Keywords that only describe or constrain a value: a serializer ignores them, and so may we. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  'example',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'enum',
  'deprecated',
  'readOnly',
]);

/** `format`s that leave a string or an integer as it is (a date-time format would turn a Date into text). */
const PLAIN_FORMATS = new Set(['int32', 'int64', 'double', 'float', 'uri', 'email', 'uuid']);

const SCALARS = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * The schema with every reference resolved, when a schema serializer writes it byte for byte as JSON.stringify
 * does; undefined otherwise.
 */
export function plainSchema(doc: OpenApiDocument, schema: JsonSchema, depth = 0): JsonSchema | undefined {
  if (depth > 32) return undefined;
  let s = schema;
  const seen = new Set<string>();
  // A `$ref` beside annotations (`description`), or wrapped with them in a one-branch `allOf`, is the referenced
  // schema.
  for (let next = referenceOf(s); next; next = referenceOf(s)) {
    if (seen.has(next.$ref)) return undefined;
    seen.add(next.$ref);
    const { $ref: _ref, allOf: _allOf, ...rest } = s;
    if (Object.keys(rest).some((k) => !ANNOTATIONS.has(k) && !k.startsWith('x-'))) return undefined;
    s = resolvePointer(doc, next.$ref) as JsonSchema;
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(s)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    if (key === 'format') {
      if (!PLAIN_FORMATS.has(String(value))) return undefined;
      continue;
    }
    if (!['type', 'properties', 'required', 'additionalProperties', 'items', 'const'].includes(key)) return undefined;
  }
  const type = s.type;
  if (typeof type !== 'string') return undefined;
  if (s.const !== undefined && typeof s.const !== 'boolean') return undefined;
  if (SCALARS.has(type)) {
    if (s.properties !== undefined || s.items !== undefined) return undefined;
    out.type = type;
    return out;
  }
  if (type === 'array') {
    if (typeof s.items !== 'object' || s.items === null) return undefined;
    const items = plainSchema(doc, s.items as JsonSchema, depth + 1);
    return items && { type: 'array', items };
  }
  if (type !== 'object') return undefined;
  // Only a closed object names every property a handler may give: an open one would lose the others.
  if (s.additionalProperties !== false || typeof s.properties !== 'object' || s.properties === null) return undefined;
  const properties: Record<string, JsonSchema> = {};
  for (const [name, sub] of Object.entries(s.properties as Record<string, JsonSchema>)) {
    const plain = plainSchema(doc, sub, depth + 1);
    if (!plain) return undefined;
    properties[name] = plain;
  }
  return { type: 'object', additionalProperties: false, properties, required: [...((s.required as string[]) ?? [])] };
}

/** The schema an operation's success response is serialized from, or undefined for JSON.stringify. */
export function successSchemaOf(spec: Contract, operationId: string, status: number): JsonSchema | undefined {
  const schema = spec.operations.get(operationId)?.responses[String(status)]?.schema;
  return schema && plainSchema(spec.doc, schema);
}
