// The negative rules of the source: missing credential, invalid credential, an API key on the JWT-only area, a key
// of another area, unknown resources, and page or size out of range. Codes are named here because the rules name
// them; their statuses come from the catalogue and each must be documented by the operation.
import type { OperationInfo } from '@cls-api/spec';
import type { CaseContext, CaseDef, RunEnv } from '../case.js';
import { knownPathValues } from '../fixtures.js';
import { formatErrorCodes, someValidBody, unknownPathValues, unknownValue, validQuery } from '../inputs.js';

function requireDocumented(t: CaseContext, op: OperationInfo, code: string): number {
  const status = t.contract.statusOf(code);
  if (!t.contract.documents(op, code)) {
    t.assert(false, 'expected_outcome', `${op.operationId} to document ${code} on ${status} (the source's rule)`, 'not documented', undefined, op);
    t.skip(`${op.operationId} does not document ${code}`);
  }
  return status;
}

/** A pattern of codes and numbers (`^[A-Za-z0-9_-]{1,40}$`), as opposed to free text. */
const IDENTIFIER = /^\^\[A-Za-z0-9_-\]/;

function madeUpKey(t: CaseContext, area: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let random = '';
  for (let i = 0; i < 32; i++) random += alphabet[Math.floor(t.env.random() * alphabet.length)];
  return `${area}_test_${random}`;
}

export function negativeCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  const keyAreas = new Set([...env.keys, ...env.otherKeys].map((k) => k.area));

  for (const op of contract.operations) {
    if (op.security.length === 0) continue;
    const writes = op.method !== 'get';
    const usesApiKey = op.security.some((s) => contract.securityScheme(s)?.type === 'apiKey');
    const usesBearer = op.security.some((s) => {
      const scheme = contract.securityScheme(s);
      return scheme?.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer';
    });
    const request = (t: CaseContext) => ({
      path: unknownPathValues(t, op),
      query: validQuery(t, op, { optional: false }),
      ...(op.requestBody ? { body: someValidBody(t, op) } : {}),
    });

    cases.push({
      id: `negative/${op.operationId}/missing_credential`,
      phase: 'negative',
      title: `${op.method.toUpperCase()} ${op.path} without a credential: AUTH_MISSING_TOKEN`,
      operations: [op.operationId],
      writes,
      run: async (t) => {
        const status = requireDocumented(t, op, 'AUTH_MISSING_TOKEN');
        const ex = await t.call(op, { ...request(t), credential: { kind: 'none' } });
        t.expect(ex, op, { status, code: 'AUTH_MISSING_TOKEN', why: 'missing credential' });
      },
    });

    cases.push({
      id: `negative/${op.operationId}/invalid_credential`,
      phase: 'negative',
      title: `${op.method.toUpperCase()} ${op.path} with an invalid credential: AUTH_INVALID_TOKEN`,
      operations: [op.operationId],
      writes,
      run: async (t) => {
        const status = requireDocumented(t, op, 'AUTH_INVALID_TOKEN');
        const headers: Record<string, string> = usesApiKey
          ? { [t.apiKeyHeader(op)]: madeUpKey(t, keyAreas.has(op.area) ? op.area : (env.keys[0]?.area ?? op.area)) }
          : // Well-formed but signed by nobody: three base64url parts.
            { Authorization: 'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJub2JvZHkifQ.aW52YWxpZC1zaWduYXR1cmU' };
        const ex = await t.call(op, { ...request(t), credential: { kind: 'raw', headers } });
        t.expect(ex, op, { status, code: 'AUTH_INVALID_TOKEN', why: 'invalid key or token' });
      },
    });

    if (usesBearer && !usesApiKey) {
      cases.push({
        id: `negative/${op.operationId}/api_key_on_jwt_area`,
        phase: 'negative',
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
          const ex = await t.call(op, { path: unknownPathValues(t, op), query: unknownQuery(t, op), ...(op.requestBody ? { body: unknownBody(t, op) } : {}) });
          t.expect(ex, op, { status: 404, code: notFound.errorCodes, why: 'a resource that does not exist' });
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
          const path = await knownPathValues(t, op);
          const out: Array<[string, number]> = [];
          const size = t.contract.resolve(paged.sizeParameter.schema);
          const page = t.contract.resolve(paged.pageParameter.schema);
          if (typeof size.maximum === 'number') out.push([paged.sizeParameter.name, size.maximum + 1]);
          if (typeof size.minimum === 'number') out.push([paged.sizeParameter.name, size.minimum - 1]);
          if (typeof page.minimum === 'number') out.push([paged.pageParameter.name, page.minimum - 1]);
          for (const [name, value] of out) {
            const ex = await t.call(op, { path, query: { ...validQuery(t, op, { optional: false }), [name]: value } });
            t.expect(ex, op, { status: 400, code: formatErrorCodes(t, op, false), why: `${name}=${value} is out of range` });
          }
        },
      });
    }
  }
  return cases;
}

/**
 * A valid body whose identifiers name nothing on the server: the first request example, with every value that the
 * schema types as an identifier pattern replaced by an unknown one where the operation can answer 404 for it.
 */
function unknownBody(t: CaseContext, op: OperationInfo): unknown {
  const body = someValidBody(t, op) as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || !op.requestBody?.schema) return body;
  const schema = t.contract.resolve(op.requestBody.schema);
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = { ...body };
  for (const [name, sub] of Object.entries(props)) {
    const resolved = t.contract.resolve(sub);
    // Identifier-like: a string with a code pattern and a bounded length; free text (names, reasons) is left alone.
    if (resolved.type === 'string' && typeof resolved.pattern === 'string' && IDENTIFIER.test(resolved.pattern) && name in out) {
      out[name] = t.env.generator.unknownIdentifier(sub, t.env.random);
    }
  }
  return out;
}

/** Required query values, plus every identifier-like filter set to a value that names nothing (`product_code`). */
function unknownQuery(t: CaseContext, op: OperationInfo): Record<string, string | number> {
  const query = validQuery(t, op, { optional: false });
  for (const p of op.parameters.filter((x) => x.in === 'query')) {
    const s = t.contract.resolve(p.schema);
    if (s.type === 'string' && typeof s.pattern === 'string' && IDENTIFIER.test(s.pattern)) query[p.name] = unknownValue(t, p);
  }
  return query;
}
