import type { OperationInfo } from '@cls-api/spec';
import type { CaseDef, RunEnv } from '../../case.js';
import { formatErrorCodes } from '../../inputs.js';

/**
 * A body that is not JSON, and one that is JSON but not an object, on every run whatever the seed: 400 with a
 * documented code, never a 5xx. Both go to the public token request (no quota spent); the keyed areas' body parser
 * gets the one that only a parser can answer (not JSON: no schema sees it) on one operation that takes a key and a
 * body, and nothing is sent anywhere else: the rule is the body parser's.
 */
export function bodyShapeCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const targets = [
    contract.operations.find((op) => op.requestBody && op.security.length === 0),
    contract.operations.find(
      (op) => op.requestBody && !op.path.includes('{') && op.security.some((s) => contract.isApiKeyScheme(s)),
    ),
  ].filter((op): op is OperationInfo => op !== undefined);
  const bodies = [
    { name: 'body_not_json', what: 'a body that is not JSON', raw: '{"unterminated": ' },
    { name: 'body_not_object', what: 'a JSON body that is not an object', raw: '["not", "an", "object"]' },
  ];
  return targets.flatMap((op) =>
    bodies
      .filter((b) => op.security.length === 0 || b.name === 'body_not_json')
      .map(
        (b): CaseDef => ({
          id: `negative/${op.operationId}/${b.name}`,
          phase: 'negative',
          title: `${op.method.toUpperCase()} ${op.path} with ${b.what}: 400, never a 5xx`,
          operations: [op.operationId],
          writes: op.security.length > 0,
          run: async (t) => {
            const ex = await t.call(op, { rawBody: b.raw });
            t.expect(ex, op, {
              status: 400,
              code: [...new Set([...formatErrorCodes(t, op, false), ...formatErrorCodes(t, op, true)])],
              why: b.what,
            });
          },
        }),
      ),
  );
}
