// The case's judgements: every response held to every response check and to the rules read across the run, and
// the case's own expectations of a status, a code or a condition, each counted in the tally.
import type { OperationInfo } from '@cls-api/spec';
import { checkResponse } from '../../contract/checks.js';
import type { Contract } from '../../contract/contract.js';
import type { Evidence } from '../../matrix/evidence.js';
import type { Exchange } from '../http.js';
import type { IsolationLedger } from '../isolation.js';
import type { RunObservations } from '../observations.js';
import type { CaseFindings } from './findings.js';

export interface Expectation {
  status: number | number[];
  code?: string | string[];
  /** The check a mismatch is reported under. */
  check?: string;
  why?: string;
  /**
   * The outcome rests on a design only (the input is valid under the relaxed contract, or goes in a provisional
   * parameter): when the server accepts the input instead, that is a departure with this reason, not a failure.
   */
  provisional?: string;
}

/** What of the run a response is judged against: the contract, the run's clock and what it learns across answers. */
export interface AssertionsEnv {
  contract: Contract;
  now: () => number;
  examplesOnly: boolean;
  observations: RunObservations;
  isolation: IsolationLedger;
  evidence: Evidence;
}

/** Statuses that say the server took the input as well-formed: a success, or a documented not-found or duplicate. */
function accepted(status: number): boolean {
  return (status >= 200 && status < 300) || status === 404 || status === 409;
}

export class CaseAssertions {
  constructor(
    private readonly env: AssertionsEnv,
    /** The case the responses are judged for: evidence and observations name it. */
    private readonly caseId: string,
    private readonly findings: CaseFindings,
  ) {}

  /** Called by the transport hook for every response sent on behalf of this case. */
  inspect(op: OperationInfo, exchange: Exchange, deliberate = false): void {
    const { findings: record } = this;
    record.requests += 1;
    const { evaluated, findings } = checkResponse({
      contract: this.env.contract,
      op,
      exchange,
      now: this.env.now(),
      clockRelative: !this.env.examplesOnly,
    });
    for (const across of [
      this.env.observations.observe(op, exchange, this.caseId),
      this.env.isolation.observe(op, exchange),
    ]) {
      evaluated.push(...across.evaluated);
      findings.push(...across.findings);
    }
    this.env.evidence.answered(op, exchange, this.caseId, deliberate);
    for (const name of evaluated) record.tally(name).evaluated += 1;
    for (const f of findings) {
      if (f.provisional) {
        record.depart(f.check, f.expected, f.seen, f.provisional, exchange, op);
        continue;
      }
      record.tally(f.check).failed += 1;
      record.fail(f.check, f.expected, f.seen, exchange, op);
    }
    if (deliberate) return;
    record.tally('no_server_error').evaluated += 1;
    if (exchange.response.status >= 500) {
      record.tally('no_server_error').failed += 1;
      record.fail(
        'no_server_error',
        'no 5xx',
        `HTTP ${exchange.response.status}: ${exchange.response.text.slice(0, 200)}`,
        exchange,
        op,
      );
    }
  }

  /** Records a case-level check result (counted in the summary table). */
  assert(ok: boolean, check: string, expected: string, seen: string, exchange?: Exchange, op?: OperationInfo): boolean {
    const t = this.findings.tally(check);
    t.evaluated += 1;
    if (!ok) {
      t.failed += 1;
      this.findings.fail(check, expected, seen, exchange, op);
    }
    return ok;
  }

  /** Asserts the status (and error code) of a response. */
  expect(exchange: Exchange, op: OperationInfo, want: Expectation): boolean {
    const statuses = Array.isArray(want.status) ? want.status : [want.status];
    const codes = want.code === undefined ? undefined : Array.isArray(want.code) ? want.code : [want.code];
    const { status, json } = exchange.response;
    const code = errorCode(json);
    const statusOk = statuses.includes(status);
    const codeOk = codes === undefined || status < 400 || (code !== undefined && codes.includes(code));
    const expected = `HTTP ${statuses.join(' or ')}${codes ? ` ${codes.join(' or ')}` : ''}${want.why ? ` (${want.why})` : ''}`;
    const seen = `HTTP ${status}${code ? ` ${code}` : ''}`;
    const check = want.check ?? 'expected_outcome';
    if (!(statusOk && codeOk) && want.provisional !== undefined && accepted(status)) {
      this.findings.tally(check).evaluated += 1;
      this.findings.depart(check, expected, seen, want.provisional, exchange, op);
      return false;
    }
    return this.assert(statusOk && codeOk, check, expected, seen, exchange, op);
  }
}

export function errorCode(json: unknown): string | undefined {
  const error = (json as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
}
