// The credentials of the areas that take more than one: the manager area with the seller's API key instead of the
// JWT; the JWT obtained, refreshed, and its refresh token used once.
import { dataOf, type CaseDef, type RunEnv } from '../../run/case.js';
import type { Row } from '../shared/bulk.js';
import { reachablePathValues } from '../shared/paths.js';
import { validQuery } from '../shared/inputs.js';
import { withApiKeyProof } from './seller-isolation.js';

export function credentialCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  // An operation that takes an API key or a JWT (the manager area) is run with the JWT by every other case (it
  // spends no monthly quota, case.ts credentialFor), and here once with the seller's API key: the seller's own data
  // either way. The schemes are the operation's `security`.
  if (env.clientId && env.clientSecret) {
    for (const op of contract.operations) {
      const apiKey = op.security.filter((s) => contract.isApiKeyScheme(s));
      const bearer = op.security.filter((s) => contract.isBearerScheme(s));
      if (apiKey.length === 0 || bearer.length === 0) continue;
      cases.push({
        id: `workflows/${op.operationId}/with_${apiKey[0]}`,
        phase: 'workflows',
        title: `${op.method.toUpperCase()} ${op.path} with an API key (${apiKey.join(', ')}) instead of a JWT: the seller's own data`,
        operations: [op.operationId],
        writes: op.method !== 'get',
        run: async (t) => {
          const key = t.key(op.area);
          // The seller isolation workflow's read of its list with the key proves it for that list only.
          const proof = withApiKeyProof(t, op)!;
          const by = t.provenBy(proof);
          if (by !== undefined) return t.covered(by, `${op.operationId} takes the ${op.area} API key`);
          const { path, known } = await reachablePathValues(t, op);
          const success = contract.successStatus(op);
          const notFound = contract.responseFor(op, 404) ? [404] : [];
          const ex = await t.call(op, { path, query: validQuery(t, op, { optional: false }), credential: key });
          t.expect(ex, op, {
            status: known ? success : [success, ...notFound],
            why: known
              ? "the seller's API key reads the seller's own data"
              : 'an API key is accepted here (a value the kit has no resource for may be not found)',
          });
          if (t.failures.length === 0) t.proved(proof);
        },
      });
    }
  }

  if (contract.hasOperations('createAccessToken', 'refreshAccessToken')) {
    cases.push({
      id: 'workflows/token_refresh',
      phase: 'workflows',
      title: 'A JWT is obtained and refreshed; the used refresh token stops working; the new token is accepted',
      operations: ['createAccessToken', 'refreshAccessToken'],
      writes: false,
      run: async (t) => {
        const create = t.op('createAccessToken');
        const refresh = t.op('refreshAccessToken');
        if (!env.clientId || !env.clientSecret) t.skip('no client credentials: pass --client-id and --client-secret');
        const issued = await t.call(create, {
          body: { client_id: env.clientId, client_secret: env.clientSecret },
          credential: { kind: 'none' },
        });
        if (!t.expect(issued, create, { status: contract.successStatus(create) })) return;
        const refreshToken = String(dataOf<Row>(issued).refresh_token);
        env.transport.options.redactor.add(refreshToken, 'CLS_REFRESH_TOKEN');
        env.transport.options.redactor.add(String(dataOf<Row>(issued).access_token), 'CLS_ACCESS_TOKEN');
        const renewed = await t.call(refresh, { body: { refresh_token: refreshToken }, credential: { kind: 'none' } });
        if (!t.expect(renewed, refresh, { status: contract.successStatus(refresh) })) return;
        const newToken = String(dataOf<Row>(renewed).access_token);
        env.transport.options.redactor.add(newToken, 'CLS_ACCESS_TOKEN');
        env.transport.options.redactor.add(String(dataOf<Row>(renewed).refresh_token), 'CLS_REFRESH_TOKEN');
        const reused = await t.call(refresh, { body: { refresh_token: refreshToken }, credential: { kind: 'none' } });
        t.expect(reused, refresh, {
          status: 401,
          code: refresh.responses['401']?.errorCodes ?? [],
          why: 'a refresh token works once',
        });
        const bearerOp = contract.operations.find(
          (o) => o.security.some((s) => t.isBearerScheme(s)) && o.method === 'get',
        );
        if (bearerOp) {
          const ok = await t.call(bearerOp, {
            query: validQuery(t, bearerOp, { optional: false }),
            credential: { kind: 'bearer', token: newToken, ref: 'CLS_ACCESS_TOKEN', seller: 'primary' },
          });
          t.expect(ok, bearerOp, {
            status: contract.successStatus(bearerOp),
            why: 'the refreshed access token is accepted',
          });
        }
      },
    });
  }

  return cases;
}
