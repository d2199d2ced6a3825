// The kit's only way to the server. It keeps the kit a good citizen: it paces requests under the gateway limit of
// `info.x-limits`, backs off exponentially on a gateway 429, counts every call, honours the request budget and the
// quota budget, and stops before a test key's monthly quota would run out (the case is skipped, not failed). Every
// request, retries, probes and preflights included, is admitted in `sendRaw` before it is sent, so the budgets are
// hard caps whatever the caller (a burst of concurrent probes too).
import type { Contract } from '../contract/contract.js';
import type { Credential, Redactor, Seller } from '../plan/credentials.js';
import { CurlLines } from './http/curl.js';
import {
  BudgetSkip,
  ConnectionError,
  Skip,
  type Exchange,
  type HttpRequest,
  type HttpResponse,
} from './http/exchange.js';
import { Pacing } from './http/pacing.js';
import { QuotaBudget, type QuotaPool, type QuotaUse } from './http/quota-budget.js';

export {
  BudgetSkip,
  ConnectionError,
  Skip,
  type Exchange,
  type HttpRequest,
  type HttpResponse,
} from './http/exchange.js';
export type { QuotaUse } from './http/quota-budget.js';

/** The encodings Node's fetch decodes. */
const ACCEPT_ENCODING = 'gzip, deflate, br';

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

/** Errors of a connection the server closed under a request (undici's codes). */
const CONNECTION_CLOSED = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);
/** Errors that say nothing listens at the address: the base URL, not the server's contract, is what to check. */
const NO_SERVER = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

export class Transport {
  readonly options: TransportOptions;
  gatewayRetries = 0;
  private readonly budget: QuotaBudget;
  private readonly pacing: Pacing;
  private readonly curlLines: CurlLines;

  constructor(options: TransportOptions) {
    this.options = options;
    this.budget = new QuotaBudget(options);
    this.pacing = new Pacing(options);
    this.curlLines = new CurlLines(options);
  }

  /** Every request sent, retries included. */
  get sent(): number {
    return this.budget.sent;
  }

  /** Requests made with a key whose environment has a monthly quota. */
  get metered(): number {
    return this.budget.metered;
  }

  quotaSummary(): Record<string, QuotaUse> {
    return this.budget.quotaSummary();
  }

  /** One seller's quota as the run has seen it so far (the pre-flight reads what is left). */
  quota(seller: Seller): QuotaPool {
    return this.budget.quota(seller);
  }

  /** Calls spent of every seller's quota together, by the service's count where it showed it. */
  charged(): number {
    return this.budget.charged();
  }

  /** Calls of the quota budget (`--max-quota`) left to the seller that spent most; Infinity without one. */
  quotaLeft(): number {
    return this.budget.quotaLeft();
  }

  /** Requests the budget (`--max-requests`) still allows; Infinity without one. */
  requestsLeft(): number {
    return this.budget.requestsLeft();
  }

  /** Throws Skip when the budget or the quota reserve would be crossed by one more request. */
  guard(credential: Credential, unmetered = false): void {
    this.budget.guard(credential, unmetered);
  }

  url(req: HttpRequest): string {
    const base = this.options.baseUrl.replace(/\/+$/, '');
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) params.append(k, String(v));
    const qs = params.toString();
    return `${base}${req.path}${qs ? `?${qs}` : ''}`;
  }

  /** Sends once, with no pacing, retry or budget: for the rate-limit probes, which must burst. */
  async sendRaw(req: HttpRequest, attempt = 1, resent = false): Promise<Exchange> {
    // Admitted and counted before the first await: concurrent calls (a probe burst) each see the others' count.
    this.budget.admit(req.credential, req.unmetered === true);
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
    this.budget.observe(cred, response, req.unmetered === true);
    return exchange;
  }

  /**
   * Sends a request the polite way: paced, within budget and quota, retried with exponential backoff while the
   * gateway answers 429 without Retry-After. Every response (retries too) is handed to `onExchange`.
   */
  async send(req: HttpRequest, onExchange?: (exchange: Exchange) => void, deliberate = false): Promise<Exchange> {
    for (let attempt = 1; ; attempt++) {
      this.guard(req.credential, req.unmetered === true);
      await this.pacing.pace(req.path);
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
    return this.pacing.backoff(attempt);
  }

  /** A curl command that replays the request, secrets shown as environment variable references. */
  curl(exchange: Exchange): string {
    return this.curlLines.curl(exchange);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
