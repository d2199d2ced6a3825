// The kit's only way to the server. It keeps the kit a good citizen: it paces requests under the gateway limit of
// `info.x-limits`, backs off exponentially on a gateway 429, counts every call, honours the request budget and the
// quota budget, and stops before a test key's monthly quota would run out (the case is skipped, not failed). Every
// request, retries, probes and preflights included, is admitted in `sendRaw` before it is sent, so the budgets are
// hard caps whatever the caller (a burst of concurrent probes too).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPacer, type Pacer } from '@cls-api/client';
import type { Contract } from '../contract/contract.js';
import type { Redactor, Credential, Seller } from '../plan/credentials.js';

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

/** The encodings Node's fetch decodes. */
const ACCEPT_ENCODING = 'gzip, deflate, br';

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

export interface TransportOptions {
  baseUrl: string;
  contract: Contract;
  redactor: Redactor;
  /** Stop (skip) once this many requests were sent. */
  maxRequests?: number;
  /** Spend at most this many calls of each seller's test-key monthly quota (`--max-quota`). */
  maxQuota?: number;
  /** Calls of a test key's monthly quota left untouched; the kit stops before `X-RateLimit-Remaining` reaches it. */
  quotaReserve: number;
  /**
   * Fraction of each gateway rate the kit paces itself to, one request at a time (no burst), at most 1; 0 turns
   * pacing off (the kit's own tests).
   */
  paceFraction: number;
  /** First backoff wait after a gateway 429, doubled per retry up to `backoffMaxMs`, with ±20 % jitter. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  maxRetries: number;
  timeoutMs: number;
  /** Where request bodies too long for a console line are written for their curl reproduction. */
  artifactsDir?: string;
  /** Called for every response, retries included, so that every response is checked. */
  onExchange?: (exchange: Exchange) => void;
  random?: () => number;
  /**
   * Read X-RateLimit-Remaining and quota 429s to protect the quota (default true). Off against a mock, whose
   * headers are examples, not a real allowance.
   */
  trackQuota?: boolean;
}

interface QuotaPool {
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

/** Errors of a connection the server closed under a request (undici's codes). */
const CONNECTION_CLOSED = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);
/** Errors that say nothing listens at the address: the base URL, not the server's contract, is what to check. */
const NO_SERVER = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export class Transport {
  readonly options: TransportOptions;
  /** The client's pacer (`@cls-api/client`), on the contract's gateway limits; none when pacing is off. */
  private readonly pacer: Pacer | undefined;
  /** Every request sent, retries included. */
  sent = 0;
  /** Requests made with a key whose environment has a monthly quota. */
  metered = 0;
  gatewayRetries = 0;
  private readonly pools = new Map<Seller, QuotaPool>();
  private artifactCount = 0;

  constructor(options: TransportOptions) {
    this.options = options;
    const fraction = Math.min(1, options.paceFraction);
    this.pacer =
      fraction > 0
        ? createPacer({ buckets: options.contract.limits.gateway, margin: 1 - fraction, maxBurst: 1 })
        : undefined;
  }

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

  private meteredBy(credential: Credential): Seller | undefined {
    if (credential.kind !== 'apiKey') return undefined;
    const limit = this.options.contract.limits.monthlyQuota.get(credential.env);
    return typeof limit === 'number' ? credential.seller : undefined;
  }

  /** Throws Skip when the budget or the quota reserve would be crossed by one more request. */
  guard(credential: Credential): void {
    const { maxRequests, maxQuota, quotaReserve } = this.options;
    if (maxRequests !== undefined && this.sent >= maxRequests) {
      throw new BudgetSkip(`the request budget is spent (--max-requests ${maxRequests})`);
    }
    const seller = this.meteredBy(credential);
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

  url(req: HttpRequest): string {
    const base = this.options.baseUrl.replace(/\/+$/, '');
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) params.append(k, String(v));
    const qs = params.toString();
    return `${base}${req.path}${qs ? `?${qs}` : ''}`;
  }

  private async pace(path: string): Promise<void> {
    await this.pacer?.acquire(path);
  }

  /** Sends once, with no pacing, retry or budget: for the rate-limit probes, which must burst. */
  async sendRaw(req: HttpRequest, attempt = 1, resent = false): Promise<Exchange> {
    // Admitted and counted before the first await: concurrent calls (a probe burst) each see the others' count.
    this.admit(req.credential);
    const url = this.url(req);
    // Every encoding fetch decodes is asked for, so that a server's compression is exercised, not avoided.
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'Accept-Encoding': ACCEPT_ENCODING,
      ...(req.headers ?? {}),
    };
    const cred = req.credential;
    if (cred.kind === 'apiKey') headers['X-API-Key'] = cred.key;
    else if (cred.kind === 'bearer') headers.Authorization = `Bearer ${cred.token}`;
    else if (cred.kind === 'raw') Object.assign(headers, cred.headers);
    let bodyText: string | undefined;
    if (req.rawBody !== undefined) bodyText = req.rawBody;
    else if (req.body !== undefined) bodyText = JSON.stringify(req.body);
    if (bodyText !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = 'application/json';
    }
    const started = Date.now();
    let res: Response;
    let text: string;
    try {
      const init: RequestInit = {
        method: req.method.toUpperCase(),
        headers,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      };
      if (bodyText !== undefined) init.body = bodyText;
      res = await fetch(url, init);
      text = await res.text();
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? (err as Error).message;
      // A server may close an idle kept-alive connection just as a request goes out on it (its own connection cap
      // or idle timeout): a GET changes nothing, so it is sent once more, on a new connection, and counted again.
      // Anything that might have written is never resent; a server that resets every connection still fails.
      if (!resent && req.method.toLowerCase() === 'get' && CONNECTION_CLOSED.has(cause?.code ?? '')) {
        return this.sendRaw(req, attempt, true);
      }
      const hint = NO_SERVER.has(cause?.code ?? '')
        ? ` (no server answers at ${this.options.baseUrl}: check CLS_BASE_URL or --base-url, and that the server is running)`
        : '';
      throw new ConnectionError(`${req.method.toUpperCase()} ${url}: ${detail}${hint}`);
    }
    const responseHeaders: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      responseHeaders[name.toLowerCase()] = value;
    });
    const response: HttpResponse = { status: res.status, headers: responseHeaders, text };
    try {
      response.json = text === '' ? undefined : JSON.parse(text);
      if (text === '') response.jsonError = 'the body is empty';
    } catch (err) {
      response.jsonError = (err as Error).message;
    }
    const exchange: Exchange = {
      request: { ...req, url, ...(bodyText !== undefined ? { bodyText } : {}) },
      response,
      ms: Date.now() - started,
      attempt,
    };
    this.observeQuota(cred, response);
    return exchange;
  }

  /** The one gate of every request: within the budgets, then counted as sent. */
  private admit(credential: Credential): void {
    this.guard(credential);
    this.sent += 1;
    const seller = this.meteredBy(credential);
    if (seller) {
      this.metered += 1;
      this.quota(seller).sent += 1;
    }
  }

  private observeQuota(cred: Credential, response: HttpResponse): void {
    const seller = this.meteredBy(cred);
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

  /**
   * Sends a request the polite way: paced, within budget and quota, retried with exponential backoff while the
   * gateway answers 429 without Retry-After. Every response (retries too) is handed to `onExchange`.
   */
  async send(req: HttpRequest, onExchange?: (exchange: Exchange) => void, deliberate = false): Promise<Exchange> {
    for (let attempt = 1; ; attempt++) {
      this.guard(req.credential);
      await this.pace(req.path);
      const exchange = await this.sendRaw(req, attempt);
      (onExchange ?? this.options.onExchange)?.(exchange);
      // A status the request asked for (a mock's Prefer) is the answer itself, never a reason to back off.
      if (deliberate) return exchange;
      const { status, headers } = exchange.response;
      if (status === 429 && headers[this.options.contract.quotaHeaders.retryAfter] !== undefined) {
        throw new BudgetSkip(
          'the server answered with the monthly-quota 429 (Retry-After present): the test key is used up',
        );
      }
      if (status !== 429) return exchange;
      if (attempt > this.options.maxRetries) {
        throw new Skip(`the gateway still answered 429 after ${this.options.maxRetries} retries with backoff`);
      }
      this.gatewayRetries += 1;
      await sleep(this.backoff(attempt));
    }
  }

  /** 1, 2, 4, 8 … times the base, at most the cap, with about 20 % jitter either way. */
  backoff(attempt: number): number {
    const { backoffBaseMs, backoffMaxMs } = this.options;
    const wait = Math.min(backoffMaxMs, backoffBaseMs * 2 ** (attempt - 1));
    const jitter = ((this.options.random ?? Math.random)() * 2 - 1) * 0.2 * wait;
    return Math.max(0, Math.round(wait + jitter));
  }

  /** A curl command that replays the request, secrets shown as environment variable references. */
  curl(exchange: Exchange): string {
    const r = this.options.redactor;
    const req = exchange.request;
    const parts = [`curl -sS -i -X ${req.method.toUpperCase()} ${shellQuote(r.redact(req.url))}`];
    const cred = req.credential;
    if (cred.kind === 'apiKey') parts.push(`-H "X-API-Key: $${cred.ref}"`);
    else if (cred.kind === 'bearer') parts.push(`-H "Authorization: Bearer $${cred.ref}"`);
    else if (cred.kind === 'raw') {
      for (const [k, v] of Object.entries(cred.headers)) parts.push(`-H ${shellQuote(`${k}: ${r.redact(v)}`)}`);
    }
    for (const [k, v] of Object.entries(req.headers ?? {})) parts.push(`-H ${shellQuote(`${k}: ${r.redact(v)}`)}`);
    if (req.bodyText !== undefined) {
      if (!Object.keys(req.headers ?? {}).some((h) => h.toLowerCase() === 'content-type')) {
        parts.push(`-H 'Content-Type: application/json'`);
      }
      const body = r.redact(req.bodyText);
      if (body.length > 2000 && this.options.artifactsDir) {
        mkdirSync(this.options.artifactsDir, { recursive: true });
        this.artifactCount += 1;
        const file = join(this.options.artifactsDir, `request-body-${this.artifactCount}.json`);
        writeFileSync(file, body);
        parts.push(`--data-binary @${shellQuote(file)}`);
      } else if (/\$CLS_[A-Z0-9_]+/.test(body)) {
        parts.push(`--data-raw ${doubleQuoteWithRefs(body)}`);
      } else {
        parts.push(`--data-raw ${shellQuote(body)}`);
      }
    }
    return parts.join(' ');
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function shellQuote(s: string): string {
  if (/^[A-Za-z0-9_\-./:=@%+,]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Double-quoted so that `$CLS_…` references expand; every other shell-special character is escaped. */
function doubleQuoteWithRefs(s: string): string {
  const escaped = s.replace(/[\\"`]/g, (c) => `\\${c}`).replace(/\$(?!CLS_[A-Z0-9_]+)/g, '\\$');
  return `"${escaped}"`;
}
