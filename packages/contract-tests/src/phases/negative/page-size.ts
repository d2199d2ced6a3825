// A list asked for a size or a page out of range: 400. The bounds are designs (`x-provisional`): a server that takes
// a value out of them departs from a design, it does not break the contract.
import type { OperationInfo } from '@cls-api/spec';
import type { CaseDef, RunEnv } from '../../case.js';
import type { Contract, PagedShape } from '../../contract.js';
import { formatErrorCodes, provisionalReason, validQuery } from '../../inputs.js';
import { knownPathValues } from '../../paths.js';

function pageSizeProof(contract: Contract, op: OperationInfo, paged: PagedShape): string {
  const of = (p: PagedShape['sizeParameter']) => contract.parameterComponent(op, p);
  return `page_size_out_of_range:${of(paged.sizeParameter)}|${of(paged.pageParameter)}`;
}

export function pageSizeCases(env: RunEnv, op: OperationInfo): CaseDef[] {
  const paged = env.contract.paged(op);
  if (!paged) return [];
  return [
    {
      id: `negative/${op.operationId}/page_size_out_of_range`,
      phase: 'negative',
      title: `${op.method.toUpperCase()} ${op.path} with size or page out of range: 400`,
      operations: [op.operationId],
      writes: false,
      run: async (t) => {
        // The shared page and size components are one rule, and their bounds are designs: proven once per run, by
        // the first list that takes them (negative.ts puts the lists the run reads with its JWT first).
        const proof = pageSizeProof(t.contract, op, paged);
        const by = t.provenBy(proof);
        if (by !== undefined)
          return t.covered(by, `${paged.sizeParameter.name} and ${paged.pageParameter.name} out of range are refused`);
        const path = await knownPathValues(t, op);
        const out: Array<[typeof paged.sizeParameter, number]> = [];
        const size = t.contract.resolve(paged.sizeParameter.schema);
        const page = t.contract.resolve(paged.pageParameter.schema);
        if (typeof size.maximum === 'number') out.push([paged.sizeParameter, size.maximum + 1]);
        if (typeof size.minimum === 'number') out.push([paged.sizeParameter, size.minimum - 1]);
        if (typeof page.minimum === 'number') out.push([paged.pageParameter, page.minimum - 1]);
        for (const [param, value] of out) {
          const ex = await t.call(op, {
            path,
            query: { ...validQuery(t, op, { optional: false }), [param.name]: value },
          });
          const provisional = provisionalReason(t, param.schema, value, param);
          t.expect(ex, op, {
            status: 400,
            code: formatErrorCodes(t, op, false),
            why: `${param.name}=${value} is out of range`,
            ...(provisional ? { provisional } : {}),
          });
        }
        if (t.failures.length === 0) t.proved(proof);
      },
    },
  ];
}
