// Runtime reading of the facts generated from the contract (generated/contract.ts).
import {
  areaSecurity,
  errorCodes,
  type limits,
  operations,
  sandboxOperations,
  securitySchemes,
} from '../generated/contract.js';
import type { components } from '../generated/openapi.js';

/** Every error code of the contract: the `oneOf` consts of `components.schemas.ErrorCode`. */
export type ErrorCode = components['schemas']['ErrorCode'];

/** The error body every failed response carries: `{ success: false, error: { code, message } }`. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

export type OperationFacts = (typeof operations)[number];

type GeneratedGatewayLimit = (typeof limits.gateway)[number];
/**
 * One gateway speed limit (`info.x-limits`): requests whose path starts with `appliesTo` share `ratePerSecond`, with
 * `burst`. The shape the contract model gives every tool, taken from the generated limits, its literals widened.
 */
export type GatewayLimit = {
  -readonly [K in keyof GeneratedGatewayLimit]: GeneratedGatewayLimit[K] extends string ? string : number;
};

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
 * A path the contract does not know (a newer server, a hand-built request) takes what every operation of its area
 * takes, so an API key never travels to a JWT-only area (`/v3/pay/`) and a JWT still reaches the manager area;
 * in an area without one rule, or outside the areas, it gets the API key.
 */
export function credentialsFor(method: string, schemaPath: string): CredentialKind[] {
  const known = kindsByOperation.get(`${method.toUpperCase()} ${schemaPath}`);
  if (known) return [...known];
  const area = Object.entries(areaSecurity as Record<string, readonly string[]>).find(([prefix]) =>
    schemaPath.startsWith(prefix),
  );
  return area ? kindsOf(area[1]) : ['apiKey'];
}

function kindsOf(schemes: readonly string[]): CredentialKind[] {
  return [...new Set(schemes.map(kindOf))];
}

// Read once: every call asks. The sandbox's helpers (its own document) take an API key of any area or a JWT.
const kindsByOperation = new Map<string, readonly CredentialKind[]>([
  ...[...byMethodAndPath].map(([key, op]) => [key, kindsOf(op.security)] as const),
  ...sandboxOperations.map((op) => [`${op.method.toUpperCase()} ${op.path}`, kindsOf(op.security)] as const),
]);

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
