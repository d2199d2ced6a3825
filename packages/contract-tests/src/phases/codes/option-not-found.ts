// An option code that names nothing, on the kit's own product: the option, not the product, is not found.
import type { CaseDef, RunEnv } from '../../run/case.js';
import { ensureFixtureProduct } from '../shared/fixtures.js';
import { codeReachedProof, unknownValue, validQuery } from '../shared/inputs.js';

export function optionNotFoundCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  const mcpArea = contract.findOperation('listMcpTools')?.area;
  for (const op of contract.operations) {
    if (op.area === mcpArea || !contract.documents(op, 'OPTION_NOT_FOUND')) continue;
    const params = op.parameters.filter((p) => p.in === 'path');
    if (!params.some((p) => p.name === 'product_code') || params.length !== 2) continue;
    cases.push({
      id: `workflows/codes/OPTION_NOT_FOUND/${op.operationId}`,
      phase: 'workflows',
      title: `${op.method.toUpperCase()} ${op.path} with the kit's product and an option it does not have: OPTION_NOT_FOUND`,
      operations: [op.operationId],
      writes: false,
      reaches: ['OPTION_NOT_FOUND'],
      run: async (t) => {
        // The negative phase's unknown resource under the kit's product met it already: not sent again.
        const by = t.provenBy(codeReachedProof(op, 'OPTION_NOT_FOUND'));
        if (by !== undefined) return t.covered(by, 'an option the product does not have is OPTION_NOT_FOUND');
        const product = await ensureFixtureProduct(t);
        const path: Record<string, string> = {};
        for (const p of params) path[p.name] = p.name === 'product_code' ? product.product_code : unknownValue(t, p);
        const ex = await t.call(op, { path, query: validQuery(t, op, { optional: false }) });
        t.expect(ex, op, {
          status: contract.statusOf('OPTION_NOT_FOUND'),
          code: 'OPTION_NOT_FOUND',
          check: 'error_code_reached',
          why: `product ${product.product_code} exists and has no such option`,
        });
      },
    });
  }
  return cases;
}
