// The error catalogue: the status each code is returned with (`x-http-status`), and whether an operation documents
// a code where the catalogue puts it.
import type { ErrorCatalogEntry, OperationInfo } from '@cls-api/spec';
import { ContractGap } from './gap.js';
import { responseFor } from './operations.js';

export class ErrorCatalogue {
  constructor(private readonly entries: ReadonlyMap<string, ErrorCatalogEntry>) {}

  /** The status an error code is returned with (`x-http-status`), from the catalogue. */
  statusOf(code: string): number {
    const entry = this.entries.get(code);
    if (!entry) throw new ContractGap(`the error catalogue has no ${code}`);
    return entry.status;
  }

  /** Whether the operation documents `code` on the status the catalogue gives it. */
  documents(op: OperationInfo, code: string): boolean {
    const entry = this.entries.get(code);
    if (!entry) return false;
    return responseFor(op, entry.status)?.errorCodes.includes(code) ?? false;
  }
}
