// What goes to the server and what comes back, and the reasons a request is not sent or not answered.
import type { Credential } from '../../plan/credentials.js';

export interface HttpRequest {
  method: string;
  /** Path with parameters filled in, e.g. `/v3/wms/orders/ORD-1`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** A JSON value, or `{ raw }` for a body that is not valid JSON on purpose. */
  body?: unknown;
  rawBody?: string;
  credential: Credential;
  /**
   * Not counted against the monthly quota by the service, whatever the credential: a call of the sandbox's helpers,
   * whose document says so (run/sandbox.ts).
   */
  unmetered?: boolean;
}

export interface HttpResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  text: string;
  json?: unknown;
  /** Why the body is not JSON, when it is not. */
  jsonError?: string;
}

export interface Exchange {
  request: HttpRequest & { url: string; bodyText?: string };
  response: HttpResponse;
  ms: number;
  /** 1 for the first attempt; more after gateway-429 retries. */
  attempt: number;
}

/** The case cannot run or go on for a reason outside the server's contract (budget, quota, missing input). */
export class Skip extends Error {
  override name = 'Skip';
}

/**
 * A request the budget (`--max-requests`) or a test key's monthly quota (the reserve, or used up) leaves unsent: a
 * skip, and when no case got to run at all, the reason of exit code 3.
 */
export class BudgetSkip extends Skip {
  override name = 'BudgetSkip';
}

/** The server could not be reached: exit code 3. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
}
