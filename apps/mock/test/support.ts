// Shared by the test files: a JSON Schema validator over the whole contract, and request helpers.
import { Ajv2020 as Ajv2020Class } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument } from '@cls-api/spec';

interface AjvError {
  instancePath: string;
  message?: string;
}
interface AjvValidate {
  (value: unknown): boolean;
  errors?: AjvError[] | null;
}
interface AjvInstance {
  addSchema(schema: object, key?: string): AjvInstance;
  addKeyword(keyword: string): AjvInstance;
  compile(schema: object): AjvValidate;
}

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormatsFn = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown;

function loadAjv(): { Ajv2020: new (opts: object) => AjvInstance; addFormats: (ajv: AjvInstance) => void } {
  return { Ajv2020: Ajv2020Class as unknown as new (opts: object) => AjvInstance, addFormats: addFormatsFn as unknown as (ajv: AjvInstance) => void };
}

const SCHEMA_BASE = 'https://cls-api.mock.test/schemas/';
const SCHEMA_REF = '#/components/schemas/';

function collectExtensions(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) collectExtensions(item, found);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      collectExtensions(value, found);
    }
  }
  return found;
}

/** Points `#/components/schemas/X` at the schema registered as `X`; any other local reference is an error. */
function absoluteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(absoluteRefs);
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        if (key !== '$ref' || typeof value !== 'string') return [key, absoluteRefs(value)];
        if (!value.startsWith(SCHEMA_REF)) throw new Error(`unexpected schema reference ${value}`);
        return [key, `${SCHEMA_BASE}${value.slice(SCHEMA_REF.length)}`];
      }),
    );
  }
  return node;
}

export interface SchemaValidator {
  /** Errors of `value` against `schema` as written in the document (`$ref`s resolve against it); [] when valid. */
  errors(schema: unknown, value: unknown): string[];
}

/** Ajv 2020 with formats, strict except for OpenAPI's annotation keywords and `x-` extensions. */
export function schemaValidator(doc: OpenApiDocument): SchemaValidator {
  const { Ajv2020, addFormats } = loadAjv();
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictTypes: false, strictTuples: false });
  addFormats(ajv);
  for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs', ...collectExtensions(doc.components, new Set())]) {
    ajv.addKeyword(keyword);
  }
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    ajv.addSchema({ ...(absoluteRefs(schema) as object), $id: `${SCHEMA_BASE}${name}` });
  }
  const cache = new Map<string, AjvValidate>();
  return {
    errors(schema, value) {
      const key = JSON.stringify(schema);
      let validate = cache.get(key);
      if (!validate) {
        validate = ajv.compile(absoluteRefs(schema) as object);
        cache.set(key, validate);
      }
      if (validate(value)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** Sends one request and reads the whole answer. */
export async function send(
  baseUrl: string,
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const res = await fetch(`${baseUrl}${url}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
