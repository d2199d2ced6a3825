// A request without a credential, with a made-up one of each scheme the operation accepts, with an API key on the
// JWT-only area, and with a key of another area: each refused with the code the source's rule names.
import type { OperationInfo } from '@cls-api/spec';
import type { CaseContext, CaseDef, RunEnv } from '../../run/case.js';
import { someValidBody, unknownPathValues, validQuery } from '../shared/inputs.js';

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

/** The request of every credential case: the credential is all that is wrong in it. */
function credentialRequest(t: CaseContext, op: OperationInfo) {
  return {
    path: unknownPathValues(t, op),
    query: validQuery(t, op, { optional: false }),
    ...(op.requestBody ? { body: someValidBody(t, op) } : {}),
  };
}

export function credentialCases(env: RunEnv, op: OperationInfo): CaseDef[] {
  return [missingCredentialCase(op), ...invalidCredentialCases(env, op), ...wrongCredentialCases(env, op)];
}

function missingCredentialCase(op: OperationInfo): CaseDef {
  return {
    id: `negative/${op.operationId}/missing_credential`,
    phase: 'negative',
    concern: 'authentication',
    title: `${op.method.toUpperCase()} ${op.path} without a credential: AUTH_MISSING_TOKEN`,
    operations: [op.operationId],
    writes: op.method !== 'get',
    run: async (t) => {
      const status = requireDocumented(t, op, 'AUTH_MISSING_TOKEN');
      const ex = await t.call(op, { ...credentialRequest(t, op), credential: { kind: 'none' } });
      t.expect(ex, op, { status, code: 'AUTH_MISSING_TOKEN', why: 'missing credential' });
    },
  };
}

function invalidCredentialCases(env: RunEnv, op: OperationInfo): CaseDef[] {
  const { contract } = env;
  const keyAreas = new Set([...env.keys, ...env.otherKeys].map((k) => k.area));
  // One case per scheme the operation accepts (the manager area takes an API key or a JWT): a made-up credential
  // of that scheme is AUTH_INVALID_TOKEN. The schemes come from the operation's `security`.
  const schemes = op.security.filter((s) => contract.isApiKeyScheme(s) || contract.isBearerScheme(s));
  return schemes.map((scheme): CaseDef => {
    const apiKey = contract.isApiKeyScheme(scheme);
    return {
      id: `negative/${op.operationId}/invalid_credential${schemes.length > 1 ? `/${scheme}` : ''}`,
      phase: 'negative',
      concern: 'authentication',
      title: `${op.method.toUpperCase()} ${op.path} with an invalid ${apiKey ? 'API key' : 'bearer token'}: AUTH_INVALID_TOKEN`,
      operations: [op.operationId],
      writes: op.method !== 'get',
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
        const ex = await t.call(op, { ...credentialRequest(t, op), credential: { kind: 'raw', headers } });
        t.expect(ex, op, {
          status,
          code: 'AUTH_INVALID_TOKEN',
          why: `invalid ${apiKey ? 'key' : 'token'} (${scheme})`,
        });
      },
    };
  });
}

/** A valid credential where it does not belong: an API key on the JWT-only area, a key of another area. */
function wrongCredentialCases(env: RunEnv, op: OperationInfo): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  const writes = op.method !== 'get';
  const keyAreas = new Set([...env.keys, ...env.otherKeys].map((k) => k.area));
  const usesApiKey = op.security.some((s) => contract.isApiKeyScheme(s));
  const usesBearer = op.security.some((s) => contract.isBearerScheme(s));
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
        const ex = await t.call(op, { ...credentialRequest(t, op), credential: key });
        t.expect(ex, op, { status, code: 'AUTH_FORBIDDEN', why: `the ${op.area} area is JWT only` });
      },
    });
  }
  // The areas whose keys the operation takes (its schemes' `x-key-area`): a key of any other area is refused.
  const accepted = contract.keyAreasOf(op);
  const takes = (area: string) => (accepted.length > 0 ? accepted.includes(area) : area === op.area);
  // An operation that takes the keys of every area (the MCP area) refuses none for its area.
  const everyArea = Object.keys(contract.doc.components?.securitySchemes ?? {}).flatMap((name) =>
    contract.keyAreasOf({ ...op, security: [name] }),
  );
  const refusesSome = accepted.length === 0 || everyArea.some((area) => !takes(area));
  if (usesApiKey && refusesSome && [...keyAreas].some(takes)) {
    cases.push({
      id: `negative/${op.operationId}/key_of_another_area`,
      phase: 'negative',
      concern: 'authentication',
      title: `${op.method.toUpperCase()} ${op.path} with a key of another area: AUTH_FORBIDDEN`,
      operations: [op.operationId],
      writes,
      run: async (t) => {
        const status = requireDocumented(t, op, 'AUTH_FORBIDDEN');
        const key = env.keys.find((k) => !takes(k.area)) ?? t.skip(`no API key of an area other than ${op.area}`);
        const ex = await t.call(op, { ...credentialRequest(t, op), credential: key });
        t.expect(ex, op, { status, code: 'AUTH_FORBIDDEN', why: `a ${key.area} key on the ${op.area} area` });
      },
    });
  }
  return cases;
}
