// The coverage matrix: every (operation, rule) pair the contract makes applicable, and what this run did with each:
// proven, failed, skipped (why), left for a later run (the pr profile's rotation), or not reached (why). The rules
// come from the contract (an operation's security, body, 404 codes, paging, bulk shape, quota headers, domain
// codes); the evidence from the answers each case got (matrix/evidence.ts), so a rule proven on one operation
// never stands for another.
import type { OperationInfo } from '@cls-api/spec';
import { CHECKS } from '../contract/checks.js';
import type { CaseResult, Failure, RunEnv } from '../run/case.js';
import type { Contract } from '../contract/contract.js';
import type { Evidence } from './evidence.js';

export type PairStatus = 'proven' | 'failed' | 'skipped' | 'left_for_later' | 'not_reached';

export interface MatrixPair {
  operation: string;
  rule: string;
  status: PairStatus;
  /** The cases that proved, failed or skipped it. */
  cases: string[];
  reason?: string;
}

export interface CoverageReport {
  /** The rules in column order; `code:X` for each domain code. */
  rules: string[];
  pairs: MatrixPair[];
  totals: Record<PairStatus, number> & { pairs: number };
}

/** What each rule is, for the report's legend and the README. */
export const RULES: Readonly<Record<string, string>> = {
  response: 'every answer: documented status, schema, headers, envelope, error code',
  success: 'a success answered and its body checked against the documented schema (no refusal stands for it)',
  auth: 'missing, invalid, wrong-area and wrong-scheme credentials refused with the documented code',
  body_parsing: 'a body that is not JSON refused with 400, never a 5xx or a success',
  unknown_resource: 'an unknown resource answered with the documented 404',
  paging: 'page and size out of range refused; pages add up across the list',
  bulk_rows: 'per-row outcomes in order, counts, nothing registered from a rejected body',
  isolation: "another seller's credentials never see this seller's records",
  quota_headers: 'X-RateLimit-* on answers to test keys, consistent and one allowance per account',
};

/** Codes of one area or a few (`x-areas` not `all`): the domain codes, each a rule of the operations that list it. */
function domainCodes(contract: Contract, op: OperationInfo): string[] {
  const codes = new Set<string>();
  for (const response of Object.values(op.responses)) {
    for (const code of response.errorCodes) {
      const entry = contract.catalog.get(code);
      if (entry && !entry.areas.includes('all')) codes.add(code);
    }
  }
  return [...codes];
}

/** The rules the contract makes applicable to one operation. */
export function applicableRules(
  contract: Contract,
  op: OperationInfo,
  isolated: (op: OperationInfo) => boolean,
): string[] {
  const rules = ['response'];
  if (Object.keys(op.responses).some((status) => status.startsWith('2'))) rules.push('success');
  if (op.security.length > 0) rules.push('auth');
  if (op.requestBody) rules.push('body_parsing');
  if ((contract.responseFor(op, 404)?.errorCodes.length ?? 0) > 0) rules.push('unknown_resource');
  if (contract.paged(op)) rules.push('paging');
  if (contract.bulk(op)) rules.push('bulk_rows');
  if (op.security.length > 0 && isolated(op)) rules.push('isolation');
  const remaining = contract.quotaHeaders.remaining;
  const metered = Object.values(op.responses).some((r) =>
    Object.keys(r.headers).some((h) => h.toLowerCase() === remaining),
  );
  if (op.security.some((s) => contract.isApiKeyScheme(s)) && metered) rules.push('quota_headers');
  for (const code of domainCodes(contract, op)) rules.push(`code:${code}`);
  return rules;
}

/** Whether another seller's reads of `op` are checked: the reads the isolation ledger can address. */
export function isolatedIn(env: Pick<RunEnv, 'isolation'>): (op: OperationInfo) => boolean {
  return (op) => op.method === 'get' && env.isolation.addresses(op);
}

/** Every (operation, rule) pair of the contract, as `operation rule`. */
export function applicablePairs(env: Pick<RunEnv, 'contract' | 'isolation'>): Set<string> {
  return new Set(
    env.contract.operations.flatMap((op) =>
      applicableRules(env.contract, op, isolatedIn(env)).map((rule) => `${op.operationId} ${rule}`),
    ),
  );
}

/** The rules a case sets out to prove, from its id (`negative/getWmsOrder/unknown_resource`). */
export function rulesOfCase(c: Pick<CaseResult, 'id' | 'phase' | 'concern'>): string[] {
  const last = c.id.split('/').at(-1) ?? '';
  const code = /^workflows\/codes\/([A-Z_]+)\//.exec(c.id)?.[1];
  if (code) return [`code:${code}`];
  if (
    c.concern === 'authentication' ||
    /^(missing_credential|invalid_credential|key_of_another_area|api_key_on_jwt_area|expired_token|with_)/.test(last)
  )
    return ['auth'];
  if (last === 'body_not_json' || last === 'body_not_object') return ['body_parsing'];
  if (last === 'unknown_resource') return ['unknown_resource'];
  if (last === 'page_size_out_of_range' || c.phase === 'paging') return ['paging'];
  if (c.phase === 'bulk' || last === 'mixed_rows_read_back') return ['bulk_rows'];
  if (last === 'seller_isolation') return ['isolation'];
  return [];
}

/** The checks run on every answer (checks.ts), which a failure on a success answer fails the success rule by. */
const RESPONSE_CHECKS = new Set(CHECKS.filter((c) => c.kind === 'response').map((c) => c.name));

/**
 * The rules a failure fails for the operation it names: the one its check speaks of, and `success` where a check of
 * the answer's own failed on a success (its body, headers or envelope), unless another rule owns that check.
 */
function rulesOfFailure(f: Failure): string[] {
  const rule = ruleOfCheck(f.check);
  const onSuccess = f.status !== undefined && f.status >= 200 && f.status < 300;
  const ownsSuccess = onSuccess && RESPONSE_CHECKS.has(f.check) && (rule === undefined || rule === 'response');
  return [...(rule ? [rule] : []), ...(ownsSuccess ? ['success'] : [])];
}

/** The rule a failed check speaks of, for the operation it names. */
function ruleOfCheck(check: string): string | undefined {
  if (check === 'seller_isolation') return 'isolation';
  if (check.startsWith('quota_')) return 'quota_headers';
  if (check.startsWith('bulk_')) return 'bulk_rows';
  if (check.startsWith('pagination_')) return 'paging';
  if (
    [
      'status_documented',
      'schema_valid',
      'content_type_json',
      'envelope_first_field',
      'success_matches_status',
      'headers_documented',
      'error_code_documented',
      'error_message_for_users',
      'no_server_error',
      'ratelimit_headers_integers',
    ].includes(check)
  )
    return 'response';
  return undefined;
}

/**
 * Rules only an answer proves, whichever case passed: another seller's answer proves isolation only where it could
 * have shown one of the seller's records (a seller_isolation case passes on an empty list of a seller who has
 * nothing, which proves nothing).
 */
const BY_ANSWERS_ONLY = new Set(['isolation']);

export function coverageMatrix(input: {
  contract: Contract;
  results: CaseResult[];
  evidence: Evidence;
  isolated: (op: OperationInfo) => boolean;
  leftForLater?: string[];
  stopped?: string;
}): CoverageReport {
  const { contract, results, evidence } = input;
  const later = new Set(input.leftForLater ?? []);
  const key = (op: string, rule: string) => `${op} ${rule}`;
  const failed = new Map<string, Set<string>>();
  const meant = new Map<string, CaseResult[]>();
  const add = <T>(map: Map<string, T[] | Set<string>>, k: string, v: T) => {
    const list = map.get(k) as T[] | undefined;
    if (list) list.push(v);
    else map.set(k, [v] as T[]);
  };
  for (const r of results) {
    for (const op of r.operations)
      for (const rule of rulesOfCase(r)) add(meant as Map<string, CaseResult[]>, key(op, rule), r);
    for (const f of r.failures) {
      const rules = new Set([...rulesOfCase(r).filter(() => r.operations.includes(f.operation)), ...rulesOfFailure(f)]);
      if (/^code_|error_code_reached/.test(f.check)) for (const x of rulesOfCase(r)) rules.add(x);
      for (const rule of rules) {
        if (!rule) continue;
        const set = failed.get(key(f.operation, rule)) ?? new Set<string>();
        set.add(r.id);
        failed.set(key(f.operation, rule), set);
      }
    }
  }
  const pairs: MatrixPair[] = [];
  const rules = new Set<string>();
  for (const op of contract.operations) {
    for (const rule of applicableRules(contract, op, input.isolated)) {
      rules.add(rule);
      const k = key(op.operationId, rule);
      const fails = failed.get(k);
      const cases = meant.get(k) ?? [];
      const proof = evidence.proofOf(op.operationId, rule);
      let pair: MatrixPair;
      if (fails) pair = { operation: op.operationId, rule, status: 'failed', cases: [...fails] };
      else if (proof.length > 0 || (!BY_ANSWERS_ONLY.has(rule) && cases.some((c) => c.status === 'passed')))
        pair = {
          operation: op.operationId,
          rule,
          status: 'proven',
          cases: [...new Set([...proof, ...cases.filter((c) => c.status === 'passed').map((c) => c.id)])],
        };
      else if (
        cases.some((c) => later.has(c.id)) ||
        (cases.length === 0 && [...later].some((id) => id.includes(`/${op.operationId}/`)))
      )
        pair = {
          operation: op.operationId,
          rule,
          status: 'left_for_later',
          cases: cases.map((c) => c.id),
          reason: 'the pr profile proves it in another run of its rotation',
        };
      else if (cases.some((c) => c.status === 'skipped')) {
        const skipped = cases.find((c) => c.status === 'skipped')!;
        pair = {
          operation: op.operationId,
          rule,
          status: 'skipped',
          cases: [skipped.id],
          reason: skipped.skipReason ?? 'skipped',
        };
      } else
        pair = {
          operation: op.operationId,
          rule,
          status: 'not_reached',
          cases: [],
          reason: input.stopped
            ? `the run stopped first (${input.stopped})`
            : (evidence.whyNot(op.operationId, rule) ??
              'no case of this run sends it (phases, filters or --read-only)'),
        };
      pairs.push(pair);
    }
  }
  const order = [
    'response',
    'success',
    'auth',
    'body_parsing',
    'unknown_resource',
    'paging',
    'bulk_rows',
    'isolation',
    'quota_headers',
  ];
  const columns = [...order.filter((r) => rules.has(r)), ...[...rules].filter((r) => !order.includes(r)).sort()];
  const totals = { pairs: pairs.length, proven: 0, failed: 0, skipped: 0, left_for_later: 0, not_reached: 0 };
  for (const p of pairs) totals[p.status] += 1;
  return { rules: columns, pairs, totals };
}

const MARK: Record<PairStatus, string> = {
  proven: '✓',
  failed: '✗',
  skipped: '-',
  left_for_later: '…',
  not_reached: '·',
};

/** The matrix as text: one row per operation, one column per rule (blank where the rule does not apply). */
export function formatMatrix(coverage: CoverageReport): string {
  const byOp = new Map<string, Map<string, PairStatus>>();
  for (const p of coverage.pairs) {
    const row = byOp.get(p.operation) ?? new Map<string, PairStatus>();
    row.set(p.rule, p.status);
    byOp.set(p.operation, row);
  }
  const header = ['operation', ...coverage.rules.map((r) => r.replace(/^code:/, ''))];
  const rows = [...byOp].map(([op, row]) => [op, ...coverage.rules.map((r) => (row.has(r) ? MARK[row.get(r)!] : ''))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const t = coverage.totals;
  return [
    `Coverage matrix: ${t.proven} of ${t.pairs} (operation, rule) pairs proven, ${t.failed} failed, ${t.skipped} skipped, ${t.left_for_later} left for later runs, ${t.not_reached} not reached`,
    `  ✓ proven  ✗ failed  - skipped  … left for a later run  · not reached  (blank: the rule does not apply)`,
    '',
    line(header),
    ...rows.map(line),
    ...unproven(coverage),
  ].join('\n');
}

function unproven(coverage: CoverageReport): string[] {
  const open = coverage.pairs.filter((p) => p.status === 'not_reached' || p.status === 'skipped');
  if (open.length === 0) return [];
  const byReason = new Map<string, MatrixPair[]>();
  for (const p of open) byReason.set(p.reason ?? '', [...(byReason.get(p.reason ?? '') ?? []), p]);
  const out = ['', 'Not proven in this run, and why:'];
  for (const [reason, pairs] of byReason) {
    const named = pairs.slice(0, 6).map((p) => `${p.operation} · ${p.rule}`);
    out.push(
      `  ${reason}: ${pairs.length === 1 ? named[0] : `${pairs.length} pairs (${named.join(', ')}${pairs.length > 6 ? ', …' : ''})`}`,
    );
  }
  return out;
}
