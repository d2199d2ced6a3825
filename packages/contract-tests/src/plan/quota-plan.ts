// The plan of a run under `--max-quota`: a case is started only when the calls it is expected to spend of a test
// key's monthly quota fit in what is left of the budget; the others are left out (skipped with the reason) and
// listed, so that a partner sees which checks the budget cost. The transport (http.ts) still holds the budget as a
// hard cap: a case that spends more than expected is cut there, never let over.
import type { CaseDef, RunEnv } from '../run/case.js';
import { expectedCalls } from './profile.js';
import { BudgetSkip, type Transport } from '../run/http.js';

export class QuotaPlan {
  /** Calls of the quota spent by the cases of each phase run so far, and how many ran: the phase's average. */
  private readonly spentByPhase = new Map<string, { calls: number; cases: number }>();
  readonly leftOut: string[] = [];

  constructor(
    private readonly env: RunEnv,
    private readonly transport: Transport,
  ) {}

  /**
   * Calls the case is expected to spend (profile.ts, expectedCalls: none for a case that needs no test key), or the
   * average of the cases of its phase that ran, when that is more.
   */
  estimate(def: CaseDef): number {
    const expected = expectedCalls(this.env, def);
    if (expected === 0) return 0;
    const seen = this.spentByPhase.get(def.phase);
    const average = seen && seen.cases > 0 ? Math.ceil(seen.calls / seen.cases) : 0;
    return Math.max(expected, average);
  }

  /** Throws the BudgetSkip that leaves the case out when its expected calls do not fit the quota budget left. */
  admit(def: CaseDef): void {
    const left = this.transport.quotaLeft();
    const needed = this.estimate(def);
    if (needed > 0 && needed > left) {
      this.leftOut.push(def.id);
      throw new BudgetSkip(
        `left out by the quota plan: expected to spend ${needed} calls of the test-key quota, ${left} left of the quota budget (${this.transport.options.maxQuota} calls)`,
      );
    }
  }

  record(def: CaseDef, calls: number): void {
    const seen = this.spentByPhase.get(def.phase) ?? { calls: 0, cases: 0 };
    seen.calls += calls;
    seen.cases += 1;
    this.spentByPhase.set(def.phase, seen);
  }
}
