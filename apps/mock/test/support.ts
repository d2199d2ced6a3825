// Shared by the test files: a JSON Schema validator over the whole contract (the contract model's), and request
// helpers.
import { contractModel, type JsonSchema, type OpenApiDocument } from '@cls-api/spec';

export interface SchemaValidator {
  /** Errors of `value` against `schema` as written in the document (`$ref`s resolve against it); [] when valid. */
  errors(schema: unknown, value: unknown): string[];
}

/** The contract's own validator (one Ajv configuration, in @cls-api/spec), its errors as text. */
export function schemaValidator(doc: OpenApiDocument): SchemaValidator {
  const validator = contractModel(doc).validator();
  return {
    errors(schema, value) {
      return validator.errors(schema as JsonSchema, value).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
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
  body?: string | Uint8Array,
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
