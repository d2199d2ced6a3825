// The exit codes of `cls-contract`, one place for the code, --help (options.ts) and the README's table
// (test/exit-codes.test.ts holds the README to this list).

export type ExitCode = 0 | 1 | 2 | 3;

/** Why a run stopped before its verdict: each has its exit code. */
export type StopReason = 'usage' | 'credentials' | 'unreachable' | 'budget';

export const EXIT_CODES: ReadonlyArray<{ code: ExitCode; meaning: string }> = [
  { code: 0, meaning: 'every case passed (skipped cases and provisional departures allowed)' },
  { code: 1, meaning: 'contract failures (with --strict-provisional, also provisional departures)' },
  {
    code: 2,
    meaning:
      'usage or credentials: a bad option, no credential at all (without --no-credentials), a malformed key or client credentials, credentials of different environments, credentials the server refuses (401/403), a wrong base URL (one ending in a version segment, or answering 404 to every pre-check)',
  },
  {
    code: 3,
    meaning:
      'the server could not be reached (or the connection was lost), or the budget ran out before the first case (with --preflight: the run would not fit the test-key quota left)',
  },
];

export const EXIT_CODE_OF_STOP: Readonly<Record<StopReason, ExitCode>> = {
  usage: 2,
  credentials: 2,
  unreachable: 3,
  budget: 3,
};
