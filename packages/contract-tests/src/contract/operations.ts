// The contract's operations by `operationId`, and the responses each documents.
import type { OperationInfo, ResponseInfo } from '@cls-api/spec';
import { ContractGap } from './gap.js';

export class Operations {
  constructor(private readonly operations: readonly OperationInfo[]) {}

  operation(operationId: string): OperationInfo {
    const op = this.operations.find((o) => o.operationId === operationId);
    if (!op) throw new ContractGap(`the contract has no operation ${operationId}`);
    return op;
  }

  findOperation(operationId: string): OperationInfo | undefined {
    return this.operations.find((o) => o.operationId === operationId);
  }

  /** Whether the contract has every one of these operations (a case about them is made only then). */
  hasOperations(...operationIds: string[]): boolean {
    return operationIds.every((id) => this.findOperation(id) !== undefined);
  }
}

/** The response documented for a status: the exact code, then `4XX`-style ranges, then `default`. */
export function responseFor(op: OperationInfo, status: number): ResponseInfo | undefined {
  return op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
}

/** The one documented 2xx status of an operation. */
export function successStatus(op: OperationInfo): number {
  const statuses = Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s));
  if (statuses.length === 0) throw new ContractGap(`${op.operationId} documents no 2xx response`);
  return Number(statuses[0]);
}
