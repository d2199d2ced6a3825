import type { FastifyInstance } from 'fastify';
import type { OperationInfo, QuotaHeaders } from '@cls-api/spec';
import { ApiError } from '../errors.js';
import fp from 'fastify-plugin';
import { monthKey, startOfNextMonth } from '@cls-api/spec';
import type { KeyEnv, UsageCounters } from '../store/interface.js';
import { DatabaseLockedError, isBusy, whenUnlocked } from '../store/busy.js';

export interface QuotaOptions extends Record<string, unknown> {
  /** The monthly counters: the database's (`AccountStore`) or Redis's (REDIS_URL). */
  counters: UsageCounters;
  timeZone: string;
  testKeyMonthlyQuota: number;
  operations: ReadonlyMap<string, OperationInfo>;
  /** The quota's response headers, as the contract names them (the contract model's). */
  headers: QuotaHeaders;
  /** How long one attempt to write the calls counted during a lock waits for the lock (then it tries again). */
  lockTimeoutMs: number;
  /** LIVE_USAGE_FLUSH_MS: live-key calls are written at most this long after they are counted (0: each at once). */
  liveUsageFlushMs: number;
}

const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** The message of the quota's 429 (and of the sandbox's forced one, which answers as it). */
export const QUOTA_EXHAUSTED_MESSAGE = 'The monthly quota of test API calls is used up.';

declare module 'fastify' {
  interface FastifyInstance {
    usageMeter: UsageMeter;
  }
}

interface Unwritten {
  accountId: string;
  month: string;
  env: KeyEnv;
  calls: number;
}

/**
 * Counts metered calls without waiting for the database's write lock. Normally each call is one atomic statement
 * (`countTestCall`: the increment happens only below the limit), which on PostgreSQL keeps the quota exact across
 * every instance on the database. When another connection holds SQLite's write lock (another process, an
 * operator's command), that statement cannot run, and a read must not wait for it (src/store/busy.ts): the call is
 * then decided on the committed count (WAL readers see it without a lock) plus this process's calls not yet
 * written, and those are written as soon as the lock is free. The quota can then be exceeded only by calls that
 * another process counted during the same lock, never by this process's own. PostgreSQL never reports the lock, so
 * there every call takes the atomic statement.
 *
 * Live-key calls are counted and never refused, so nothing waits on their count: they are gathered in memory and
 * written together, one statement per account and month, once `liveFlushMs` of service time has passed since the
 * first of them (or that long in real time when no later request comes), and on close. A write on every live call
 * was a large share of a GET's CPU (BENCHMARKS.md); an instance killed outright loses at most that window of
 * live-key counts, never a test-key call (README, "Deployment").
 */
export class UsageMeter {
  private readonly unwritten = new Map<string, Unwritten>();
  private writing: Promise<void> | undefined;
  private readonly liveBatch = new Map<string, Unwritten>();
  private liveBatchSinceMs: number | undefined;
  private liveTimer: NodeJS.Timeout | undefined;
  /**
   * Serialises the steps that read or change `unwritten` together with the database (a decision on the committed
   * count plus the unwritten calls; a write of unwritten calls): between the database's answer and the change of
   * `unwritten`, no other step may look at either, or a call would be counted twice or not at all.
   */
  private exclusive: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly counters: UsageCounters,
    private readonly lockTimeoutMs: number,
    private readonly log: FastifyInstance['log'],
    private readonly liveFlushMs = 0,
  ) {}

  private serially<T>(step: () => Promise<T>): Promise<T> {
    const result = this.exclusive.then(step);
    this.exclusive = result.catch(() => undefined);
    return result;
  }

  /** Calls counted but not yet in the database (tests, and the log on close). */
  get pendingCalls(): number {
    let n = 0;
    for (const u of this.unwritten.values()) n += u.calls;
    for (const u of this.liveBatch.values()) n += u.calls;
    return n;
  }

  /** Resolves once the calls counted during a lock are written (or their writing gave up and was logged). */
  settled(): Promise<void> {
    return this.writing ?? Promise.resolve();
  }

  async countTest(accountId: string, month: string, limit: number): Promise<{ allowed: boolean; calls: number }> {
    const key = `${accountId} ${month} test`;
    if (!this.unwritten.has(key)) {
      try {
        return await this.counters.countTestCall(accountId, month, limit);
      } catch (err) {
        if (!isBusy(err)) throw err;
      }
    }
    return this.serially(async () => {
      const calls = (await this.counters.usage(accountId, month, 'test')) + (this.unwritten.get(key)?.calls ?? 0);
      if (calls >= limit) return { allowed: false, calls };
      this.defer(key, { accountId, month, env: 'test', calls: 1 });
      return { allowed: true, calls: calls + 1 };
    });
  }

  /** The test-key calls of the month so far, without counting one (a forced outcome of the sandbox is not metered). */
  async peekTest(accountId: string, month: string): Promise<number> {
    const key = `${accountId} ${month} test`;
    return (await this.counters.usage(accountId, month, 'test')) + (this.unwritten.get(key)?.calls ?? 0);
  }

  /** Gives back a test-key call counted for a request whose answer is not metered: refused, or failed (DECISIONS.md G29). */
  async returnTest(accountId: string, month: string): Promise<void> {
    const key = `${accountId} ${month} test`;
    const unwritten = this.unwritten.get(key);
    if (unwritten && unwritten.calls > 0) {
      unwritten.calls -= 1;
      return;
    }
    await this.counters.returnTestCall(accountId, month);
  }

  async countLive(accountId: string, month: string, nowMs: number): Promise<void> {
    const key = `${accountId} ${month} live`;
    if (this.liveFlushMs > 0) {
      this.gatherLive(key, accountId, month, nowMs);
      return;
    }
    if (!this.unwritten.has(key)) {
      try {
        await this.counters.countLiveCall(accountId, month);
        return;
      } catch (err) {
        if (!isBusy(err)) throw err;
      }
    }
    this.defer(key, { accountId, month, env: 'live', calls: 1 });
  }

  private gatherLive(key: string, accountId: string, month: string, nowMs: number): void {
    const gathered = this.liveBatch.get(key);
    if (gathered) gathered.calls += 1;
    else this.liveBatch.set(key, { accountId, month, env: 'live', calls: 1 });
    this.liveBatchSinceMs ??= nowMs;
    // A clock that went back counts as time passed: the batch must not outlive the window either way.
    if (Math.abs(nowMs - this.liveBatchSinceMs) >= this.liveFlushMs) {
      this.flushLive();
    } else if (!this.liveTimer) {
      this.liveTimer = setTimeout(() => this.flushLive(), this.liveFlushMs);
      this.liveTimer.unref();
    }
  }

  /** Hands the gathered live calls to the writer (the same one that writes calls counted during a lock). */
  flushLive(): void {
    clearTimeout(this.liveTimer);
    this.liveTimer = undefined;
    this.liveBatchSinceMs = undefined;
    const batch = [...this.liveBatch];
    this.liveBatch.clear();
    for (const [key, u] of batch) this.defer(key, u);
  }

  private defer(key: string, call: Unwritten): void {
    const waiting = this.unwritten.get(key);
    if (waiting) waiting.calls += call.calls;
    else this.unwritten.set(key, call);
    this.writing ??= this.writeUnwritten().finally(() => {
      this.writing = undefined;
    });
  }

  private writeOne(key: string, u: Unwritten): Promise<void> {
    return this.serially(async () => {
      // Calls counted while this write runs stay for the next one; a write that ran before this step got its turn
      // may have left nothing to write.
      const calls = u.calls;
      if (calls === 0) {
        if (this.unwritten.get(key) === u) this.unwritten.delete(key);
        return;
      }
      await this.counters.addUsage(u.accountId, u.month, u.env, calls);
      u.calls -= calls;
      if (u.calls === 0) this.unwritten.delete(key);
    });
  }

  private async writeUnwritten(): Promise<void> {
    while (this.unwritten.size > 0) {
      const [key, u] = this.unwritten.entries().next().value as [string, Unwritten];
      try {
        // Each attempt holds the exclusive step only while it runs, never during the pauses between attempts.
        await whenUnlocked(() => this.writeOne(key, u), this.lockTimeoutMs);
      } catch (err) {
        if (!(err instanceof DatabaseLockedError)) {
          this.log.error(
            { err, calls: u.calls, env: u.env },
            'usage counter: the calls counted during a lock could not be written',
          );
          this.unwritten.delete(key);
        } else {
          this.log.warn(
            { calls: this.pendingCalls },
            'usage counter: the database is still locked; the counted calls wait',
          );
        }
      }
    }
  }

  /** On close: one last try; what cannot be written is reported. */
  async close(): Promise<void> {
    this.flushLive();
    for (const [key, u] of [...this.unwritten]) {
      try {
        await this.writeOne(key, u);
      } catch (err) {
        this.log.error(
          { err, calls: u.calls, env: u.env, month: u.month },
          'usage counter: calls counted during a lock were not written before the close',
        );
      }
    }
    this.unwritten.clear();
  }
}

/**
 * The monthly quota. Test keys: one call counted per request that passed authentication, 1,000 a month per
 * account over all its test keys, then 429 with Retry-After. Live keys: counted, never refused. JWT: none.
 * The X-RateLimit-* headers go on a test-key response exactly when the contract declares them on the
 * operation's response of that status (DECISIONS G10), and Retry-After only on the quota's own 429.
 */
export const quota = fp<QuotaOptions>(
  async (app: FastifyInstance, options) => {
    const { counters, timeZone, testKeyMonthlyQuota: limit, operations } = options;
    const { limit: LIMIT, remaining: REMAINING, reset: RESET, retryAfter: RETRY_AFTER } = options.headers;
    const meter = new UsageMeter(counters, options.lockTimeoutMs, app.log, options.liveUsageFlushMs);
    app.decorate('usageMeter', meter);
    app.decorateRequest('quota', undefined);
    app.addHook('onClose', async function writeCountedCalls() {
      await meter.close();
    });

    app.addHook('onRequest', async function countCall(request) {
      const credential = request.credential;
      if (credential?.kind !== 'api_key' || credential.environment === 'live') return;
      const month = monthKey(request.now, timeZone);
      const reset = startOfNextMonth(request.now, timeZone);
      if (request.forcedOutcome) {
        // Answered by the sandbox without being carried out (src/plugins/sandbox.ts): neither counted nor refused,
        // and its quota headers tell the month's count as it stands.
        const calls = await meter.peekTest(credential.accountId, month);
        request.quota = { limit, remaining: Math.max(0, limit - calls), reset, exhausted: false };
        return;
      }
      const counted = await meter.countTest(credential.accountId, month, limit);
      request.quota = {
        limit,
        remaining: Math.max(0, limit - counted.calls),
        reset,
        exhausted: !counted.allowed,
        ...(counted.allowed ? { countedIn: month } : {}),
      };
      if (!counted.allowed) throw new ApiError('RATE_LIMIT_EXCEEDED', QUOTA_EXHAUSTED_MESSAGE);
    });

    // What counts (DECISIONS.md G10, G29): a call whose answer the contract declares subject to the quota, the
    // responses that carry X-RateLimit-Remaining: 2xx and the caller's own mistakes (400, 404, 409). Not a refused
    // credential (401, 403), wherever in the request it is refused (an MCP tool of another area is refused by its
    // handler, after the call was counted), nor a call the service failed to serve (500: its database or Redis
    // failed, a bug). A test-key call is counted before it is served, so the quota stays exact under concurrency, and
    // given back here when its answer is not metered; a live-key call is counted only once it is answered.
    const metered = (operationId: string | undefined, status: number): boolean =>
      operationId !== undefined && REMAINING in (operations.get(operationId)?.responses[String(status)]?.headers ?? {});
    app.addHook('onSend', async function settleCall(request, reply, payload) {
      const credential = request.credential;
      if (credential?.kind !== 'api_key') return payload;
      const charged = metered(request.operation?.operationId, reply.statusCode);
      if (credential.environment === 'live') {
        if (!charged) return payload;
        try {
          await meter.countLive(credential.accountId, monthKey(request.now, timeZone), request.now.getTime());
        } catch (err) {
          // The answer is decided; a live count that cannot be written is logged, not turned into a failure.
          request.log.error({ err }, 'usage counter: a live-key call could not be counted');
        }
        return payload;
      }
      const state = request.quota;
      if (!charged && state?.countedIn !== undefined) {
        const month = state.countedIn;
        delete state.countedIn;
        try {
          await meter.returnTest(credential.accountId, month);
          state.remaining = Math.min(limit, state.remaining + 1);
        } catch (err) {
          request.log.error({ err }, 'usage counter: an unmetered call could not be given back');
        }
      }
      return payload;
    });

    app.addHook('onSend', async function quotaHeaders(request, reply, payload) {
      const state = request.quota;
      const route = request.operation;
      if (!state || !route) return payload;
      const declared = operations.get(route.operationId)?.responses[String(reply.statusCode)]?.headers ?? {};
      if (LIMIT in declared) reply.header(LIMIT, state.limit);
      if (REMAINING in declared) reply.header(REMAINING, state.remaining);
      if (RESET in declared) reply.header(RESET, epochSeconds(state.reset));
      if (state.exhausted && reply.statusCode === 429 && RETRY_AFTER in declared) {
        reply.header(RETRY_AFTER, Math.max(0, Math.ceil((state.reset.getTime() - request.now.getTime()) / 1000)));
      }
      return payload;
    });
  },
  { name: 'quota', fastify: '5.x', dependencies: ['auth'] },
);
