import type { Middleware } from 'openapi-fetch';
import { isErrorCode, isErrorEnvelope } from './contract.js';
import { ApiError, CredentialError, NetworkError, QuotaExceededError, rememberError, requestIdOf } from './errors.js';
import { isQuota429, readQuotaHeaders } from './quota.js';
import { hasBody, signalOf } from './request.js';
import type { Timers } from './timers.js';
import { attemptOf } from './transport.js';

/** What the client knew about a request when it was sent. */
export interface RequestRecord {
  method: string;
  url: string;
  requestedAt: Date;
  path?: string | undefined;
  body?: string | undefined;
  /** Values a report of the error must not show (the client's API key and client secret). */
  secrets?: readonly string[] | undefined;
}

const RECORD = Symbol('cls-api.request-record');

/** What error typing keeps of a request until its response: the time it was made and the body as sent. */
interface PendingRecord {
  requestedAtMs: number;
  body: string | undefined;
}

/**
 * Builds the typed error of an error response, without consuming the response's body; `parsed` is the body when
 * the caller has already read it (openapi-fetch's `error`).
 */
export async function toApiError(
  response: Response,
  record: RequestRecord,
  parsed?: { body: unknown },
): Promise<ApiError> {
  let body: unknown;
  if (parsed) {
    body = parsed.body;
  } else {
    let text = '';
    try {
      text = await response.clone().text();
    } catch {
      // A body that cannot be read leaves only the status to go by.
    }
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON (a proxy's HTML page, for example): keep the text.
      body = text;
    }
  }
  const envelope = isErrorEnvelope(body) ? body : undefined;
  const code = envelope && isErrorCode(envelope.error.code) ? envelope.error.code : undefined;
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const message =
    envelope && typeof envelope.error.message === 'string'
      ? envelope.error.message
      : response.ok
        ? `${status} with a body of type ${response.headers.get('Content-Type')}, not the API's JSON`
        : `${status} without the API's error envelope`;
  const init = {
    status: response.status,
    code,
    message,
    method: record.method,
    url: record.url,
    // The time the final attempt went out, when the transport saw it; retries and pacing may come between.
    requestedAt: attemptOf(response)?.sentAt ?? record.requestedAt,
    path: record.path,
    requestBody: record.body,
    body,
    headers: response.headers,
    requestId: requestIdOf(response),
    secrets: record.secrets,
  };
  if (isQuota429(response)) return new QuotaExceededError({ ...init, ...readQuotaHeaders(response.headers) });
  return new ApiError(init);
}

const JSON_TYPE = /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Whether openapi-fetch can read this success as JSON: it has no body, a JSON type, or no type to go by. */
function readableAsJson(request: Request, response: Response): boolean {
  if (response.status === 204 || request.method === 'HEAD' || response.headers.get('Content-Length') === '0')
    return true;
  const type = response.headers.get('Content-Type');
  return type === null || JSON_TYPE.test(type);
}

/**
 * Turns every error response into an `ApiError` (`QuotaExceededError` for the monthly quota). With
 * `throwOnError` it is thrown; otherwise the response goes back to openapi-fetch's `{ data, error }` and the typed
 * error is kept for `apiErrorOf(response)`. The quota error is always thrown: no call can succeed until the quota
 * resets, and a loop that checks only `data` must not spin on it. So is an error whose body is not the API's
 * envelope (a proxy's HTML page for a 502): `error` is typed as the envelope, and `error.error.code` on the page's
 * text would fail with a TypeError that says nothing of the call. So is a success whose body is not JSON by its
 * type (`data` is typed as the API's body, and a caller would get JSON.parse's SyntaxError instead). A request that
 * got no response becomes a `NetworkError` saying whether it may have been written.
 */
export function errorTypingMiddleware(options: {
  throwOnError: boolean;
  timers: Timers;
  secrets?: readonly string[];
}): Middleware {
  // Kept on the request object, so that a request stopped by a later middleware leaves nothing behind, and not in a
  // WeakMap, whose entry per call is work for the garbage collector (the per-call cost measured by `pnpm bench`).
  type Recorded = { [RECORD]?: PendingRecord };
  const take = (request: Request): PendingRecord | undefined => {
    const record = (request as Recorded)[RECORD];
    (request as Recorded)[RECORD] = undefined;
    return record;
  };
  const typeError = async (request: Request, response: Response, schemaPath: string, pending?: PendingRecord) => {
    const record: RequestRecord = {
      method: request.method,
      url: request.url,
      requestedAt: new Date(pending?.requestedAtMs ?? options.timers.now()),
      path: schemaPath,
      body: pending?.body,
      secrets: options.secrets,
    };
    const error = await toApiError(response, record);
    rememberError(response, error);
    if (options.throwOnError || error instanceof QuotaExceededError || !isErrorEnvelope(error.body)) throw error;
    return undefined;
  };
  return {
    // The hooks return a promise only when they have something to wait for (a body to keep, an error to type): a
    // promise per hook per call is part of the per-call cost `pnpm bench` measures.
    onRequest({ request }) {
      const requestedAtMs = options.timers.now();
      if (!hasBody(request)) {
        (request as Recorded)[RECORD] = { requestedAtMs, body: undefined };
        return undefined;
      }
      // Kept for the 500 report: the body exactly as sent.
      return request
        .clone()
        .text()
        .then((body) => {
          (request as Recorded)[RECORD] = { requestedAtMs, body };
          return undefined;
        });
    },
    onResponse({ request, response, schemaPath, options: call }) {
      const pending = take(request);
      // A success whose body is not JSON (a captive portal's or a misrouted proxy's HTML page, with 200) would reach
      // the caller as JSON.parse's bare SyntaxError; a call that asked for text or a stream reads it as it is.
      if (response.ok && (call.parseAs !== 'json' || readableAsJson(request, response))) return undefined;
      return typeError(request, response, schemaPath, pending);
    },
    onError({ request, error }) {
      const pending = take(request);
      if (signalOf(request)?.aborted || error instanceof ApiError || error instanceof CredentialError) return undefined;
      // Already typed by the transport (a CorsError).
      if (error instanceof NetworkError) return undefined;
      if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) return undefined;
      return new NetworkError({
        method: request.method,
        url: request.url,
        requestedAt: new Date(pending?.requestedAtMs ?? options.timers.now()),
        cause: error,
      });
    },
  };
}
