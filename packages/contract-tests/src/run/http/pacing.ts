// The kit's pace: under the contract's gateway limits one request at a time (the client's pacer), and an
// exponential backoff with jitter after a gateway 429, so that the kit never adds to a server's load spike.
import { createPacer, type Pacer } from '@cls-api/client';
import type { Contract } from '../../contract/contract.js';

export interface PacingOptions {
  contract: Contract;
  /** Fraction of each gateway rate the kit paces itself to, at most 1; 0 turns pacing off. */
  paceFraction: number;
  /** First backoff wait after a gateway 429, doubled per retry up to `backoffMaxMs`, with ±20 % jitter. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  random?: () => number;
}

export class Pacing {
  /** The client's pacer (`@cls-api/client`), on the contract's gateway limits; none when pacing is off. */
  private readonly pacer: Pacer | undefined;

  constructor(private readonly options: PacingOptions) {
    const fraction = Math.min(1, options.paceFraction);
    this.pacer =
      fraction > 0
        ? createPacer({ buckets: options.contract.limits.gateway, margin: 1 - fraction, maxBurst: 1 })
        : undefined;
  }

  async pace(path: string): Promise<void> {
    await this.pacer?.acquire(path);
  }

  /** 1, 2, 4, 8 … times the base, at most the cap, with about 20 % jitter either way. */
  backoff(attempt: number): number {
    const { backoffBaseMs, backoffMaxMs } = this.options;
    const wait = Math.min(backoffMaxMs, backoffBaseMs * 2 ** (attempt - 1));
    const jitter = ((this.options.random ?? Math.random)() * 2 - 1) * 0.2 * wait;
    return Math.max(0, Math.round(wait + jitter));
  }
}
