// The deposit lookup (the JWT-only list whose 404 is not documented) over a day long past: nothing matches, and that
// is HTTP 200 with an empty array, not 404, as spec/paths/v3_pay_deposits.yaml says.
import { dataOf, type CaseDef, type RunEnv } from '../../run/case.js';
import { validQuery } from '../shared/inputs.js';

export function noMatchIsEmptyCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const deposits = contract.findOperation('listDeposits');
  if (!deposits || contract.responseFor(deposits, 404)) return [];
  return [
    {
      id: 'workflows/codes/no_match_is_empty/listDeposits',
      phase: 'workflows',
      title: `${deposits.method.toUpperCase()} ${deposits.path} matching nothing: HTTP 200 with data an empty array, not 404`,
      operations: [deposits.operationId],
      writes: false,
      run: async (t) => {
        const query = validQuery(t, deposits, { optional: false });
        for (const p of deposits.parameters) {
          if (p.in === 'query' && t.contract.resolve(p.schema).format === 'date') query[p.name] = '2000-01-03';
        }
        const ex = await t.call(deposits, { query });
        if (
          !t.expect(ex, deposits, {
            status: contract.successStatus(deposits),
            why: 'a lookup that matches nothing is HTTP 200, not 404 (the source: use the array length)',
          })
        )
          return;
        const data = dataOf<unknown[]>(ex);
        t.assert(
          Array.isArray(data) && data.length === 0,
          'expected_outcome',
          'data an empty array (no deposit on 2000-01-03)',
          JSON.stringify(data)?.slice(0, 200) ?? 'no data',
          ex,
          deposits,
        );
      },
    },
  ];
}
