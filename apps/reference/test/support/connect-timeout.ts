/**
 * How long a test's PostgreSQL connection may take to open: as long as the test's own limit. On a machine busy with
 * other suites, opening one took over the server's 10 s default (DB_CONNECT_TIMEOUT_MS) in CI; the test's limit is
 * the safety net, not a guess at the machine's speed. A module of its own, without vitest's: test/global-setup.ts
 * reads it too.
 */
export const TEST_CONNECT_TIMEOUT_MS = 600_000;
