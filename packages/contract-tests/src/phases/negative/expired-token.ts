import type { CaseDef, RunEnv } from '../../run/case.js';
import { validQuery } from '../shared/inputs.js';
import { tokenExpiry } from '../codes.js';

/**
 * A token past its life, when the partner gives one (CLS_EXPIRED_TOKEN; the last run's, kept by the CI cache):
 * AUTH_EXPIRED_TOKEN on a read that takes only a JWT. Its `exp` says whether it has expired yet.
 */
export function expiredTokenCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  const bearerRead = contract.operations.find(
    (op) =>
      op.method === 'get' &&
      op.security.length > 0 &&
      op.security.every((s) => contract.securityScheme(s)?.type === 'http') &&
      contract.documents(op, 'AUTH_EXPIRED_TOKEN'),
  );
  const expired = env.expiredToken;
  if (expired && bearerRead) {
    cases.push({
      id: `negative/${bearerRead.operationId}/expired_token`,
      phase: 'negative',
      concern: 'authentication',
      title: `${bearerRead.method.toUpperCase()} ${bearerRead.path} with an access token past its life: AUTH_EXPIRED_TOKEN`,
      operations: [bearerRead.operationId],
      writes: false,
      reaches: ['AUTH_EXPIRED_TOKEN'],
      run: async (t) => {
        const exp = tokenExpiry(expired) ?? t.skip('CLS_EXPIRED_TOKEN is not a JWT with an exp claim');
        if (exp * 1000 > t.env.now())
          t.skip(`the token in CLS_EXPIRED_TOKEN has not expired yet (exp ${new Date(exp * 1000).toISOString()})`);
        const ex = await t.call(bearerRead, {
          query: validQuery(t, bearerRead, { optional: false }),
          credential: { kind: 'bearer', token: expired, ref: 'CLS_EXPIRED_TOKEN', seller: 'primary' },
        });
        t.expect(ex, bearerRead, {
          status: contract.statusOf('AUTH_EXPIRED_TOKEN'),
          code: 'AUTH_EXPIRED_TOKEN',
          why: `the token expired at ${new Date(exp * 1000).toISOString()}`,
        });
      },
    });
  }
  return cases;
}
