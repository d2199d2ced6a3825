// A request naming a resource that does not exist: 404 with a code the operation documents for it.
import type { OperationInfo } from '@cls-api/spec';
import { errorCode, type CaseContext, type CaseDef, type RunEnv } from '../../run/case.js';
import { fixtureProductIfMade } from '../shared/fixtures.js';
import { Generator } from '../../contract/generate.js';
import {
  codeReachedProof,
  pathKinds,
  someValidBody,
  unknownPathValues,
  unknownResourceProof,
  unknownValue,
  validInputProof,
  validQuery,
} from '../shared/inputs.js';

export function unknownResourceCases(env: RunEnv, op: OperationInfo): CaseDef[] {
  const notFound = env.contract.responseFor(op, 404);
  if (!notFound || notFound.errorCodes.length === 0) return [];
  return [
    {
      id: `negative/${op.operationId}/unknown_resource`,
      phase: 'negative',
      title: `${op.method.toUpperCase()} ${op.path} naming an unknown resource: 404 ${notFound.errorCodes.join('|')}`,
      operations: [op.operationId],
      writes: op.method !== 'get',
      run: async (t) => {
        // Spelled as sellers' codes are (a dot, Hangul, a space or a slash; never plain): a server must look such a
        // value up, not refuse its format (Identifier, DECISIONS.md G25).
        const style = 1 + Math.floor(t.env.random() * (Generator.identifierStyles - 1));
        // A request example of this operation that named a resource the server does not hold proved it already.
        const proof = unknownResourceProof(t, op);
        const by = proof ? t.provenBy(proof) : undefined;
        if (by !== undefined) return t.covered(by, `an unknown ${pathKinds(t, op).join(', ')} is not found`);
        const path = unknownPathValues(t, op, style);
        // Under the kit's product, where the run has made it: the innermost resource alone is unknown, so the
        // answer names it (OPTION_NOT_FOUND), which the code workflow would otherwise send again.
        const params = op.parameters.filter((p) => p.in === 'path');
        const product = fixtureProductIfMade(t);
        if (product && params.length > 1 && params[0]!.name === 'product_code')
          path.product_code = product.product_code;
        const ex = await t.call(op, {
          path,
          query: unknownQuery(t, op, style),
          ...(op.requestBody ? { body: unknownBody(t, op, style) } : {}),
        });
        t.expect(ex, op, {
          status: 404,
          code: notFound.errorCodes,
          why: `a resource that does not exist${
            Object.keys(path).length > 0
              ? ` (${Object.entries(path)
                  .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
                  .join(', ')})`
              : ''
          }`,
        });
        if (proof && t.failures.length === 0) t.proved(proof);
        const code = errorCode(ex.response.json);
        if (code && t.failures.length === 0) t.proved(codeReachedProof(op, code));
        // Unknown values spelled as sellers spell theirs are valid input: the generated valid draw is this request.
        if (t.failures.length === 0) t.proved(validInputProof(op));
      },
    },
  ];
}

/**
 * A valid body whose identifiers name nothing on the server: the first request example, with every value that the
 * schema types as an `Identifier` replaced by an unknown one where the operation can answer 404 for it.
 */
function unknownBody(t: CaseContext, op: OperationInfo, style: number): unknown {
  const body = someValidBody(t, op) as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || !op.requestBody?.schema) return body;
  const schema = t.contract.resolve(op.requestBody.schema);
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = { ...body };
  for (const [name, sub] of Object.entries(props)) {
    // An identifier refers to the contract's Identifier; free text (names, reasons) is left alone.
    if (t.contract.isIdentifier(sub) && name in out)
      out[name] = t.env.generator.unknownIdentifier(sub, t.env.random, style);
  }
  return out;
}

/** Required query values, plus every identifier filter set to a value that names nothing (`product_code`). */
function unknownQuery(t: CaseContext, op: OperationInfo, style: number): Record<string, string | number> {
  const query = validQuery(t, op, { optional: false });
  for (const p of op.parameters.filter((x) => x.in === 'query')) {
    if (t.contract.isIdentifier(p.schema)) query[p.name] = unknownValue(t, p, style);
  }
  return query;
}
