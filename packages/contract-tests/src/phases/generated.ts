// Property-based inputs drawn from the schemas (seeded): valid queries and bodies must not be rejected as format
// errors, and each deliberately broken parameter, path value or body must be rejected with 400 and a documented
// code. `--runs N` draws N of each per operation. A broken input that only a design refuses (the relaxed contract
// accepts it, or its parameter is `x-provisional`) may rightly be accepted: then it is a provisional departure.
import type { JsonSchema, OperationInfo } from '@cls-api/spec';
import { errorCode, type CaseContext, type CaseDef, type RunEnv } from '../run/case.js';
import { draw, NUMBER_SPELLINGS } from '../contract/generate.js';
import { knownPathValues, reachablePathValues } from './shared/paths.js';
import { BudgetSkip, Skip } from '../run/http.js';
import {
  formatErrorCodes,
  invalidBodyProof,
  invalidParameterProof,
  provisionalReason,
  unknownPathValues,
  unknownResourceProof,
  validInputProof,
  validQuery,
} from './shared/inputs.js';

/** An object schema with no declared properties hands its validation to something else (an MCP tool's arguments). */
function hasOpenObject(t: CaseContext, schema: JsonSchema | undefined, depth = 0): boolean {
  if (!schema || depth > 6) return false;
  const s = t.contract.resolve(schema);
  if (s.type === 'object' && !s.properties) return true;
  for (const sub of Object.values((s.properties ?? {}) as Record<string, JsonSchema>)) {
    if (hasOpenObject(t, sub, depth + 1)) return true;
  }
  return s.items ? hasOpenObject(t, s.items as JsonSchema, depth + 1) : false;
}

/**
 * Path values naming the kit's own records where it has them, else values naming nothing: a read-only run without an
 * order of the seller's still sends its request, as it did before it was asked for a success.
 */
async function ownPathValues(t: CaseContext, op: OperationInfo): Promise<Record<string, string | number>> {
  try {
    return (await reachablePathValues(t, op)).path;
  } catch (err) {
    if (err instanceof Skip && !(err instanceof BudgetSkip)) return unknownPathValues(t, op);
    throw err;
  }
}

export function generatedCases(env: RunEnv): CaseDef[] {
  const { contract } = env;
  const cases: CaseDef[] = [];
  for (const op of contract.operations) {
    const writes = op.method !== 'get' && op.security.length > 0;
    const hasPath = op.parameters.some((p) => p.in === 'path');
    const hasQuery = op.parameters.some((p) => p.in === 'query');
    if (!hasQuery && !op.requestBody && !hasPath) continue;

    // A read named only by its path: the unknown resource of the negative phase (valid values, spelled as sellers
    // spell theirs, 404 expected) is the same request and proves more; one request, not two.
    const provenByUnknownResource =
      op.method === 'get' && !hasQuery && !op.requestBody && contract.responseFor(op, 404) !== undefined;
    if (!provenByUnknownResource)
      cases.push({
        id: `generated/${op.operationId}/valid`,
        phase: 'generated',
        title: `${op.method.toUpperCase()} ${op.path} with ${env.runs} generated valid input(s): never a format error`,
        operations: [op.operationId],
        writes,
        run: async (t) => {
          // A request example or an unknown resource of the operation already proved that a valid input is taken (one
          // draw a run only). A read whose success no answer has shown yet is still asked once (below), so that its
          // success body is judged: a 404 proves the input well-formed, not the body a success would bring.
          const byExample = env.runs === 1 ? t.provenBy(validInputProof(op)) : undefined;
          const unseen = op.method === 'get' && !t.env.evidence.succeeded(op.operationId);
          if (byExample !== undefined && !unseen)
            return t.covered(byExample, 'a valid input of it is not a format error');
          // A read with only shared query parameters: valid values of each are taken, a rule of the parameter
          // component within the area, proven by the first read that sent it. Valid path values naming nothing are
          // not found, a rule of the path parameter kind within the area (the negative phase's unknown resource).
          const shared =
            op.method === 'get' && !op.requestBody
              ? op.parameters
                  .filter((p) => p.in === 'query')
                  .map((p) => ({
                    name: p.name,
                    proof: `valid_parameter:${op.area}:${contract.parameterComponent(op, p)}`,
                  }))
              : [];
          const pathProof =
            hasPath && !op.requestBody && (op.method === 'get' || !hasQuery) ? unknownResourceProof(t, op) : undefined;
          const covering = [
            ...shared.map((p) => t.provenBy(p.proof)),
            ...(hasPath ? [pathProof ? t.provenBy(pathProof) : undefined] : []),
          ];
          // Shared parameters prove only that the values are taken, not what a success of this read brings (a list
          // of suppliers is not a list of orders).
          if (covering.length > 0 && covering.every((by) => by !== undefined) && !unseen) {
            for (const by of new Set(covering)) t.covered(by!, 'valid values of its parameters are taken');
            return;
          }
          for (let i = 0; i < env.runs; i++) {
            const body = op.requestBody?.schema
              ? t.env.records.brand(op, draw(t.env.generator.valid(op.requestBody.schema), t.env.random))
              : undefined;
            // A read whose success no answer has shown yet is asked for the kit's own records (its product, its
            // order), with its required parameters only, so that it can succeed and its success body be judged.
            const own = i === 0 && unseen;
            const query = own ? validQuery(t, op, { optional: false }) : validQuery(t, op);
            // A shared parameter no read of the area has sent yet is sent here, so that it is proven once.
            for (const p of shared) {
              const param = op.parameters.find((x) => x.in === 'query' && x.name === p.name);
              // Not a filter naming a record, on a read asked for its success: it would name nothing of the kit's.
              if (own && param?.schema && contract.isIdentifier(param.schema)) continue;
              if (!(p.name in query) && !t.provenBy(p.proof) && param?.schema)
                query[p.name] = draw(t.env.generator.valid(param.schema), t.env.random) as string | number;
            }
            const ex = await t.call(op, {
              path: own ? await ownPathValues(t, op) : unknownPathValues(t, op),
              query,
              ...(body !== undefined ? { body } : {}),
            });
            const status = ex.response.status;
            const code = errorCode(ex.response.json);
            if (status === contract.successStatus(op)) for (const p of shared) if (p.name in query) t.proved(p.proof);
            // A valid request may name resources the server does not hold (404), repeat one (409), or, on a public
            // operation, carry credentials nobody issued (401); it is never a format error, unless part of the body
            // is an open object validated elsewhere.
            const allowed = [contract.successStatus(op), 404, 409, ...(op.security.length === 0 ? [401] : [])];
            if (hasOpenObject(t, op.requestBody?.schema)) allowed.push(400);
            t.expect(ex, op, {
              status: allowed.filter((s) => s === contract.successStatus(op) || contract.responseFor(op, s)),
              why: 'a request valid against the contract',
            });
            if (status === 400) t.note(`400 ${code ?? ''} for a valid body with an open object`);
          }
        },
      });

    cases.push({
      id: `generated/${op.operationId}/invalid`,
      phase: 'generated',
      title: `${op.method.toUpperCase()} ${op.path} with ${env.runs} generated invalid input(s): 400`,
      operations: [op.operationId],
      writes,
      run: async (t) => {
        // A broken path or query parameter that is the same component as one another operation of the area already
        // saw refused is proven: the draw is made among the rest. A body is the operation's own.
        const proven = (key: string | undefined) => (key !== undefined ? t.provenBy(key) : undefined);
        const all = await invalidInputs(t, op, (key) => proven(key) === undefined);
        const variants = all.filter((v) => proven(v.proof) === undefined);
        if (all.length === 0) {
          const covering = [
            ...op.parameters.filter((p) => p.in !== 'header').map((p) => proven(invalidProof(t, op, p))),
            ...(op.requestBody?.schema ? [proven(invalidBodyProof(op))] : []),
          ].filter((by): by is string => by !== undefined);
          if (covering.length === 0)
            t.skip('no input of this operation can be made invalid without naming an unknown resource');
          for (const by of new Set(covering)) t.covered(by, 'its parameters and body, broken, are refused with 400');
          return;
        }
        for (let i = 0; i < env.runs && variants.length > 0; i++) {
          const pick = variants.splice(Math.floor(t.env.random() * variants.length), 1)[0]!;
          t.note(pick.label);
          const failuresBefore = t.failures.length;
          const ex = await t.call(op, pick.input);
          t.expect(ex, op, {
            status: 400,
            code: formatErrorCodes(t, op, pick.missing),
            why: pick.label,
            ...(pick.provisional ? { provisional: pick.provisional } : {}),
          });
          if (pick.proof && t.failures.length === failuresBefore) t.proved(pick.proof);
        }
      },
    });
  }
  return cases;
}

/**
 * The rule "this parameter, broken, is refused": one per area and query parameter component (contract.ts), and one
 * per area and path parameter schema (a path value is refused by its schema before anything is looked up).
 */
function invalidProof(t: CaseContext, op: OperationInfo, p: OperationInfo['parameters'][number]): string {
  if (p.in === 'path') return `invalid_path:${op.area}:${JSON.stringify(t.contract.resolve(p.schema))}`;
  return invalidParameterProof(t, op, p);
}

/**
 * Why an integer spelled other than in decimal digits may rightly be taken: the syntax is a design of ours
 * (info.x-limits.query_integer_syntax, DECISIONS.md G23), on every integer parameter, even one whose bounds the
 * source shows (a page is 1-based).
 */
const INTEGER_SYNTAX_DESIGNED =
  'the syntax of integer query parameters (decimal digits only, info.x-limits.query_integer_syntax) is designed, not shown by the source';

interface InvalidInput {
  label: string;
  /** The rule it proves: a parameter's (one per area and component) or the operation's body's. */
  proof?: string;
  missing: boolean;
  /** Why refusing it rests on a design only, when it does. */
  provisional?: string | undefined;
  input: {
    path: Record<string, string | number>;
    query: Record<string, string | number>;
    body?: unknown;
    rawBody?: string;
  };
}

/**
 * Broken inputs that cannot be mistaken for an unknown resource: a malformed path value on its own; a bad query or
 * body with path values that name resources the kit knows exist (else 404 may rightly come first).
 */
async function invalidInputs(
  t: CaseContext,
  op: OperationInfo,
  open: (proof: string) => boolean,
): Promise<InvalidInput[]> {
  const out: InvalidInput[] = [];
  const gen = t.env.generator;
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const baseQuery = validQuery(t, op, { optional: false });
  const baseBody = op.requestBody?.schema
    ? t.env.records.brand(op, draw(gen.valid(op.requestBody.schema), t.env.random))
    : undefined;
  const unknownPath = unknownPathValues(t, op);
  const withBody = baseBody !== undefined ? { body: baseBody } : {};

  for (const p of pathParams) {
    const proof = invalidProof(t, op, p);
    if (!open(proof)) continue;
    for (const v of gen.breakScalar(t.contract.resolve(p.schema), unknownPath[p.name])) {
      if (typeof v.value !== 'string' || v.value === '' || v.value.includes('\n')) continue;
      out.push({
        label: `path ${p.name}: ${v.label}`,
        proof,
        missing: false,
        provisional: provisionalReason(t, p.schema, v.value, p),
        input: { path: { ...unknownPath, [p.name]: v.value }, query: baseQuery, ...withBody },
      });
    }
  }
  // Nothing left to break but what other cases proved: no read of known path values either.
  const queryParams = op.parameters.filter((x) => x.in === 'query' && open(invalidProof(t, op, x)));
  const bodyProof = invalidBodyProof(op);
  const breakBody = op.requestBody?.schema !== undefined && baseBody !== undefined && open(bodyProof);
  if (queryParams.length === 0 && !breakBody) return out;
  let path: Record<string, string | number> = {};
  if (pathParams.length > 0) {
    try {
      path = await knownPathValues(t, op);
    } catch (err) {
      if (err instanceof Skip) return out;
      throw err;
    }
  }

  for (const p of queryParams) {
    const proof = invalidProof(t, op, p);
    const schema = t.contract.resolve(p.schema);
    if (p.required) {
      const query = { ...baseQuery };
      delete query[p.name];
      out.push({
        label: `query ${p.name}: required parameter missing`,
        proof,
        missing: true,
        provisional: provisionalReason(t, undefined, undefined, p),
        input: { path, query, ...withBody },
      });
    }
    for (const v of gen.breakScalar(schema, baseQuery[p.name])) {
      if (typeof v.value === 'number' || (typeof v.value === 'string' && !v.value.includes('\n'))) {
        // A query string carries text: 12345 as a "wrong type" for a string is still a string there.
        if (schema.type === 'string' && typeof v.value === 'number') continue;
        out.push({
          label: `query ${p.name}: ${v.label}`,
          proof,
          missing: false,
          provisional: provisionalReason(t, p.schema, v.value, p),
          input: { path, query: { ...baseQuery, [p.name]: v.value }, ...withBody },
        });
      }
    }
    // An integer written other than in decimal digits (info.x-limits.query_integer_syntax, DECISIONS.md G23): a
    // lenient number parser takes `1e1` as 10 and `1e309` as Infinity; the contract's answer is 400.
    const syntax = t.contract.limits.queryIntegerSyntax;
    if (schema.type === 'integer') {
      for (const spelling of NUMBER_SPELLINGS.filter((x) => !syntax.test(x))) {
        out.push({
          label: `query ${p.name}: ${JSON.stringify(spelling)} is not written in decimal digits`,
          proof,
          missing: false,
          provisional: provisionalReason(t, undefined, undefined, p) ?? INTEGER_SYNTAX_DESIGNED,
          input: { path, query: { ...baseQuery, [p.name]: spelling }, ...withBody },
        });
      }
    }
  }
  if (breakBody && op.requestBody?.schema) {
    for (const v of gen.invalidVariants(op.requestBody.schema, baseBody)) {
      out.push({
        label: v.label,
        proof: bodyProof,
        missing: v.missing,
        provisional: provisionalReason(t, op.requestBody.schema, v.value),
        input: { path, query: baseQuery, body: v.value },
      });
    }
    out.push({
      label: 'body: not JSON',
      proof: bodyProof,
      missing: false,
      input: { path, query: baseQuery, rawBody: '{"unterminated": ' },
    });
  }
  return out;
}
