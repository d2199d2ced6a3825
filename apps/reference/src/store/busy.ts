// Waiting for SQLite's write lock without blocking the event loop.
//
// better-sqlite3 is synchronous: SQLite's own busy handler (`busy_timeout`) sleeps inside the call, and while it
// sleeps no other request of this process is served. So the server's connection keeps that wait short
// (`SERVER_BUSY_TIMEOUT_MS`), and a write that still finds the lock held elsewhere (another process on the same
// file, an operator's CLI command, a backup) is tried again on a timer, in between other requests, until it gets
// the lock or the configured wait (`DB_LOCK_TIMEOUT_MS`) is over. Readers never wait: the database runs in WAL mode,
// where a read sees the last committed state while another connection writes.

import { setTimeout as sleep } from 'node:timers/promises';

/**
 * SQLite's busy wait on the server's connection, in milliseconds: long enough to ride out the brief locks of WAL
 * bookkeeping, short enough that no request holds the event loop.
 */
export const SERVER_BUSY_TIMEOUT_MS = 5;

/** Whether `err` is SQLite saying the database is locked by another connection (SQLITE_BUSY and its variants). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/** A write that did not get the database's write lock within the configured wait. Answered as 500 INTERNAL_ERROR. */
export class DatabaseLockedError extends Error {
  constructor(waitedMs: number, options?: { cause?: unknown }) {
    super(`the database stayed locked by another connection for ${waitedMs} ms`, options);
    this.name = 'DatabaseLockedError';
  }
}

const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 100;

/**
 * Runs `attempt` (SQLite work that needs the write lock) and, while it fails with SQLITE_BUSY, runs it
 * again after a growing pause on a timer, for at most `timeoutMs`. Other requests are served during the pauses.
 */
export async function whenUnlocked<T>(attempt: () => T | Promise<T>, timeoutMs: number): Promise<T> {
  const started = performance.now();
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!isBusy(err)) throw err;
      const left = timeoutMs - (performance.now() - started);
      if (left <= 0) throw new DatabaseLockedError(timeoutMs, { cause: err });
      await sleep(Math.min(pause, left));
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
