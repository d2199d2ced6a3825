// The negative rules of the source: missing credential, invalid credential (for each scheme an operation accepts),
// an API key on the JWT-only area, a key of another area, unknown resources, and page or size out of range. Codes
// are named here because the rules name them; their statuses come from the catalogue and each must be documented by
// the operation.
// Each kind of case has its file in negative/; the order below is the run's: the expired token and the body shapes
// first, then every operation's credential, unknown-resource and page-size cases together. Each is proven on every
// operation it applies to: a rule proven on one operation says nothing of its neighbours.
import type { CaseDef, RunEnv } from '../run/case.js';
import { bodyShapeCases } from './negative/body-shape.js';
import { credentialCases } from './negative/credentials.js';
import { expiredTokenCases } from './negative/expired-token.js';
import { pageSizeCases } from './negative/page-size.js';
import { unknownResourceCases } from './negative/unknown-resource.js';

export function negativeCases(env: RunEnv): CaseDef[] {
  const cases: CaseDef[] = [...expiredTokenCases(env), ...bodyShapeCases(env)];
  const keyed = env.contract.operations.filter((op) => op.security.length > 0);
  for (const op of keyed) {
    cases.push(...credentialCases(env, op), ...unknownResourceCases(env, op), ...pageSizeCases(env, op));
  }
  return cases;
}
