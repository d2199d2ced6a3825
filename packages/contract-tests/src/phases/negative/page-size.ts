// A list asked for a size or a page out of range: 400. A page below 1 is out of range by the source (pages are
// 1-based); the size bounds and the largest page are designs (`x-provisional`): a server that takes a value out of
// them departs from a design, it does not break the contract.
import type { OperationInfo } from '@cls-api/spec';
import type { CaseDef, RunEnv } from '../../run/case.js';
import { formatErrorCodes, provisionalReason, validQuery } from '../shared/inputs.js';
import { knownPathValues } from '../shared/paths.js';

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
        // Every list checks its own bounds: a server whose one list ignores them is caught on that list.
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
      },
    },
  ];
}
