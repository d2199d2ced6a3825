// What a case found and noted, kept as the report shows it: failures and provisional departures with the status and
// a curl reproduction, secrets redacted; notes; the cases it relied on; and the run's tally per check.
import type { OperationInfo } from '@cls-api/spec';
import type { Exchange, Transport } from '../http.js';

export interface Failure {
  check: string;
  operation: string;
  expected: string;
  seen: string;
  status?: number;
  curl?: string;
}

/**
 * A response or outcome that breaks only a design of ours (`x-provisional`, `x-known-values`; DECISIONS.md G24):
 * the relaxed contract, which holds what the source shows, accepts it. Reported apart from failures, and counted as
 * one only under `--strict-provisional`.
 */
export interface Departure {
  check: string;
  operation: string;
  expected: string;
  seen: string;
  /** The design it departs from, and why that is not a failure. */
  reason: string;
  status?: number;
  curl?: string;
}

export interface CheckTally {
  evaluated: number;
  failed: number;
  /** Provisional departures: a design of ours not followed (not failures unless --strict-provisional). */
  departed: number;
}

/** What of the run a case's findings are kept with: the run's tally, and the transport that redacts and replays. */
export interface FindingsEnv {
  transport: Transport;
  tally: Map<string, CheckTally>;
  /** Departures count as failures (`--strict-provisional`). */
  strictProvisional: boolean;
}

export class CaseFindings {
  readonly failures: Failure[] = [];
  readonly departures: Departure[] = [];
  readonly notes: string[] = [];
  /** Requests sent on behalf of the case, retries included. */
  requests = 0;
  /** The cases whose proof this case relied on instead of sending the same rule again. */
  readonly coveredBy: string[] = [];

  constructor(
    private readonly env: FindingsEnv,
    /** The operations the case is about: a finding without an operation of its own is theirs. */
    private readonly def: { operations: string[] },
  ) {}

  note(text: string): void {
    this.notes.push(text);
  }

  /** Relies on another case's proof instead of spending a request on the same rule; the report names that case. */
  covered(by: string, what: string): void {
    if (!this.coveredBy.includes(by)) this.coveredBy.push(by);
    this.note(`${what}: proven by ${by}`);
  }

  tally(name: string): CheckTally {
    let t = this.env.tally.get(name);
    if (!t) {
      t = { evaluated: 0, failed: 0, departed: 0 };
      this.env.tally.set(name, t);
    }
    return t;
  }

  fail(check: string, expected: string, seen: string, exchange?: Exchange, op?: OperationInfo): void {
    const failure: Failure = {
      check,
      operation: op?.operationId ?? this.def.operations.join(', '),
      expected,
      seen: this.env.transport.options.redactor.redact(seen),
    };
    if (exchange) {
      failure.status = exchange.response.status;
      failure.curl = this.env.transport.curl(exchange);
    }
    this.failures.push(failure);
  }

  /**
   * Records a provisional departure. Under `--strict-provisional` it is also a failure of the same check, so the
   * case fails and the run exits 1.
   */
  depart(check: string, expected: string, seen: string, reason: string, exchange?: Exchange, op?: OperationInfo): void {
    const redact = (text: string) => this.env.transport.options.redactor.redact(text);
    const departure: Departure = {
      check,
      operation: op?.operationId ?? this.def.operations.join(', '),
      expected,
      seen: redact(seen),
      reason,
    };
    if (exchange) {
      departure.status = exchange.response.status;
      departure.curl = this.env.transport.curl(exchange);
    }
    this.departures.push(departure);
    const t = this.tally(check);
    t.departed += 1;
    if (this.env.strictProvisional) {
      t.failed += 1;
      this.fail(check, `${expected} [provisional, failed by --strict-provisional: ${reason}]`, seen, exchange, op);
    }
  }
}
