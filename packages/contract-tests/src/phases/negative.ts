// The negative rules of the source: missing credential, invalid credential (for each scheme an operation accepts),
// an API key on the JWT-only area, a key of another area, unknown resources, and page or size out of range. Codes
// are named here because the rules name them; their statuses come from the catalogue and each must be documented by
// the operation. Page and size bounds are designs (`x-provisional`): a server that takes a value out of them
// departs from a design, it does not break the contract.
import type { OperationInfo } from '@cls-api/spec';
import type { CaseContext, CaseDef, RunEnv } from '../case.js';
import { tokenExpiry } from './codes.js';
import { knownPathValues } from '../paths.js';
import { Generator } from '../generate.js';
import {
  formatErrorCodes,
  pathKinds,
  provisionalReason,
  someValidBody,
  unknownPathValues,
  unknownResourceProof,
  unknownValue,
  validInputProof,
  validQuery,
} from '../inputs.js';

function requireDocumented(t: CaseContext, op: OperationInfo, code: string): number {
  const status = t.contract.statusOf(code);
  if (!t.contract.documents(op, code)) {
    t.assert(
      false,
      'expected_outcome',
      `${op.operationId} to document ${code} on ${status} (the source's rule)`,
      'not documented',
      undefined,
      op,
    );
    t.skip(`${op.operationId} does not document ${code}`);
  }
  return status;
}

/** A token well-formed as a JWT (three base64url parts) but signed by nobody. */
const UNSIGNED_JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJub2JvZHkifQ.aW52YWxpZC1zaWduYXR1cmU';

function madeUpKey(t: CaseContext, area: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let random = '';
  for (let i = 0; i < 32; i++) random += alphabet[Math.floor(t.env.random() * alphabet.length)];
  return `${area}_test_${random}`;
}

export function negativeCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [...expiredTokenCases(env), ...bodyShapeCases(env)];
  const keyAreas = new Set([...env.keys, ...env.otherKeys].map((k) => k.area));

  for (const op of contract.operations) {
    if (op.security.length === 0) continue;
    const writes = op.method !== 'get';
    const usesApiKey = op.security.some((s) => contract.securityScheme(s)?.type === 'apiKey');
    const usesBearer = op.security.some((s) => {
      const scheme = contract.securityScheme(s);
      return scheme?.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer';
    });
    const _title = (what: string) => `${op.method.toUpperCase()} ${op.path} ${what}`;
    const request = (t: CaseContext) => ({
      path: unknownPathValues(t, op),
      query: validQuery(t, op, { optional: false }),
      ...(op.requestBody ? { body: someValidBody(t, op) } : {}),
    });

    cases.push({
      id: `negative/${op.operationId}/missing_credential`,
      phase: 'negative',
      concern: 'authentication',
      title: `${op.method.toUpperCase()} ${op.path} without a credential: AUTH_MISSING_TOKEN`,
      operations: [op.operationId],
      writes,
      run: async (t) => {
        const status = requireDocumented(t, op, 'AUTH_MISSING_TOKEN');
        const ex = await t.call(op, { ...request(t), credential: { kind: 'none' } });
        t.expect(ex, op, { status, code: 'AUTH_MISSING_TOKEN', why: 'missing credential' });
      },
    });

    // One case per scheme the operation accepts (the manager area takes an API key or a JWT): a made-up credential
    // of that scheme is AUTH_INVALID_TOKEN. The schemes come from the operation's `security`.
    const schemes = op.security.filter((s) => {
      const type = contract.securityScheme(s)?.type;
      return (
        type === 'apiKey' || (type === 'http' && String(contract.securityScheme(s)?.scheme).toLowerCase() === 'bearer')
      );
    });
    for (const scheme of schemes) {
      const apiKey = contract.securityScheme(scheme)?.type === 'apiKey';
      cases.push({
        id: `negative/${op.operationId}/invalid_credential${schemes.length > 1 ? `/${scheme}` : ''}`,
        phase: 'negative',
        concern: 'authentication',
        title: `${op.method.toUpperCase()} ${op.path} with an invalid ${apiKey ? 'API key' : 'bearer token'}: AUTH_INVALID_TOKEN`,
        operations: [op.operationId],
        writes,
        run: async (t) => {
          const status = requireDocumented(t, op, 'AUTH_INVALID_TOKEN');
          const name = contract.securityScheme(scheme)?.name;
          const headers: Record<string, string> = apiKey
            ? {
                [typeof name === 'string' ? name : t.apiKeyHeader(op)]: madeUpKey(
                  t,
                  keyAreas.has(op.area) ? op.area : (env.keys[0]?.area ?? op.area),
                ),
              }
            : { Authorization: `Bearer ${UNSIGNED_JWT}` };
          const ex = await t.call(op, { ...request(t), credential: { kind: 'raw', headers } });
          t.expect(ex, op, {
            status,
            code: 'AUTH_INVALID_TOKEN',
            why: `invalid ${apiKey ? 'key' : 'token'} (${scheme})`,
          });
        },
      });
    }

    if (usesBearer && !usesApiKey) {
      cases.push({
        id: `negative/${op.operationId}/api_key_on_jwt_area`,
        phase: 'negative',
        concern: 'authentication',
        title: `${op.method.toUpperCase()} ${op.path} with only an API key: AUTH_FORBIDDEN`,
        operations: [op.operationId],
        writes,
        run: async (t) => {
          const status = requireDocumented(t, op, 'AUTH_FORBIDDEN');
          const key = env.keys[0] ?? t.skip('no API key: pass --api-key');
          const ex = await t.call(op, { ...request(t), credential: key });
          t.expect(ex, op, { status, code: 'AUTH_FORBIDDEN', why: `the ${op.area} area is JWT only` });
        },
      });
    }

    if (usesApiKey && keyAreas.has(op.area)) {
      cases.push({
        id: `negative/${op.operationId}/key_of_another_area`,
        phase: 'negative',
        concern: 'authentication',
        title: `${op.method.toUpperCase()} ${op.path} with a key of another area: AUTH_FORBIDDEN`,
        operations: [op.operationId],
        writes,
        run: async (t) => {
          const status = requireDocumented(t, op, 'AUTH_FORBIDDEN');
          const key = env.keys.find((k) => k.area !== op.area) ?? t.skip(`no API key of an area other than ${op.area}`);
          const ex = await t.call(op, { ...request(t), credential: key });
          t.expect(ex, op, { status, code: 'AUTH_FORBIDDEN', why: `a ${key.area} key on the ${op.area} area` });
        },
      });
    }

    const notFound = contract.responseFor(op, 404);
    if (notFound && notFound.errorCodes.length > 0) {
      cases.push({
        id: `negative/${op.operationId}/unknown_resource`,
        phase: 'negative',
        title: `${op.method.toUpperCase()} ${op.path} naming an unknown resource: 404 ${notFound.errorCodes.join('|')}`,
        operations: [op.operationId],
        writes,
        run: async (t) => {
          // Spelled as sellers' codes are (a dot, Hangul, a space or a slash; never plain): a server must look such a
          // value up, not refuse its format (Identifier, DECISIONS.md G25).
          const style = 1 + Math.floor(t.env.random() * (Generator.identifierStyles - 1));
          // One unknown resource per path-parameter kind and area: the same lookup refuses the same unknown value.
          const proof = unknownResourceProof(t, op);
          const by = proof ? t.provenBy(proof) : undefined;
          if (by !== undefined) return t.covered(by, `an unknown ${pathKinds(t, op).join(', ')} is not found`);
          const path = unknownPathValues(t, op, style);
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
          // Unknown values spelled as sellers spell theirs are valid input: the generated valid draw is this request.
          if (t.failures.length === 0) t.proved(validInputProof(op));
        },
      });
    }

    const paged = contract.paged(op);
    if (paged) {
      cases.push({
        id: `negative/${op.operationId}/page_size_out_of_range`,
        phase: 'negative',
        title: `${op.method.toUpperCase()} ${op.path} with size or page out of range: 400`,
        operations: [op.operationId],
        writes: false,
        run: async (t) => {
          // The shared page and size parameters are one rule per area: proven by the first list that takes them.
          const proof = `page_size_out_of_range:${op.area}:${t.contract.parameterComponent(op, paged.sizeParameter)}|${t.contract.parameterComponent(op, paged.pageParameter)}`;
          const by = t.provenBy(proof);
          if (by !== undefined)
            return t.covered(
              by,
              `${paged.sizeParameter.name} and ${paged.pageParameter.name} out of range are refused`,
            );
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
          if (t.failures.length === 0) t.proved(proof);
        },
      });
    }
  }
  return cases;
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

/**
 * A token past its life, when the partner gives one (CLS_EXPIRED_TOKEN; the last run's, kept by the CI cache):
 * AUTH_EXPIRED_TOKEN on a read that takes only a JWT. Its `exp` says whether it has expired yet.
 */
function expiredTokenCases(env: RunEnv): CaseDef[] {
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
          credential: { kind: 'bearer', token: expired, ref: 'CLS_EXPIRED_TOKEN' },
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

/**
 * A body that is not JSON, and one that is JSON but not an object, on every run whatever the seed: 400 with a
 * documented code, never a 5xx. Sent to the public token request (no quota spent) and to one operation that takes a
 * key and a body (the body parser of the keyed areas), and nowhere else: the rule is the body parser's.
 */
function bodyShapeCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const targets = [
    contract.operations.find((op) => op.requestBody && op.security.length === 0),
    contract.operations.find(
      (op) =>
        op.requestBody &&
        !op.path.includes('{') &&
        op.security.some((s) => contract.securityScheme(s)?.type === 'apiKey'),
    ),
  ].filter((op): op is OperationInfo => op !== undefined);
  const bodies = [
    { name: 'body_not_json', what: 'a body that is not JSON', raw: '{"unterminated": ' },
    { name: 'body_not_object', what: 'a JSON body that is not an object', raw: '["not", "an", "object"]' },
  ];
  return targets.flatMap((op) =>
    bodies.map(
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
