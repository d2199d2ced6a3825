// What follows the last case: the records the kit created removed, the service's count of the quota judged, the
// access token kept for the next run, and a run that judged nothing told from a pass.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CaseResult, CheckTally, RunEnv } from './case.js';
import { BudgetSkip, ConnectionError, Skip, type Transport } from './http.js';
import { SandboxAnswerError, type SandboxSession } from './sandbox.js';
import type { RunOptions } from '../plan/run-options.js';
import type { RunOutcome } from './outcome.js';

export async function finishRun(
  env: RunEnv,
  options: RunOptions,
  outcome: RunOutcome,
  results: CaseResult[],
): Promise<void> {
  const { transport } = env;
  // What the contract lets the kit remove of what it created (records.ts), unless the server is gone.
  if (outcome.fatal?.reason !== 'unreachable') {
    await env.records.cleanUp(transport, (op, values) => fillPath(op.path, values));
    // What the contract cannot remove (products, orders, …), a server with the sandbox's helpers can: each seller
    // whose records are left gets a reset of its account's test data.
    if (env.records.sellersWithRecordsLeft().length > 0) {
      const sandbox = await env.sandbox?.session();
      if (sandbox) await resetLeftRecords(env, sandbox);
    }
  }
  results.push(...quotaCountResults(transport, env.tally));
  // The run's access token, for the next run's expired-token case (CLS_EXPIRED_TOKEN): by then it is past its life.
  if (options.saveToken && env.bearer && !env.examplesOnly) {
    mkdirSync(dirname(options.saveToken), { recursive: true });
    writeFileSync(options.saveToken, `${env.bearer.token}\n`, { mode: 0o600 });
  }
  // Nothing was judged: the budget or the quota was spent before any case could run (exit 3), not a pass.
  if (!outcome.fatal && outcome.budgetSkipped && results.every((r) => r.status === 'skipped')) {
    outcome.fatal = {
      reason: 'budget',
      message: `the budget ran out before the first case: ${outcome.budgetSkipped}`,
    };
  }
}

/**
 * The service's own count of the quota held to the kit's: a service that counts more calls than the kit sent over
 * the same span (every call twice, a refused call and its retry) spends the partner's month for nothing. Judged only
 * when the service showed its count (X-RateLimit-Remaining on two metered answers or more).
 */
function quotaCountResults(transport: Transport, tally: Map<string, CheckTally>): CaseResult[] {
  const out: CaseResult[] = [];
  for (const [seller, q] of Object.entries(transport.quotaSummary())) {
    if (!q.service || q.kitCountedInSpan === 0) continue;
    const t = tally.get('quota_counted') ?? { evaluated: 0, failed: 0, departed: 0 };
    tally.set('quota_counted', t);
    t.evaluated += 1;
    if (!q.overcounted) continue;
    t.failed += 1;
    out.push({
      id: `quota/${seller}_service_count`,
      phase: 'workflows',
      title: `The service counts no more of the ${seller} seller's quota than the kit sent`,
      operations: [],
      status: 'failed',
      failures: [
        {
          check: 'quota_counted',
          operation: 'X-RateLimit-Remaining',
          expected: `at most ${q.kitCountedInSpan} calls counted (the test-key calls the kit sent after the first metered answer)`,
          seen: `X-RateLimit-Remaining ${q.service.before} → ${q.service.after}: ${q.service.used} counted, ${q.service.used - q.kitCountedInSpan} more than were sent (nothing else used this account's test keys meanwhile?)`,
        },
      ],
      departures: [],
      notes: [],
      requests: 0,
      metered: 0,
      charged: 0,
      ms: 0,
    });
  }
  return out;
}

async function resetLeftRecords(env: RunEnv, sandbox: SandboxSession): Promise<void> {
  const op = sandbox.document.operation('reset');
  for (const seller of env.records.sellersWithRecordsLeft()) {
    try {
      const data = await sandbox.data<{ removed: Record<string, number> }>('reset', seller, {});
      env.records.resetBy(seller, `${op.method.toUpperCase()} ${op.path}`);
      sandbox.resets.push({ seller, removed: data.removed });
    } catch (err) {
      if (
        err instanceof SandboxAnswerError ||
        err instanceof BudgetSkip ||
        err instanceof Skip ||
        err instanceof ConnectionError
      )
        sandbox.resets.push({ seller, error: err.message });
      else throw err;
    }
  }
}

function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}
