import { CorsError, isIdempotent } from './errors.js';
import { isGateway429 } from './quota.js';
import { hasBody, signalOf } from './request.js';
import type { Timers } from './timers.js';
import { setAttemptNumber, type TransportLayer } from './transport.js';

export interface RetryOptions {
  /** Tries per request, the first included. Default 5 (waits of about 1, 2, 4 and 8 s). 1 turns retrying off. */
  maxTries?: number;
  /** The first wait. Default 1,000 ms; each later wait doubles (the source: 1, 2, 4, 8, 16 … s). */
  baseDelayMs?: number;
  /** No wait is longer than this, jitter included. Default 60,000 ms (the source's cap). */
  maxDelayMs?: number;
  /** Random spread of each wait, as a fraction: 0.2 (the default) waits between 80% and 120% of the step. */
  jitter?: number;
  /**
   * Whether a write (POST, PATCH…) refused by the gateway speed limit (429 without `Retry-After`) is sent again.
   * Default true: the gateway refuses the request before it reaches the service, so nothing was written, and the
   * source recommends retrying that 429 with backoff. A write is never repeated after a 5xx or a network error.
   */
  retryWritesOnGatewayLimit?: boolean;
  /** Source of randomness for the jitter, in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Called before each wait. */
  onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  method: string;
  url: string;
  /** The attempt that failed, 1-based. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  reason: 'gateway_limit' | 'network_error';
}

export interface ResolvedRetry {
  maxTries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  jitter: number;
  retryWritesOnGatewayLimit: boolean;
  random: () => number;
  onRetry: ((event: RetryEvent) => void) | undefined;
}

export function resolveRetry(options: RetryOptions | false | undefined): ResolvedRetry {
  const o = options === false ? { maxTries: 1 } : (options ?? {});
  const resolved: ResolvedRetry = {
    maxTries: o.maxTries ?? 5,
    baseDelayMs: o.baseDelayMs ?? 1_000,
    maxDelayMs: o.maxDelayMs ?? 60_000,
    jitter: o.jitter ?? 0.2,
    retryWritesOnGatewayLimit: o.retryWritesOnGatewayLimit ?? true,
    random: o.random ?? Math.random,
    onRetry: o.onRetry,
  };
  if (!Number.isInteger(resolved.maxTries) || resolved.maxTries < 1) {
    throw new TypeError(`retry.maxTries must be an integer of at least 1, got ${resolved.maxTries}`);
  }
  if (!(resolved.baseDelayMs >= 0) || !(resolved.maxDelayMs >= resolved.baseDelayMs)) {
    throw new TypeError('retry delays must satisfy 0 <= baseDelayMs <= maxDelayMs');
  }
  if (!(resolved.jitter >= 0 && resolved.jitter < 1)) {
    throw new TypeError(`retry.jitter must be in [0, 1), got ${resolved.jitter}`);
  }
  return resolved;
}

/**
 * The wait before retry number `retry` (1 for the first retry): `baseDelayMs * 2^(retry-1)`, capped at
 * `maxDelayMs`, spread by ±`jitter`, and never above `maxDelayMs`.
 */
export function backoffDelay(
  retry: number,
  options: Pick<ResolvedRetry, 'baseDelayMs' | 'maxDelayMs' | 'jitter' | 'random'>,
): number {
  const step = Math.min(options.baseDelayMs * 2 ** (retry - 1), options.maxDelayMs);
  const spread = 1 + options.jitter * (2 * options.random() - 1);
  return Math.min(options.maxDelayMs, Math.round(step * spread));
}

/**
 * Retries what cannot have written anything: a GET or HEAD after a gateway 429 or a network error, and (unless
 * turned off) a write refused by the gateway 429. The quota 429 (with `Retry-After`), every 5xx, a write that
 * failed on the network and a browser's CORS refusal (`CorsError`) are returned or thrown as they are. Each attempt sends a fresh clone of the request, so the
 * body is the same every time.
 */
export function retryLayer(options: ResolvedRetry, timers: Timers): TransportLayer {
  return (next) => async (request) => {
    const idempotent = isIdempotent(request.method);
    const signal = signalOf(request);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= options.maxTries;
      // A body can be read once, so an attempt that may be followed by another sends a clone and the original
      // stays unread; a request without a body (every GET) can be sent again as it is, and cloning it would only
      // cost time on every call.
      const sending = last || !hasBody(request) ? request : request.clone();
      let reason: RetryEvent['reason'];
      try {
        const response = await next(sending);
        setAttemptNumber(response, attempt);
        if (last || !isGateway429(response) || !(idempotent || options.retryWritesOnGatewayLimit)) return response;
        // The body of the refused attempt is not needed; release the connection.
        await response.body?.cancel().catch(() => undefined);
        reason = 'gateway_limit';
      } catch (error) {
        // A CORS refusal is the service's configuration, not a passing failure: no retry can get through.
        if (last || !idempotent || signal?.aborted || error instanceof CorsError) throw error;
        reason = 'network_error';
      }
      const delayMs = backoffDelay(attempt, options);
      options.onRetry?.({ method: request.method, url: request.url, attempt, delayMs, reason });
      await timers.sleep(delayMs, signal);
    }
  };
}
