import { quotaHeaders } from '../generated/contract.js';
import { realTimers, type Timers } from './timers.js';
import type { TransportLayer } from './transport.js';

/** The monthly quota as last reported by the service. A field is present only when its header was sent. */
export interface QuotaState {
  /** `X-RateLimit-Limit`: the allowance for the month. */
  limit?: number;
  /** `X-RateLimit-Remaining`: calls left this month. */
  remaining?: number;
  /** `X-RateLimit-Reset`: when the allowance resets (00:00 on the 1st of next month, service time). */
  resetAt?: Date;
  /** When the response carrying these headers arrived. */
  observedAt: Date;
}

/**
 * A header's value as a non-negative integer, or undefined. The service omits a header whose value it does not
 * have and never sends placeholders, so anything that is not a plain integer is treated as absent.
 */
export function integerHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name)?.trim();
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : undefined;
}

export interface QuotaHeaders {
  limit: number | undefined;
  remaining: number | undefined;
  resetAt: Date | undefined;
  retryAfterSeconds: number | undefined;
}

export function readQuotaHeaders(headers: Headers): QuotaHeaders {
  const reset = integerHeader(headers, quotaHeaders.reset);
  return {
    limit: integerHeader(headers, quotaHeaders.limit),
    remaining: integerHeader(headers, quotaHeaders.remaining),
    resetAt: reset === undefined ? undefined : new Date(reset * 1000),
    retryAfterSeconds: integerHeader(headers, quotaHeaders.retryAfter),
  };
}

/**
 * The distinguishing rule of the source (Limits rule 6): a 429 with `Retry-After` is the monthly quota; without
 * it, the gateway speed limit.
 */
export function isQuota429(response: Response): boolean {
  return response.status === 429 && response.headers.has(quotaHeaders.retryAfter);
}

export function isGateway429(response: Response): boolean {
  return response.status === 429 && !response.headers.has(quotaHeaders.retryAfter);
}

/**
 * The monthly quota picture of one account at one base URL: the latest `X-RateLimit-*` answer any client of it saw.
 * The quota is the account's, summed over all its test keys, so one picture is shared by every client of the
 * account (`sharedQuota`), whichever key or area the answer came from.
 */
export class QuotaTracker {
  #state: QuotaState | undefined;

  get state(): QuotaState | undefined {
    return this.#state === undefined ? undefined : { ...this.#state };
  }

  /** Keeps the quota headers of a response, when it carries any; responses without them change nothing. */
  observe(response: Response, now: () => Date): void {
    // Many responses (JWT calls, live keys) carry none of the headers: a look settles it without parsing.
    const { headers } = response;
    if (!headers.has(quotaHeaders.limit) && !headers.has(quotaHeaders.remaining) && !headers.has(quotaHeaders.reset)) {
      return;
    }
    const h = readQuotaHeaders(response.headers);
    if (h.limit === undefined && h.remaining === undefined && h.resetAt === undefined) return;
    const state: QuotaState = { observedAt: now() };
    if (h.limit !== undefined) state.limit = h.limit;
    if (h.remaining !== undefined) state.remaining = h.remaining;
    if (h.resetAt !== undefined) state.resetAt = h.resetAt;
    this.#state = state;
  }
}

/** Observes every response on the wire, retried attempts and token calls included. */
export function quotaLayer(tracker: QuotaTracker, timers: Timers): TransportLayer {
  return (next) => async (request) => {
    const response = await next(request);
    tracker.observe(response, () => new Date(timers.now()));
    return response;
  };
}

// One quota picture per base URL, account and clock: a client on a clock of its own (a test's virtual clock, a
// scheduler's) keeps its own, as it keeps its own pacer (src/pacing.ts).
const sharedQuotas = new WeakMap<Timers, Map<string, QuotaTracker>>();

/** The account `sharedQuota` uses for clients that name none. */
export const defaultAccount = 'default';

/**
 * The quota picture every client of this process shares for `account` at `baseUrl`: created on first use, then
 * updated by whichever of them sees a metered answer.
 */
export function sharedQuota(
  baseUrl: string,
  account: string = defaultAccount,
  timers: Timers = realTimers,
): QuotaTracker {
  let byKey = sharedQuotas.get(timers);
  if (byKey === undefined) {
    byKey = new Map();
    sharedQuotas.set(timers, byKey);
  }
  const key = `${baseUrl.replace(/\/+$/, '')} ${account}`;
  let tracker = byKey.get(key);
  if (tracker === undefined) {
    tracker = new QuotaTracker();
    byKey.set(key, tracker);
  }
  return tracker;
}
