import type { OperationInfo } from '@cls-api/spec';
import type { CaseDef, RunEnv } from '../../run/case.js';
import { formatErrorCodes } from '../shared/inputs.js';
import { reachablePathValues } from '../shared/paths.js';

const BODIES = [
  { name: 'body_not_json', what: 'a body that is not JSON', raw: '{"unterminated": ' },
  { name: 'body_not_object', what: 'a JSON body that is not an object', raw: '["not", "an", "object"]' },
];

/**
 * A body that is not JSON on every operation that takes a body, whatever the seed: 400 with a documented code, never
 * a 5xx and never taken as an empty change. Each operation's own parser is its own rule (an MCP tool call, an order
 * update), so none stands for another. The public token requests, which spend no quota, also get JSON that is not an
 * object. Path values name the kit's own records where it has them, so the body is the only thing wrong; where it
 * has none (a return, a draft), the documented 404 may rightly come first.
 */
export function bodyShapeCases(env: RunEnv): CaseDef[] {
  const targets = env.contract.operations.filter((op) => op.requestBody);
  return targets.flatMap((op: OperationInfo) =>
    BODIES.filter((b) => op.security.length === 0 || b.name === 'body_not_json').map(
      (b): CaseDef => ({
        id: `negative/${op.operationId}/${b.name}`,
        phase: 'negative',
        title: `${op.method.toUpperCase()} ${op.path} with ${b.what}: 400, never a 5xx`,
        operations: [op.operationId],
        writes: op.security.length > 0,
        run: async (t) => {
          const { path, known } = await reachablePathValues(t, op);
          const ex = await t.call(op, { path, rawBody: b.raw });
          const notFound = known ? undefined : t.contract.responseFor(op, 404);
          t.expect(ex, op, {
            status: notFound ? [400, 404] : 400,
            code: [
              ...new Set([
                ...formatErrorCodes(t, op, false),
                ...formatErrorCodes(t, op, true),
                ...(notFound?.errorCodes ?? []),
              ]),
            ],
            why: `${b.what}${notFound ? ` (under ${Object.keys(path).join(', ')} that name nothing: 400, or the documented 404 first)` : ''}`,
          });
        },
      }),
    ),
  );
}
