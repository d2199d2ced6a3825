// What each answer of the run proves, per operation: that it was answered and checked (`response`), that a success
// was, its body judged against the documented schema (`success`: a refusal proves the input well-formed, not what a
// success brings), that a test key got the quota headers (`quota_headers`), that a domain code came back from it
// (`code:X`), and that another seller's credential was answered by it where the seller's records could have shown
// (`isolation`, compared in isolation.ts).
// Failures come from the cases; this only notes where the run looked, so the matrix can tell "proven" from "never
// asked".
import type { OperationInfo } from '@cls-api/spec';
import type { Contract } from '../contract/contract.js';
import type { Exchange } from '../run/http.js';

export class Evidence {
  private readonly proofs = new Map<string, Set<string>>();

  constructor(
    private readonly contract: Contract,
    /** Whether an answer to another seller could have shown one of the seller's records (isolation.ts `couldShow`). */
    private readonly couldShow: (op: OperationInfo, exchange: Exchange) => boolean,
  ) {}

  /** Notes one answer the case `caseId` got from `op`. */
  answered(op: OperationInfo, exchange: Exchange, caseId: string, deliberate: boolean): void {
    const { status, headers, json } = exchange.response;
    const note = (rule: string) => {
      const k = `${op.operationId} ${rule}`;
      const set = this.proofs.get(k) ?? new Set<string>();
      set.add(caseId);
      this.proofs.set(k, set);
    };
    // An answer asked for with Prefer (a mock's example) proves the example, not the server's behaviour.
    if (deliberate) return;
    note('response');
    if (status >= 200 && status < 300) note('success');
    const cred = exchange.request.credential;
    if (cred.kind === 'apiKey' && headers[this.contract.quotaHeaders.remaining] !== undefined) note('quota_headers');
    const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
    if (status >= 400 && typeof code === 'string' && this.contract.catalog.get(code)?.status === status)
      note(`code:${code}`);
    // Another seller's credential answered by this operation when it could have shown one of the seller's records:
    // its records were compared with the seller's.
    if (
      (cred.kind === 'apiKey' || cred.kind === 'bearer') &&
      cred.seller === 'other' &&
      status < 500 &&
      this.couldShow(op, exchange)
    )
      note('isolation');
  }

  /** Whether an answer of the run was a success of `operation`: its success body has been judged. */
  succeeded(operation: string): boolean {
    return (this.proofs.get(`${operation} success`)?.size ?? 0) > 0;
  }

  /** The cases whose answers prove the pair (empty: none). */
  proofOf(operation: string, rule: string): string[] {
    if (
      rule === 'auth' ||
      rule === 'body_parsing' ||
      rule === 'unknown_resource' ||
      rule === 'paging' ||
      rule === 'bulk_rows'
    )
      return [];
    return [...(this.proofs.get(`${operation} ${rule}`) ?? [])];
  }

  /** Why a pair has no proof, where the run can tell. */
  whyNot(operation: string, rule: string): string | undefined {
    if (rule === 'isolation')
      return "no answer of this operation to another seller's credential that could have shown one of the seller's records: give --other-api-key for its area, and run where the seller has such records (or let the run create them)";
    if (rule === 'quota_headers') return 'no answer of this operation to a test key (the JWT or a live key was used)';
    if (rule.startsWith('code:')) return `no request of this run drove ${operation} to ${rule.slice(5)}`;
    if (rule === 'success')
      return `no request of this run got a success from ${operation}: its success body is not judged (no record of the seller's it could read, or every answer was a refusal)`;
    return undefined;
  }
}
