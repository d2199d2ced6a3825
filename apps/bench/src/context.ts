import {
  findOperation,
  type JsonSchema,
  loadDereferencedSpec,
  type OpenApiDocument,
  type OperationInfo,
} from '@cls-api/spec';
import type { Settings } from './options.js';

export interface Context {
  settings: Settings;
  /** The dereferenced contract: examples, limits and schemas are read from it, never copied. */
  spec: OpenApiDocument;
  /** The repository whose pipeline is measured. */
  repoRoot: string;
  /** Where this package keeps run artefacts (CPU profiles); git-ignored (apps/bench/.gitignore). */
  artefactsDir: string;
  log(line: string): void;
}

export function loadContract(): OpenApiDocument {
  return loadDereferencedSpec();
}

export function operation(spec: OpenApiDocument, method: string, path: string): OperationInfo {
  const op = findOperation(spec, method, path);
  if (!op) throw new Error(`the contract has no operation ${method.toUpperCase()} ${path}`);
  return op;
}

/**
 * A schema of the dereferenced contract with its one-branch `allOf` wrapper (a reference with bounds beside it,
 * spec/README.md) read as the wrapped schema with those bounds: the draft rows' `maxItems` is the wrapped one's.
 */
export function unwrapped(schema: JsonSchema | undefined): JsonSchema | undefined {
  const allOf = schema?.allOf;
  if (!Array.isArray(allOf) || allOf.length !== 1) return schema;
  const { allOf: _wrapped, ...own } = schema as JsonSchema;
  return { ...(allOf[0] as JsonSchema), ...own };
}

/** The request every server of the GET scenario gets: the same bytes to each. */
export const GET_REQUEST = {
  method: 'GET',
  path: '/v3/manager/orders',
  query: 'page=1&size=10',
  /** The contract's example of this response that the Prism mock is asked for. */
  mockExample: 'first_page',
} as const;

export const DRAFT_REQUEST = { method: 'POST', path: '/v3/wms/orders/draft' } as const;

export function fmt(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return 'n/a';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
