// The reference sandbox's helpers (`client.sandbox`) and the per-request forced outcome (`sandbox: { outcome }`),
// typed from the sandbox's own document (@cls-api/spec/sandbox.json, generated/sandbox.ts), never from the
// contract's: the service has none of them (spec/DECISIONS.md G31).
import type { Client } from 'openapi-fetch';
import { sandboxHeaders } from '../generated/contract.js';
import type { components, paths } from '../generated/sandbox.js';

type Schemas = components['schemas'];

/** An answer `X-Sandbox-Outcome` can force: `internal_error`, `quota_exceeded`, `gateway_throttled`, `bulk_failed`. */
export type SandboxOutcome = components['parameters']['X-Sandbox-Outcome'];
/** The account's test clock: `now` (what its test data sees), `real_now`, `offset_seconds`, `frozen`. */
export type SandboxClock = Schemas['SandboxClock'];
/** What a reset removed and, with a seed, what it loaded. */
export type SandboxReset = Schemas['SandboxReset'];
/** A named data set a reset can load (`demo`). */
export type SandboxSeed = Schemas['SandboxSeed'];
/** The body of a reset: the seed to load after it, if any. */
export type SandboxResetRequest = Schemas['SandboxResetRequest'];
/** A service time, `YYYY-MM-DD HH:mm:ss` in the service's zone. */
type ServiceTime = NonNullable<Schemas['SandboxClockSet']['at']>;

/**
 * The `sandbox` option of a call: the reference sandbox answers the call with this outcome, as the contract
 * declares it for the operation, and writes and counts nothing. `failedRows` (zero-based row indexes) goes with
 * `bulk_failed` only; without it every row fails. Test credentials only: a live one gets 403 `AUTH_FORBIDDEN`, and
 * the service itself does not know the option, so never send it outside tests.
 */
export type SandboxOutcomeOption =
  | { outcome: Exclude<SandboxOutcome, 'bulk_failed'>; failedRows?: never }
  | { outcome: Extract<SandboxOutcome, 'bulk_failed'>; failedRows?: readonly number[] };

/** `client.sandbox.clock`: the account's test clock. */
export interface SandboxClockHelpers {
  /** Reads the clock (`GET /sandbox/clock`). */
  get(): Promise<SandboxClock>;
  /** Sets it to a service time, running on from there or `frozen` (`PUT /sandbox/clock` with `at`). */
  set(to: { at: ServiceTime; frozen?: boolean }): Promise<SandboxClock>;
  /** Moves it forward by `seconds` (at most 366 days), running or `frozen` (`PUT /sandbox/clock` with `advance_seconds`). */
  advance(seconds: number, options?: { frozen?: boolean }): Promise<SandboxClock>;
  /** Puts it back on real time, running (`DELETE /sandbox/clock`). */
  realTime(): Promise<SandboxClock>;
}

/**
 * `client.sandbox`: the reference sandbox's helpers, for test credentials. Each resolves to the answer's `data` and
 * throws `ApiError` on an error answer (403 `AUTH_FORBIDDEN` for a live credential, 404 from a server without them).
 */
export interface SandboxHelpers {
  /** Removes the account's test records and, with `seed`, loads that data set (`POST /sandbox/reset`). */
  reset(request?: SandboxResetRequest): Promise<SandboxReset>;
  readonly clock: SandboxClockHelpers;
}

const outcomes: ReadonlySet<string> = new Set(sandboxHeaders.outcomes);
const failedRowsPattern = new RegExp(sandboxHeaders.failedRowsPattern, 'u');

/**
 * The request headers of a forced outcome. A value the sandbox would refuse (an unknown outcome, rows without
 * `bulk_failed`, a row index that is not a whole number or appears twice) is a TypeError here, before anything is
 * sent.
 */
export function sandboxOutcomeHeaders(option: SandboxOutcomeOption): Record<string, string> {
  if (typeof option !== 'object' || option === null || !outcomes.has(option.outcome)) {
    throw new TypeError(
      `sandbox.outcome must be one of ${[...outcomes].join(', ')}, got ${JSON.stringify((option as { outcome?: unknown })?.outcome)}`,
    );
  }
  const headers: Record<string, string> = { [sandboxHeaders.outcomeHeader]: option.outcome };
  if (option.failedRows === undefined) return headers;
  if (option.outcome !== 'bulk_failed')
    throw new TypeError('sandbox.failedRows goes with the outcome bulk_failed only');
  const rows = option.failedRows;
  const value = Array.isArray(rows) ? rows.join(',') : '';
  if (!failedRowsPattern.test(value) || new Set(rows).size !== rows.length) {
    throw new TypeError(
      `sandbox.failedRows must list zero-based row indexes, each once (at most 999), got ${JSON.stringify(rows)}`,
    );
  }
  headers[sandboxHeaders.failedRowsHeader] = value;
  return headers;
}

/**
 * A call's init with its `sandbox` option turned into the forced-outcome headers; the init itself when it has none.
 * The one property check is all a call without it pays.
 */
export function withSandboxOutcome(init: unknown): unknown {
  if (typeof init !== 'object' || init === null || !('sandbox' in init)) return init;
  const { sandbox, ...rest } = init as { sandbox?: SandboxOutcomeOption; headers?: unknown };
  if (sandbox === undefined) return rest;
  const forced = sandboxOutcomeHeaders(sandbox);
  const headers = new Headers(rest.headers as HeadersInit | undefined);
  for (const [name, value] of Object.entries(forced)) headers.set(name, value);
  return { ...rest, headers };
}

type SandboxClient = Client<paths>;

/** What a helper's call resolved to: the sandbox client throws error answers, so only the data is left. */
function dataOf<T>(result: { data?: { data: T } }): T {
  // The sandbox client is made with throwOnError (client.ts): an error answer never gets here.
  return result.data!.data;
}

export function createSandboxHelpers(client: SandboxClient): SandboxHelpers {
  return {
    reset: async (request) => dataOf(await client.POST('/sandbox/reset', { body: request ?? {} })),
    clock: {
      get: async () => dataOf(await client.GET('/sandbox/clock')),
      set: async (to) => {
        if (typeof to !== 'object' || to === null || typeof to.at !== 'string')
          throw new TypeError('sandbox.clock.set needs { at: "YYYY-MM-DD HH:mm:ss" }');
        const body = to.frozen === undefined ? { at: to.at } : { at: to.at, frozen: to.frozen };
        return dataOf(await client.PUT('/sandbox/clock', { body }));
      },
      advance: async (seconds, options) => {
        if (!Number.isInteger(seconds) || seconds < 1)
          throw new TypeError(`sandbox.clock.advance needs a whole number of seconds above 0, got ${seconds}`);
        const body =
          options?.frozen === undefined
            ? { advance_seconds: seconds }
            : { advance_seconds: seconds, frozen: options.frozen };
        return dataOf(await client.PUT('/sandbox/clock', { body }));
      },
      realTime: async () => dataOf(await client.DELETE('/sandbox/clock')),
    },
  };
}
