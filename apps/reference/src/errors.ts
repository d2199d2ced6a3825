import { type ErrorCode, shown } from '@cls-api/server';

/**
 * An error the API reports to the client: the error-mapping plugin turns it into `{success: false, error: {code,
 * message}}` with the HTTP status the contract's error catalogue gives the code (never a status chosen here).
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /**
     * Declared by the sandbox document rather than by the operation: a refused forced outcome
     * (`SandboxOutcomeRefused`, `SandboxForbidden` of spec/sandbox/openapi.yaml), which any operation can get.
     */
    readonly declaredBySandbox = false,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** A message as the contract's `Text` allows it (`Error.message`): escaped like `shown`, at most `max` characters. */
export function messageText(message: string, max: number): string {
  const escaped = Array.from(shown(message, Number.MAX_SAFE_INTEGER));
  return escaped.length <= max ? escaped.join('') : `${escaped.slice(0, max - 1).join('')}…`;
}
