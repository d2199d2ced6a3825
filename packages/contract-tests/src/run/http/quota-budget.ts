// The request budget and each seller's monthly quota, as the kit counts them and as the service shows its own
// count (X-RateLimit-Remaining). Every request is admitted here before it is sent, so both budgets are hard caps.
import type { Contract } from '../../contract/contract.js';
import type { Credential, Seller } from '../../plan/credentials.js';
import { BudgetSkip, type HttpResponse } from './exchange.js';

export interface BudgetOptions {
  contract: Contract;
  /** Stop (skip) once this many requests were sent. */
  maxRequests?: number;
  /** Spend at most this many calls of each seller's test-key monthly quota (`--max-quota`). */
  maxQuota?: number;
  /** Calls of a test key's monthly quota left untouched; the kit stops before `X-RateLimit-Remaining` reaches it. */
  quotaReserve: number;
  /** Read X-RateLimit-Remaining and quota 429s to protect the quota (default true). */
  trackQuota?: boolean;
}

export interface QuotaPool {
  remaining?: number;
  limit?: number;
  exhausted: boolean;
  /** Calls of this seller's quota the kit sent (its own count, counted before sending). */
  sent: number;
  /** X-RateLimit-Remaining of the first and of the last metered response: what the service counted. */
  first?: number;
  last?: number;
  /** `sent` when the first X-RateLimit-Remaining was read: the kit's count over the service's span starts there. */
  sentAtFirst?: number;
  /** `sent` when the last X-RateLimit-Remaining was read: the calls after it the service has not shown its count of. */
  sentAtLast?: number;
  /** Answers 401 or 403 to this seller's metered keys within that span: the service does not meter them (G10). */
  refusedInSpan: number;
}

/** The quota of one seller as the service counted it and as the kit counted it. */
export interface QuotaUse {
  remaining?: number;
  limit?: number;
  exhausted: boolean;
  /** Calls the kit sent with this seller's metered keys. */
  kitSent: number;
  /**
   * Calls of this seller's quota the run spent, by the service's own count where it showed it (spent): what a CI job
   * reports as the run's cost.
   */
  charged: number;
  /**
   * From X-RateLimit-Remaining: `before` of the first metered response, `after` of the last, `used` = before −
   * after, the calls the service counted after the first one.
   */
  service?: { before: number; after: number; used: number };
  /**
   * The kit's own count over the same span: calls it sent with the seller's metered keys after the first metered
   * response. `differs` when it is not the service's `used` (the service leaves refused calls uncounted, or counts
   * calls made elsewhere on the account meanwhile).
   */
  kitCountedInSpan: number;
  /** Of those, the answers 401 or 403, which the service does not count against the quota. */
  refusedInSpan: number;
  /**
   * What the kit's count leaves unexplained: `kitCountedInSpan` − `refusedInSpan` − the service's `used` (0 when the
   * refused answers account for the whole difference). Negative when the service counted more than the kit sent.
   */
  gap: number;
  /** The service counted calls the kit did not send, or left some the kit sent uncounted, beyond the refused ones. */
  differs: boolean;
  /** The service counted more calls than the kit sent over the span: a contract failure (`quota_counted`). */
  overcounted: boolean;
}

export class QuotaBudget {
  /** Every request sent, retries included. */
  sent = 0;
  /** Requests made with a key whose environment has a monthly quota. */
  metered = 0;
  private readonly pools = new Map<Seller, QuotaPool>();

  constructor(private readonly options: BudgetOptions) {}

  quota(seller: Seller): QuotaPool {
    let pool = this.pools.get(seller);
    if (!pool) {
      pool = { exhausted: false, sent: 0, refusedInSpan: 0 };
      this.pools.set(seller, pool);
    }
    return pool;
  }

  quotaSummary(): Record<string, QuotaUse> {
    return Object.fromEntries(
      [...this.pools].map(([seller, p]) => {
        const service =
          p.first !== undefined && p.last !== undefined
            ? { before: p.first, after: p.last, used: p.first - p.last }
            : undefined;
        const inSpan = p.sent - (p.sentAtFirst ?? p.sent);
        // A refused call (401/403) may be metered by a live service (G10 is our design): either count is accepted.
        const gap =
          service === undefined
            ? 0
            : service.used >= inSpan - p.refusedInSpan
              ? Math.min(0, inSpan - service.used)
              : inSpan - p.refusedInSpan - service.used;
        const use: QuotaUse = {
          ...(p.remaining !== undefined ? { remaining: p.remaining } : {}),
          ...(p.limit !== undefined ? { limit: p.limit } : {}),
          exhausted: p.exhausted,
          kitSent: p.sent,
          charged: this.spent(p),
          ...(service ? { service } : {}),
          kitCountedInSpan: inSpan,
          refusedInSpan: p.refusedInSpan,
          gap,
          differs: gap !== 0,
          overcounted: service !== undefined && service.used > inSpan,
        };
        return [seller, use];
      }),
    );
  }

  /**
   * Calls of a seller's quota spent so far, by the service's own count where it has shown it: the kit's count up to
   * the first X-RateLimit-Remaining, the service's count from there to the last one (a refused call the service does
   * not meter is not charged to the budget; one it meters is), and the kit's count of the calls sent since.
   */
  spent(pool: QuotaPool): number {
    if (pool.first === undefined || pool.last === undefined || pool.sentAtFirst === undefined) return pool.sent;
    return pool.sentAtFirst + (pool.first - pool.last) + (pool.sent - (pool.sentAtLast ?? pool.sent));
  }

  /** Calls spent of every seller's quota together, by the service's count where it showed it (spent). */
  charged(): number {
    return [...this.pools.values()].reduce((n, p) => n + this.spent(p), 0);
  }

  /** Calls of the quota budget (`--max-quota`) left to the seller that spent most; Infinity without one. */
  quotaLeft(): number {
    const { maxQuota } = this.options;
    if (maxQuota === undefined) return Number.POSITIVE_INFINITY;
    const spent = Math.max(0, ...[...this.pools.values()].map((p) => this.spent(p)));
    return Math.max(0, maxQuota - spent);
  }

  /** Requests the budget (`--max-requests`) still allows; Infinity without one. */
  requestsLeft(): number {
    const { maxRequests } = this.options;
    return maxRequests === undefined ? Number.POSITIVE_INFINITY : Math.max(0, maxRequests - this.sent);
  }

  private meteredBy(credential: Credential, unmetered = false): Seller | undefined {
    if (credential.kind !== 'apiKey' || unmetered) return undefined;
    const limit = this.options.contract.limits.monthlyQuota.get(credential.env);
    return typeof limit === 'number' ? credential.seller : undefined;
  }

  /** Throws Skip when the budget or the quota reserve would be crossed by one more request. */
  guard(credential: Credential, unmetered = false): void {
    const { maxRequests, maxQuota, quotaReserve } = this.options;
    if (maxRequests !== undefined && this.sent >= maxRequests) {
      throw new BudgetSkip(`the request budget is spent (--max-requests ${maxRequests})`);
    }
    const seller = this.meteredBy(credential, unmetered);
    if (seller) {
      const pool = this.quota(seller);
      if (maxQuota !== undefined && this.spent(pool) >= maxQuota) {
        throw new BudgetSkip(
          `the quota budget is spent: ${this.spent(pool)} calls of the ${seller} seller's quota (--max-quota ${maxQuota})`,
        );
      }
      if (pool.exhausted) throw new BudgetSkip(`the monthly quota of the ${seller} seller's test keys is exhausted`);
      if (pool.remaining !== undefined && pool.remaining <= quotaReserve) {
        throw new BudgetSkip(
          `stopped before the monthly quota runs out: X-RateLimit-Remaining is ${pool.remaining}, the reserve is ${quotaReserve} (--quota-reserve)`,
        );
      }
    }
  }

  /** The one gate of every request: within the budgets, then counted as sent. */
  admit(credential: Credential, unmetered = false): void {
    this.guard(credential, unmetered);
    this.sent += 1;
    const seller = this.meteredBy(credential, unmetered);
    if (seller) {
      this.metered += 1;
      this.quota(seller).sent += 1;
    }
  }

  /** What an answer shows of the seller's quota: the service's count, its limit, and whether it is used up. */
  observe(cred: Credential, response: HttpResponse, unmetered = false): void {
    const seller = this.meteredBy(cred, unmetered);
    if (!seller || this.options.trackQuota === false) return;
    const pool = this.quota(seller);
    const names = this.options.contract.quotaHeaders;
    const remaining = response.headers[names.remaining];
    const limit = response.headers[names.limit];
    if (pool.first !== undefined && (response.status === 401 || response.status === 403)) pool.refusedInSpan += 1;
    if (remaining !== undefined && /^\d+$/.test(remaining)) {
      pool.remaining = Number(remaining);
      if (pool.first === undefined) {
        pool.first = pool.remaining;
        pool.sentAtFirst = pool.sent;
      }
      pool.last = pool.remaining;
      pool.sentAtLast = pool.sent;
    }
    if (limit !== undefined && /^\d+$/.test(limit)) pool.limit = Number(limit);
    if (response.status === 429 && response.headers[names.retryAfter] !== undefined) pool.exhausted = true;
  }
}
