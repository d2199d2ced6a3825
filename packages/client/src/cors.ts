import { CorsError } from './errors.js';
import { signalOf } from './request.js';
import type { Timers } from './timers.js';
import type { Fetch, TransportLayer } from './transport.js';

/** The origin of the page (or worker) the client runs in, when it runs in a browser; undefined elsewhere. */
export function pageOrigin(): string | undefined {
  const inBrowser =
    typeof document !== 'undefined' || typeof (globalThis as { importScripts?: unknown }).importScripts === 'function';
  const origin = globalThis.location?.origin;
  return inBrowser && typeof origin === 'string' && origin !== 'null' ? origin : undefined;
}

/**
 * Tells a request the browser blocked for CORS from one that got no response. A browser reports both as the same
 * `TypeError`, and a page cannot read why; so when a cross-origin call fails so, the layer asks again in `no-cors`
 * mode, which needs no permission from the service and whose answer the page may not read: if that gets any answer,
 * the service is there and the failure was CORS, which is thrown as `CorsError` and never retried (src/retry.ts).
 * If it fails too, the original error goes on as a network error. Outside a browser there is no CORS, and the layer
 * passes everything through.
 */
export function corsLayer(timers: Timers, origin: () => string | undefined = pageOrigin): TransportLayer {
  return (next: Fetch) => async (request) => {
    const requestedAt = timers.now();
    try {
      return await next(request);
    } catch (error) {
      const page = origin();
      const signal = signalOf(request);
      if (page === undefined || signal?.aborted || !(error instanceof TypeError)) throw error;
      if (new URL(request.url).origin === page || request.mode !== 'cors') throw error;
      try {
        await next(
          new Request(request.url, {
            method: 'HEAD',
            mode: 'no-cors',
            credentials: 'omit',
            cache: 'no-store',
            ...(signal ? { signal } : {}),
          }),
        );
      } catch {
        throw error;
      }
      throw new CorsError({
        method: request.method,
        url: request.url,
        requestedAt: new Date(requestedAt),
        cause: error,
        origin: page,
      });
    }
  };
}
