// Shared by the test files: the built bundle, schema lookups and an Ajv 2020 instance that knows the document.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { inject } from 'vitest';
import { type JsonSchema, type OpenApiDocument, deref, isReference, openapiJsonPath } from '../src/index.js';

/** The bundle this run's global setup built; throws the build's own error if it failed. */
export function loadBuiltSpec(): OpenApiDocument {
  const buildError = inject('specBuildError');
  if (buildError) throw new Error(`the bundle could not be built, so nothing can be checked:\n${buildError}`);
  return JSON.parse(readFileSync(openapiJsonPath, 'utf8')) as OpenApiDocument;
}

/** Follows `$ref`s to the schema they name (siblings such as `description` are dropped). */
export function schemaOf(doc: OpenApiDocument, schema: unknown): JsonSchema {
  if (schema === undefined) throw new Error('no schema');
  return deref<JsonSchema>(doc, schema as JsonSchema);
}

/**
 * The properties an object schema declares, its `allOf` branches' included (a bulk result row is
 * `allOf: [BulkResultRow, DraftResult]`), and those its `oneOf` branches declare (a row is a success row or a
 * failure row); the first declaration of a name wins.
 */
function declaredProperties(doc: OpenApiDocument, schema: unknown): Record<string, unknown> {
  const resolved = schemaOf(doc, schema);
  const out: Record<string, unknown> = {};
  for (const branch of (resolved.oneOf as unknown[] | undefined) ?? [])
    for (const [name, sub] of Object.entries(declaredProperties(doc, branch))) if (!(name in out)) out[name] = sub;
  for (const branch of (resolved.allOf as unknown[] | undefined) ?? [])
    Object.assign(out, declaredProperties(doc, branch));
  return { ...out, ...((resolved.properties as Record<string, unknown> | undefined) ?? {}) };
}

/** The resolved schema of property `name` of an object schema, or undefined. */
export function propertyOf(doc: OpenApiDocument, schema: unknown, name: string): JsonSchema | undefined {
  const props = declaredProperties(doc, schema);
  return name in props ? schemaOf(doc, props[name]) : undefined;
}

export function propertyNames(doc: OpenApiDocument, schema: unknown): string[] {
  return Object.keys(declaredProperties(doc, schema));
}

/** `type` of a resolved schema, as one string ("integer", or "string|null" for a type list). */
export function typeOf(doc: OpenApiDocument, schema: unknown): string {
  const type = schemaOf(doc, schema).type;
  return Array.isArray(type) ? type.join('|') : String(type);
}

/** The required properties of an object schema, its `allOf` branches' included. */
export function requiredOf(doc: OpenApiDocument, schema: unknown): string[] {
  const resolved = schemaOf(doc, schema);
  const own = Array.isArray(resolved.required) ? (resolved.required as string[]) : [];
  const inherited = ((resolved.allOf as unknown[] | undefined) ?? []).flatMap((branch) => requiredOf(doc, branch));
  // Required in whichever branch of a `oneOf` the value takes: required in all of them.
  const branches = ((resolved.oneOf as unknown[] | undefined) ?? []).map((branch) => requiredOf(doc, branch));
  const everyBranch = branches.length === 0 ? [] : branches[0]!.filter((r) => branches.every((b) => b.includes(r)));
  return [...new Set([...inherited, ...everyBranch, ...own])];
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DOC_ID = 'https://cls-api.test/openapi.json';

// OpenAPI's own schema keywords: annotations as far as JSON Schema validation is concerned.
const OPENAPI_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs'];

function extensionKeywords(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) extensionKeywords(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      extensionKeywords(value, found);
    }
  }
  return found;
}

function rewriteLocalRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteLocalRefs);
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        key === '$ref' && typeof value === 'string' && value.startsWith('#')
          ? `${DOC_ID}${value}`
          : rewriteLocalRefs(value),
      ]),
    );
  }
  return node;
}

export interface SchemaValidator {
  /** Validates `value` against `schema` (as written in the document, `$ref`s and all); returns error text or []. */
  errors(schema: unknown, value: unknown): string[];
}

/**
 * Ajv 2020 with ajv-formats over the whole document, so `#/components/...` references resolve. Strict mode stays
 * on for everything but the OpenAPI annotations, so a misspelt keyword fails instead of silently passing.
 */
export function schemaValidator(doc: OpenApiDocument): SchemaValidator {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
  addFormats(ajv);
  for (const keyword of [...OPENAPI_KEYWORDS, ...extensionKeywords(doc, new Set())]) ajv.addKeyword(keyword);
  // Only components are registered: references point there, and Ajv compiles the registered root, which must
  // therefore be a schema; `components` becomes an annotation keyword so the root compiles to "anything".
  ajv.addKeyword('components');
  ajv.addSchema({ components: doc.components ?? {} }, DOC_ID);
  const cache = new Map<string, ValidateFunction>();
  return {
    errors(schema, value) {
      const rewritten = rewriteLocalRefs(schema);
      const key = JSON.stringify(rewritten);
      let validate = cache.get(key);
      if (!validate) {
        validate = ajv.compile(rewritten as object);
        cache.set(key, validate);
      }
      if (validate(value)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`);
    },
  };
}

/** A JSON Pointer token. */
export const esc = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

export { isReference };
