import type { StopReason } from '../report/exit-codes.js';

/** What ended the run early, and why the first request the budget or the quota left unsent was left. */
export interface RunOutcome {
  fatal?: { reason: StopReason; message: string };
  /** Why the first request the budget or the quota left unsent was left: exit 3 if no case ran at all. */
  budgetSkipped?: string;
}
