import { serviceTimeZone } from '../generated/contract.js';
import type { ErrorCode } from './contract.js';

export interface ApiErrorInit {
  status: number;
  /** The envelope's `error.code`; undefined when the body is not the API's envelope or the code is unknown. */
  code: ErrorCode | undefined;
  /** The envelope's `error.message`, or a description of the response when there is no envelope. */
  message: string;
  method: string;
  /** The full URL, query string included. */
  url: string;
  /** When the request that got this response was sent. */
  requestedAt: Date;
  /** The path template of the operation (`/v3/wms/orders/{order_no}`), when known. */
  path?: string | undefined;
  /** The request body as sent (text), when there was one. */
  requestBody?: string | undefined;
  /** The response body, parsed as JSON when it is JSON. */
  body: unknown;
  /** The response headers. */
  headers: Headers;
  /** The service's name for the request (`X-Request-Id`), when it sent one. */
  requestId?: string | undefined;
  /** Values `report()` removes wherever they appear (the client's API key and client secret). */
  secrets?: readonly string[] | undefined;
}

/** What the operations team needs to reproduce a 500: see `ApiError.report()`. */
export interface ErrorReport {
  status: number;
  code: ErrorCode | undefined;
  message: string;
  method: string;
  /** The full URL including the query string, with the value of any credential parameter removed. */
  url: string;
  /**
   * The reproducible request body as sent, with credential fields and the client's secrets removed (undefined for
   * requests without a body).
   */
  body: string | undefined;
  /** The service's name for the request (`X-Request-Id`), when it sent one: the line support looks up. */
  requestId: string | undefined;
  /** The request time to the minute in the service time zone: `YYYY-MM-DD HH:MM`. */
  requestedAt: string;
  /** The service time zone `requestedAt` is written in (`info.x-service-time-zone`). */
  timeZone: string;
  /** The same minute in UTC, ISO 8601 (`2026-11-20T01:15Z`). */
  requestedAtUtc: string;
  /** All of the above as one text, ready to paste into a report. */
  text: string;
}

const minuteFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: serviceTimeZone,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/**
 * The header the service names each request in. The contract does not declare it, so it is read when present and
 * its absence is no error.
 */
export const requestIdHeader = 'X-Request-Id';

/** The service's request id of a response, when it sent one. */
export function requestIdOf(response: Response): string | undefined {
  return response.headers.get(requestIdHeader) ?? undefined;
}

/** What replaces a secret in a report. */
export const REDACTED = '(redacted)';

// Names of fields and query parameters that carry credentials: API keys, tokens, client secrets, passwords.
const SECRET_NAME = /secret|token|passw|api[-_]?key|authorization|credential/i;

function withoutValues(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  }
  return out;
}

/** The URL with the value of every credential query parameter, and every known secret, removed. */
export function redactUrl(url: string, secrets: readonly string[] = []): string {
  const hash = url.indexOf('#');
  const bare = hash === -1 ? url : url.slice(0, hash);
  const q = bare.indexOf('?');
  let out = bare;
  if (q !== -1) {
    // Parameter by parameter on the raw text, so that the others stay exactly as sent.
    const query = bare
      .slice(q + 1)
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const rawName = eq === -1 ? pair : pair.slice(0, eq);
        let name = rawName;
        try {
          name = decodeURIComponent(rawName.replace(/\+/g, ' '));
        } catch {
          // A malformed escape: judge the raw name.
        }
        return SECRET_NAME.test(name) ? `${rawName}=${REDACTED}` : pair;
      })
      .join('&');
    out = `${bare.slice(0, q)}?${query}`;
  }
  return withoutValues(out, secrets);
}

function redactJson(value: unknown): { value: unknown; changed: boolean } {
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const r = redactJson(item);
      changed ||= r.changed;
      return r.value;
    });
    return { value: items, changed };
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (SECRET_NAME.test(key) && typeof item === 'string') {
        out[key] = REDACTED;
        changed ||= item !== REDACTED;
        continue;
      }
      const r = redactJson(item);
      changed ||= r.changed;
      out[key] = r.value;
    }
    return { value: out, changed };
  }
  return { value, changed: false };
}

/** A request body with credential fields (of a JSON body) and every known secret removed; otherwise as sent. */
export function redactBody(body: string | undefined, secrets: readonly string[] = []): string | undefined {
  if (body === undefined) return undefined;
  let out = body;
  try {
    const r = redactJson(JSON.parse(body));
    if (r.changed) out = JSON.stringify(r.value);
  } catch {
    // Not JSON: only the known secrets are looked for.
  }
  return withoutValues(out, secrets);
}

/** `YYYY-MM-DD HH:MM` of an instant in the service time zone. */
export function serviceMinute(date: Date): string {
  const parts = Object.fromEntries(minuteFormat.formatToParts(date).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/**
 * An error response of the API, typed: `code` is the contract's union of error codes, so `switch (err.code)` is
 * checked by the compiler. Thrown with `throwOnError: true`; otherwise available as `apiErrorOf(response)` next
 * to openapi-fetch's `{ data, error }`.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode | undefined;
  readonly method: string;
  readonly url: string;
  readonly requestedAt: Date;
  readonly path: string | undefined;
  readonly requestBody: string | undefined;
  readonly body: unknown;
  readonly headers: Headers;
  /** The service's name for the request (`X-Request-Id`), when it sent one: give it in a support ticket. */
  readonly requestId: string | undefined;
  readonly #secrets: readonly string[];
  readonly #summary: string;

  constructor(init: ApiErrorInit) {
    // The stack's first line and `String(err)` carry the whole context (an uncaught error prints the one, a log
    // line or a template string the other), the request id included; `message` stays the service's own text, as
    // the envelope gives it.
    const secrets = init.secrets ?? [];
    const summary =
      `${init.status}${init.code ? ` ${init.code}` : ''} on ${init.method} ${redactUrl(init.url, secrets)}: ` +
      `${init.message}${init.requestId === undefined ? '' : ` (request id ${init.requestId})`}`;
    super(summary);
    const stack = this.stack;
    this.message = init.message;
    if (typeof stack === 'string') this.stack = stack.replace(/^[^\n]*/, `${new.target.name}: ${summary}`);
    this.status = init.status;
    this.code = init.code;
    this.method = init.method;
    this.url = init.url;
    this.requestedAt = init.requestedAt;
    this.path = init.path;
    this.requestBody = init.requestBody;
    this.body = init.body;
    this.headers = init.headers;
    this.requestId = init.requestId;
    this.#secrets = secrets;
    this.#summary = summary;
  }

  /** `ApiError: 404 ORDER_NOT_FOUND on GET …: the service's message (request id …)`, secrets removed from the URL. */
  override toString(): string {
    return `${this.name}: ${this.#summary}`;
  }

  /**
   * The report the service asks for when a 500 `INTERNAL_ERROR` happens: the full URL including the query string,
   * the reproducible request body, the request time to the minute, and the request id when the service sent one.
   * Secrets are removed: the value of any field or query parameter named for a credential (`client_secret`,
   * `refresh_token`, `api_key`, …) and the client's own API key and client secret wherever they appear. Available
   * on every status.
   */
  report(): ErrorReport {
    const minute = serviceMinute(this.requestedAt);
    const utc = `${this.requestedAt.toISOString().slice(0, 16)}Z`;
    const url = redactUrl(this.url, this.#secrets);
    const body = redactBody(this.requestBody, this.#secrets);
    const lines = [
      `${this.status}${this.code ? ` ${this.code}` : ''}: ${this.message}`,
      `Request: ${this.method} ${url}`,
      `Time: ${minute} (${serviceTimeZone}) = ${utc}`,
      `Request id: ${this.requestId ?? '(not sent)'}`,
      `Body: ${body === undefined ? '(none)' : body}`,
    ];
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      method: this.method,
      url,
      body,
      requestId: this.requestId,
      requestedAt: minute,
      timeZone: serviceTimeZone,
      requestedAtUtc: utc,
      text: lines.join('\n'),
    };
  }
}

export interface QuotaExceededInit extends ApiErrorInit {
  limit: number | undefined;
  remaining: number | undefined;
  resetAt: Date | undefined;
  retryAfterSeconds: number | undefined;
}

/**
 * The monthly quota of the account's test keys is used up: 429 with `Retry-After` (the source's Limits rules 5 and
 * 6). Never retried, because retrying cannot help until the quota resets or a live key is used. Every field is
 * taken from a header and is undefined when the service did not send that header.
 */
export class QuotaExceededError extends ApiError {
  override name = 'QuotaExceededError';
  /** `X-RateLimit-Limit`: the allowance for the month. */
  readonly limit: number | undefined;
  /** `X-RateLimit-Remaining`: calls left this month. */
  readonly remaining: number | undefined;
  /** `X-RateLimit-Reset`: when the allowance resets. */
  readonly resetAt: Date | undefined;
  /** `Retry-After`: seconds to wait. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: QuotaExceededInit) {
    super(init);
    this.limit = init.limit;
    this.remaining = init.remaining;
    this.resetAt = init.resetAt;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/**
 * The request never got a response (connection refused, reset, DNS…). For a GET it was already retried; a write
 * is never repeated, and `mayHaveWritten` says that the service may or may not have stored it.
 */
export class NetworkError extends Error {
  override name = 'NetworkError';
  readonly method: string;
  readonly url: string;
  readonly requestedAt: Date;
  readonly mayHaveWritten: boolean;

  constructor(init: { method: string; url: string; requestedAt: Date; cause: unknown; message?: string }) {
    const mayHaveWritten = !isIdempotent(init.method);
    super(
      (init.message ?? `${init.method} ${init.url} got no response (${describe(init.cause)})`) +
        (mayHaveWritten ? '; it was not repeated, and the service may or may not have stored it' : ''),
      { cause: init.cause },
    );
    this.method = init.method;
    this.url = init.url;
    this.requestedAt = init.requestedAt;
    this.mayHaveWritten = mayHaveWritten;
  }
}

/**
 * A browser refused to show the page the service's response: the service does not allow the page's origin
 * (cross-origin resource sharing). The service is reachable, so this is not a network failure, and no retry can
 * succeed until the service allows `origin`: it is thrown after one attempt.
 */
export class CorsError extends NetworkError {
  override name = 'CorsError';
  /** The page's origin, which the service did not allow. */
  readonly origin: string;

  constructor(init: { method: string; url: string; requestedAt: Date; cause: unknown; origin: string }) {
    super({
      ...init,
      message:
        `${init.method} ${init.url} was blocked by the browser: the service does not allow pages of ${init.origin} ` +
        'to call it (CORS). Retrying cannot help: the service must allow this origin',
    });
    this.origin = init.origin;
  }
}

/** The client has no credential this operation accepts; raised before anything is sent. */
export class CredentialError extends Error {
  override name = 'CredentialError';
  readonly method: string;
  readonly path: string;
  readonly accepted: readonly ('apiKey' | 'jwt')[];

  constructor(method: string, path: string, accepted: readonly ('apiKey' | 'jwt')[], message: string) {
    super(message);
    this.method = method;
    this.path = path;
    this.accepted = accepted;
  }
}

export function isIdempotent(method: string): boolean {
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD';
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    const code = inner && typeof inner === 'object' ? (inner as { code?: unknown }).code : undefined;
    return typeof code === 'string' ? `${cause.message}: ${code}` : cause.message;
  }
  return String(cause);
}

// The ApiError of each error response the client has seen, so that the non-throwing style can get at it.
const errorsByResponse = new WeakMap<Response, ApiError>();

export function rememberError(response: Response, error: ApiError): void {
  errorsByResponse.set(response, error);
}

/**
 * The typed `ApiError` (or `QuotaExceededError`) of an error response returned by this client, for the
 * non-throwing style: `const { error, response } = await client.GET(...); if (error) apiErrorOf(response)?.report()`.
 */
export function apiErrorOf(response: Response): ApiError | undefined {
  return errorsByResponse.get(response);
}
