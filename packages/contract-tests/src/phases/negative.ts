// The negative rules of the source: missing credential, invalid credential (for each scheme an operation accepts),
// an API key on the JWT-only area, a key of another area, unknown resources, and page or size out of range. Codes
// are named here because the rules name them; their statuses come from the catalogue and each must be documented by
// the operation.
// Each kind of case has its file in negative/; the order below is the run's: the expired token and the body shapes
// first, the page-size cases of the lists the run reads with its JWT, then every operation's credential,
// unknown-resource and other page-size cases together.
import type { OperationInfo } from '@cls-api/spec';
import type { CaseDef, RunEnv } from '../case.js';
import { bodyShapeCases } from './negative/body-shape.js';
import { credentialCases } from './negative/credentials.js';
import { expiredTokenCases } from './negative/expired-token.js';
import { pageSizeCases } from './negative/page-size.js';
import { unknownResourceCases } from './negative/unknown-resource.js';

export function negativeCases(env: RunEnv): CaseDef[] {
  const cases: CaseDef[] = [...expiredTokenCases(env), ...bodyShapeCases(env)];
  const keyed = env.contract.operations.filter((op) => op.security.length > 0);
  // Page and size out of range are one rule, proven by the first list that takes them: a list the run reads with
  // its JWT (no monthly quota) goes first, so the lists read with test keys rely on it.
  const byJwt = (op: OperationInfo) =>
    Boolean(env.clientId && env.clientSecret) && op.security.some((s) => env.contract.isBearerScheme(s));
  cases.push(...keyed.filter(byJwt).flatMap((op) => pageSizeCases(env, op)));
  for (const op of keyed) {
    cases.push(
      ...credentialCases(env, op),
      ...unknownResourceCases(env, op),
      ...(byJwt(op) ? [] : pageSizeCases(env, op)),
    );
  }
  return cases;
}
