// What openapi-fetch builds for each call. By default it builds an undici `Request`, and `fetch(request)` copies it
// into another one (a second set of headers and a second AbortSignal that follows the first): a fixed cost on every
// call that `pnpm bench` measures ("@cls-api/client vs a bare fetch", BENCHMARKS.md). Given this class as its
// `Request` option, openapi-fetch builds a plain object with the same surface instead, and only `fetch` builds a
// Request. A custom `fetch` (ClientOptions.fetch) still receives a real `Request`.

/** A request as openapi-fetch and the middleware see it: `Request`'s fields, without an undici Request behind it. */
export class CallRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  /** The caller's signal; undefined when the call was given none. */
  readonly callerSignal: AbortSignal | undefined;
  #signal: AbortSignal | undefined;
  readonly #init: RequestInit;
  readonly #body: BodyInit | null;

  constructor(url: string, init: RequestInit = {}) {
    this.url = url;
    this.#init = init;
    this.method = (init.method ?? 'GET').toUpperCase();
    // openapi-fetch hands over a Headers of this call's own; anything else is copied, as Request copies.
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.callerSignal = init.signal ?? undefined;
    this.#signal = this.callerSignal;
    this.#body = init.body ?? null;
  }

  /**
   * Middleware may still hand openapi-fetch a real `Request` (openapi-fetch checks what `onRequest` returns with
   * `instanceof` against this class); both are requests.
   */
  static is(value: unknown): value is CallRequest {
    return typeof value === 'object' && value !== null && #body in value;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof Request || isCallRequest(value);
  }

  /**
   * `Request.signal`: the caller's, or one of this request's own that never aborts, made when first asked for. Not
   * one shared by every request: a Worker refuses an AbortController made at load, and every wait on a shared signal
   * would add its listener to the same one.
   */
  get signal(): AbortSignal {
    this.#signal ??= new AbortController().signal;
    return this.#signal;
  }

  get mode(): RequestMode {
    return this.#init.mode ?? 'cors';
  }
  get credentials(): RequestCredentials {
    return this.#init.credentials ?? 'same-origin';
  }
  get redirect(): RequestRedirect {
    return this.#init.redirect ?? 'follow';
  }
  get cache(): RequestCache {
    return this.#init.cache ?? 'default';
  }
  get bodyUsed(): boolean {
    return false;
  }
  /** The body as a stream, as `Request.body` gives it; null when there is none. */
  get body(): ReadableStream<Uint8Array> | null {
    return this.#body === null ? null : new Response(this.#body).body;
  }
  /** True when the request has a body (cheaper than `body !== null`, which builds a stream). */
  get hasBody(): boolean {
    return this.#body !== null;
  }

  text(): Promise<string> {
    return typeof this.#body === 'string' ? Promise.resolve(this.#body) : new Response(this.#body).text();
  }
  json(): Promise<unknown> {
    return this.text().then((t) => JSON.parse(t));
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return new Response(this.#body).arrayBuffer();
  }
  blob(): Promise<Blob> {
    return new Response(this.#body).blob();
  }
  formData(): Promise<FormData> {
    return this.toRequest().formData();
  }

  clone(): CallRequest {
    return new CallRequest(this.url, { ...this.#init, headers: new Headers(this.headers) });
  }

  /** What `fetch(url, init)` needs to send it. */
  fetchInit(): RequestInit {
    return { ...this.#init, method: this.method, headers: this.headers, body: this.#body };
  }

  /** A real `Request` with the same URL, headers, body and signal. */
  toRequest(): Request {
    return new Request(this.url, this.fetchInit());
  }
}

function isCallRequest(value: unknown): value is CallRequest {
  return CallRequest.is(value);
}

/** Whether a request (real or not) has a body, without building a stream for it. */
export function hasBody(request: Request): boolean {
  const call = request as unknown as CallRequest;
  return isCallRequest(call) ? call.hasBody : request.body !== null;
}

/**
 * The signal that can abort a request: the caller's, or undefined when none can (a CallRequest without one), so that
 * nothing listens to a signal that never fires.
 */
export function signalOf(request: Request): AbortSignal | undefined {
  const call = request as unknown as CallRequest;
  return isCallRequest(call) ? call.callerSignal : request.signal;
}

/** A real `Request` for what openapi-fetch built. */
export function toRequest(request: Request): Request {
  const call = request as unknown as CallRequest;
  return isCallRequest(call) ? call.toRequest() : request;
}

/** Sends with the platform's fetch, building the one Request fetch needs from a CallRequest's fields. */
export function platformFetch(request: Request): Promise<Response> {
  const call = request as unknown as CallRequest;
  return isCallRequest(call) ? globalThis.fetch(call.url, call.fetchInit()) : globalThis.fetch(request);
}

/**
 * Refuses a call whose path or query parameter no URL can carry: text holding half of a surrogate pair without the
 * other half. openapi-fetch would throw encodeURIComponent's bare "URI malformed", naming neither the call nor the
 * parameter. Checked with that same function, so what passes is what openapi-fetch can encode.
 */
export function assertEncodableParams(method: string, path: unknown, init: unknown): void {
  const params = (init as { params?: Record<string, unknown> } | undefined)?.params;
  for (const where of ['path', 'query'] as const) {
    const values = params?.[where];
    if (typeof values !== 'object' || values === null) continue;
    for (const [name, value] of Object.entries(values)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item !== 'string') continue;
        try {
          encodeURIComponent(item);
        } catch {
          throw new TypeError(
            `${method} ${String(path)}: params.${where}.${name} holds half of a surrogate pair without the other half, which is not Unicode text and cannot be put in a URL; nothing was sent`,
          );
        }
      }
    }
  }
}
