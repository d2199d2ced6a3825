// Runtime reading of the facts generated from the contract (generated/contract.ts).
import {
  bearerOnlyPrefixes,
  errorCodes,
  operations,
  securitySchemes,
} from '../generated/contract.js';
import type { components } from '../generated/openapi.js';

/** Every error code of the contract: the `oneOf` consts of `components.schemas.ErrorCode`. */
export type ErrorCode = components['schemas']['ErrorCode'];

/** The error body every failed response carries: `{ success: false, error: { code, message } }`. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

export type OperationFacts = (typeof operations)[number];

/** The kind of credential an operation takes. */
export type CredentialKind = 'apiKey' | 'jwt';

const byMethodAndPath = new Map<string, OperationFacts>(
  operations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op]),
);

/** The contract's facts about one operation, by method and path template (`GET`, `/v3/wms/orders/{order_no}`). */
export function operationFacts(method: string, schemaPath: string): OperationFacts | undefined {
  return byMethodAndPath.get(`${method.toUpperCase()} ${schemaPath}`);
}

function kindOf(scheme: string): CredentialKind {
  const facts = (securitySchemes as Record<string, { type: 'apiKey' | 'bearer' }>)[scheme];
  return facts?.type === 'bearer' ? 'jwt' : 'apiKey';
}

/**
 * The credentials an operation accepts, read from its `security` in the contract: an empty list means public.
 * A path the contract does not know (a newer server, a hand-built request) gets the API key, unless it lies in an
 * area whose every operation is JWT-only (`/v3/pay/`): an API key must never travel there.
 */
export function credentialsFor(method: string, schemaPath: string): CredentialKind[] {
  const op = operationFacts(method, schemaPath);
  if (op) return [...new Set(op.security.map(kindOf))];
  if (bearerOnlyPrefixes.some((prefix) => schemaPath.startsWith(prefix))) return ['jwt'];
  return ['apiKey'];
}

/** The header an API key travels in (`components.securitySchemes`). */
export const apiKeyHeader: string = Object.values(
  securitySchemes as Record<string, { type: string; header: string }>,
).find((s) => s.type === 'apiKey')!.header;

const knownCodes: ReadonlySet<string> = new Set(errorCodes);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && knownCodes.has(value);
}

/** Whether a body is the API's error envelope. */
export function isErrorEnvelope(body: unknown): body is { success: false; error: { code: string; message: string } } {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as { success?: unknown; error?: { code?: unknown; message?: unknown } };
  return b.success === false && typeof b.error === 'object' && b.error !== null && typeof b.error.code === 'string';
}
