import type { ErrorCode } from '@cls-api/server';

/**
 * An error the API reports to the client: the error-mapping plugin turns it into `{success: false, error: {code,
 * message}}` with the HTTP status the contract's error catalogue gives the code (never a status chosen here).
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
