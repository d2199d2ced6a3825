// What the kit learns across the responses of a whole run, for the rules no single response can show: the monthly
// quota is one allowance per account (the keys of one seller, whatever their area, see one X-RateLimit-Remaining
// sequence); a gateway 429 is answered at once, not after holding the request; and which codes of the error
// catalogue the run reached, with the status and area they came with.
import type { OperationInfo } from '@cls-api/spec';
import { responseArea, type Finding } from '../contract/checks.js';
import type { Contract } from '../contract/contract.js';
import type { Exchange } from './http.js';

/** Where a code of the catalogue was first seen. */
export interface CodeSighting {
  status: number;
  area: string;
  operation: string;
  case: string;
}

/**
 * A gateway 429 answered slower than this many times the typical accepted answer, and slower than the floor, was
 * held before it was refused. The floor is far above any honest answer on a loaded machine; the factor keeps a slow
 * network (every answer slow alike) from being mistaken for holding.
 */
export const GATEWAY_429_FLOOR_MS = 2000;
export const GATEWAY_429_FACTOR = 4;

export class RunObservations {
  /** Per seller, the last metered response: X-RateLimit-Remaining and -Reset, and the key's area. */
  private readonly trail = new Map<string, { remaining: number; reset: number | undefined; area: string }>();
  /** How long accepted (not 429) answers took, in ms. */
  private readonly acceptedMs: number[] = [];
  readonly codes = new Map<string, CodeSighting>();

  constructor(private readonly contract: Contract) {}

  /** The median time an accepted (not 429) answer took so far, in ms. */
  typicalMs(): number | undefined {
    return median(this.acceptedMs);
  }

  /**
   * The slowest accepted answer of the burst being judged: its 429s waited in the same queue, on the same machine,
   * so a busy machine slows both alike and only a 429 far behind them was held (see heldBound).
   */
  private burstAcceptedMs: number | undefined;

  /** Judges the answers of one burst against each other as well as against the run's typical answer. */
  judgeBurst<T>(acceptedMs: number[], judge: () => T): T {
    this.burstAcceptedMs = acceptedMs.length > 0 ? Math.max(...acceptedMs) : undefined;
    try {
      return judge();
    } finally {
      this.burstAcceptedMs = undefined;
    }
  }

  /**
   * How long an answer may take before it counts as held: the floor, the factor times the typical answer, or, in a
   * burst, twice its slowest accepted answer.
   */
  heldBound(typical = this.typicalMs()): number {
    return Math.max(GATEWAY_429_FLOOR_MS, GATEWAY_429_FACTOR * (typical ?? 0), 2 * (this.burstAcceptedMs ?? 0));
  }

  /** Notes one response; returns the checks it evaluated and what they found. */
  observe(op: OperationInfo, exchange: Exchange, caseId: string): { evaluated: string[]; findings: Finding[] } {
    const evaluated: string[] = [];
    const findings: Finding[] = [];
    const { status, headers, json } = exchange.response;

    const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
    if (status >= 400 && typeof code === 'string' && this.contract.catalog.has(code) && !this.codes.has(code)) {
      this.codes.set(code, {
        status,
        area: responseArea(this.contract, op, exchange),
        operation: op.operationId,
        case: caseId,
      });
    }

    // One allowance per account, summed over all its test keys (spec/components/headers/X-RateLimit-Limit.yaml).
    const cred = exchange.request.credential;
    const names = this.contract.quotaHeaders;
    const remainingRaw = headers[names.remaining];
    if (cred.kind === 'apiKey' && remainingRaw !== undefined && /^\d+$/.test(remainingRaw.trim())) {
      const remaining = Number(remainingRaw.trim());
      const resetRaw = headers[names.reset];
      const reset = resetRaw !== undefined && /^\d+$/.test(resetRaw.trim()) ? Number(resetRaw.trim()) : undefined;
      const before = this.trail.get(cred.seller);
      if (before) {
        evaluated.push('quota_one_allowance');
        // A new month (another Reset) starts a new allowance; within one, the count only goes down.
        const sameMonth = before.reset === undefined || reset === undefined || before.reset === reset;
        if (sameMonth && remaining > before.remaining) {
          findings.push({
            check: 'quota_one_allowance',
            expected: `X-RateLimit-Remaining at most ${before.remaining} (one allowance for the ${cred.seller} seller's test keys; the last answer, to its ${before.area} key, had ${before.remaining})`,
            seen: `X-RateLimit-Remaining: ${remaining} for its ${cred.area} key`,
          });
        }
      }
      this.trail.set(cred.seller, { remaining, reset, area: cred.area });
    }

    const gateway = status === 429 && headers[names.retryAfter] === undefined;
    if (!gateway) {
      if (status < 500) this.acceptedMs.push(exchange.ms);
    } else {
      evaluated.push('gateway_429_immediate');
      const typical = this.typicalMs();
      const bound = this.heldBound(typical);
      if (exchange.ms > bound) {
        findings.push({
          check: 'gateway_429_immediate',
          expected: `a gateway 429 answered at once (within ${bound} ms; accepted answers took ${typical ?? '?'} ms at the median)`,
          seen: `429 after ${exchange.ms} ms: the request was held before it was refused`,
        });
      }
    }
    return { evaluated, findings };
  }
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
