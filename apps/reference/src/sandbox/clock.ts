// The test clock of an account's test data (spec/sandbox/openapi.yaml, /sandbox/clock): the service time that the
// account's test records see, kept in the database and read on every request, so that a clock set through one
// instance is what every instance on the database reads next. Live data, the monthly quota's month and a JWT's
// expiry never read it: they stay on real time.
import { type EpochSeconds, pastLastTimeMessage, ServiceTime } from '@cls-api/spec';
import type { Owner } from '../environment.js';
import { ApiError } from '../errors.js';
import type { Credential } from '../request.js';
import type { DomainStore, SandboxClockRecord } from '../store/interface.js';

/** The clock as `SandboxClock` of the sandbox document states it. */
export interface ClockView {
  now: string;
  real_now: string;
  offset_seconds: number;
  frozen: boolean;
}

/** Where `PUT /sandbox/clock` moves the clock (`SandboxClockSet`, validated against the document before). */
export interface ClockChange {
  /** A service time, `YYYY-MM-DD HH:MM:SS`. */
  at?: string;
  advance_seconds?: number;
  frozen?: boolean;
}

/**
 * The clock's time now. A running clock stops at `lastMs`: set a few seconds before the end, it ran on into the year
 * 10000 and wrote times and numbers (`DRF-100000101-0001`) outside the contract.
 */
function reading(clock: SandboxClockRecord | undefined, real: Date, lastMs: number): Date {
  if (!clock) return real;
  return new Date(clock.frozen_at_ms ?? Math.min(real.getTime() + clock.offset_ms, lastMs));
}

/** The account whose test clock a credential's requests see: a test credential's; none for live or public ones. */
export function clockedAccount(credential: Credential | undefined): string | undefined {
  return credential && credential.kind !== 'public' && credential.environment === 'test'
    ? credential.accountId
    : undefined;
}

export class SandboxClocks {
  /** The last millisecond of `lastTime`, service time. */
  private readonly lastMs: number;

  /**
   * `lastTime` is the last time the clock shows (`sandboxClockLastTime` of the sandbox document): the latest time
   * derived from the clock's is a day ahead of it at most (a return's `cancellable_until`, the next 18:00), and
   * DateTime has four-digit years.
   */
  constructor(
    private readonly store: DomainStore,
    private readonly time: ServiceTime,
    private readonly lastTime: string,
  ) {
    this.lastMs = this.instantOf(lastTime) + 999;
  }

  /**
   * The service time a request's records see: the account's test clock for a credential of the test environment,
   * real time for everything else.
   */
  async serviceNow(credential: Credential | undefined, real: Date): Promise<Date> {
    const accountId = clockedAccount(credential);
    return accountId === undefined ? real : reading(await this.store.findSandboxClock(accountId), real, this.lastMs);
  }

  /** The service time an owner's records see: the account's test clock for test data, real time for live data. */
  async ownerNow(owner: Owner, real: Date): Promise<Date> {
    return owner.environment === 'test'
      ? reading(await this.store.findSandboxClock(owner.accountId), real, this.lastMs)
      : real;
  }

  async read(accountId: string, real: Date): Promise<ClockView> {
    return this.view(await this.store.findSandboxClock(accountId), real);
  }

  /**
   * Moves the clock to `at` or by `advance_seconds` from where it stands, running or frozen as asked (as it was when
   * not asked). The read and the write are one transaction, so two changes at once each start from a clock the other
   * left whole.
   */
  async set(accountId: string, change: ClockChange, real: Date): Promise<ClockView> {
    const next = await this.store.transaction(async (tx) => {
      const current = await tx.findSandboxClock(accountId);
      const target =
        change.at !== undefined
          ? this.instantOf(change.at)
          : reading(current, real, this.lastMs).getTime() + (change.advance_seconds ?? 0) * 1000;
      if (target > this.lastMs)
        throw new ApiError(
          'INVALID_PARAMETER',
          pastLastTimeMessage(this.lastTime, change.at !== undefined ? 'at' : 'advance_seconds'),
        );
      const frozen = change.frozen ?? (current?.frozen_at_ms !== undefined && current.frozen_at_ms !== null);
      const record: SandboxClockRecord = {
        offset_ms: target - real.getTime(),
        frozen_at_ms: frozen ? target : null,
      };
      await tx.setSandboxClock(accountId, record);
      return record;
    });
    return this.view(next, real);
  }

  /** Back on real time, running. */
  async reset(accountId: string, real: Date): Promise<ClockView> {
    await this.store.transaction((tx) => tx.setSandboxClock(accountId, null));
    return this.view(undefined, real);
  }

  private instantOf(text: string): number {
    const at: EpochSeconds | undefined = this.time.parseDateTime(text);
    // The document's DateTime pattern admits only times that exist, and the body was validated against it.
    if (at === undefined) throw new Error(`${text} passed validation but is no time`);
    return at * 1000;
  }

  private view(clock: SandboxClockRecord | undefined, real: Date): ClockView {
    const now = reading(clock, real, this.lastMs);
    const nowSeconds = ServiceTime.seconds(now);
    const realSeconds = ServiceTime.seconds(real);
    return {
      now: this.time.format(nowSeconds),
      real_now: this.time.format(realSeconds),
      offset_seconds: nowSeconds - realSeconds,
      frozen: clock?.frozen_at_ms !== undefined && clock.frozen_at_ms !== null,
    };
  }
}
