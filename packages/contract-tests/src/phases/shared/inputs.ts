// Request inputs derived from the contract: path values, query strings and bodies, valid or deliberately broken.
import { ServiceTime, type JsonSchema, type OperationInfo, type ParameterInfo } from '@cls-api/spec';
import type { CaseContext } from '../../run/case.js';
import { draw } from '../../contract/generate.js';

/** A value for `key` anywhere in a JSON value (first match, depth first). */
export function findDeep(value: unknown, key: string): unknown {
  if (!value || typeof value !== 'object') return undefined;
  if (!Array.isArray(value) && key in (value as Record<string, unknown>)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== null && v !== '' && typeof v !== 'object') return v;
  }
  for (const child of Object.values(value as Record<string, unknown>)) {
    const found = findDeep(child, key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Path values for an operation: taken from the operation's own response examples when they name the parameter
 * (so a request example addresses the resource its response example shows), else drawn from the schema.
 */
export function examplePathValues(t: CaseContext, op: OperationInfo): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    let value: unknown;
    for (const res of Object.values(op.responses)) {
      if (Number(res.status) >= 400) continue;
      for (const ex of Object.values(res.examples)) {
        value ??= findDeep(ex.value, p.name);
      }
    }
    if (value !== undefined && p.schema && t.contract.validate(p.schema, value).length === 0) {
      out[p.name] = value as string | number;
    } else {
      out[p.name] = unknownValue(t, p);
    }
  }
  return out;
}

/** A valid value for a path parameter that names no existing resource (`style`: see `unknownIdentifier`). */
export function unknownValue(t: CaseContext, p: ParameterInfo, style?: number): string {
  return t.env.generator.unknownIdentifier(p.schema ?? { type: 'string' }, t.env.random, style);
}

export function unknownPathValues(t: CaseContext, op: OperationInfo, style?: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) out[p.name] = unknownValue(t, p, style);
  return out;
}

/**
 * Why refusing an input rests on a design only, or undefined when the source's contract refuses it too: the
 * parameter it goes in is `x-provisional` (its existence, requiredness and bounds are designed), or the relaxed
 * contract accepts the value (spec/README.md, "Provisional"). The server may then rightly accept it.
 */
export function provisionalReason(
  t: CaseContext,
  schema: JsonSchema | undefined,
  value: unknown,
  parameter?: { name: string; in: string; provisional?: boolean },
): string | undefined {
  if (parameter?.provisional)
    return `the ${parameter.in} parameter ${parameter.name} is x-provisional: its bounds and syntax are designed, not shown by the source`;
  if (schema && t.contract.provisionalInput(schema, value))
    return 'only a design of ours refuses this input: the relaxed contract (what the source shows) accepts it';
  return undefined;
}

/** Whether values of this schema look like the contract's dates (so that pairs can be put in order). */
function isDateLike(t: CaseContext, schema: JsonSchema | undefined): boolean {
  const s = t.contract.resolve(schema);
  return typeof s.pattern === 'string' && new RegExp(s.pattern, 'u').test('2026-11-20');
}

/**
 * A valid query: required parameters always, optional ones at random. Date-like values are put in ascending
 * order of declaration, so a `date_from` never follows its `date_to`.
 */
export function validQuery(
  t: CaseContext,
  op: OperationInfo,
  options: { optional?: boolean } = {},
): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  const dated: string[] = [];
  for (const p of op.parameters.filter((x) => x.in === 'query')) {
    if (!p.required && !(options.optional ?? true)) continue;
    if (!p.required && t.env.random() < 0.5) continue;
    if (!p.schema) continue;
    out[p.name] = draw(t.env.generator.valid(p.schema), t.env.random) as string | number;
    if (isDateLike(t, p.schema)) dated.push(p.name);
  }
  const sorted = dated.map((n) => String(out[n])).sort();
  dated.forEach((n, i) => {
    out[n] = sorted[i]!;
  });
  return out;
}

/** A request body: the first request example, else a value drawn from the schema. */
export function someValidBody(t: CaseContext, op: OperationInfo): unknown {
  const body = op.requestBody;
  if (!body) return undefined;
  const first = Object.values(body.examples)[0];
  if (first) return first.value;
  return body.schema ? draw(t.env.generator.valid(body.schema), t.env.random) : undefined;
}

/**
 * The code for a format error: REQUIRED_PARAMETER when an item is missing, INVALID_PARAMETER otherwise, as the
 * catalogue describes them, each only where the operation documents it.
 */
export function formatErrorCodes(t: CaseContext, op: OperationInfo, missing: boolean): string[] {
  const documented = t.contract.responseFor(op, 400)?.errorCodes ?? [];
  const wanted = missing ? 'REQUIRED_PARAMETER' : 'INVALID_PARAMETER';
  return documented.includes(wanted) ? [wanted] : documented;
}

/** Today's date in the service time zone, minus `days`: the `YYYY-MM-DD` the list filters take. */
export function serviceDate(t: CaseContext, daysAgo = 0): string {
  const at = new Date(t.env.now() - daysAgo * 86_400_000);
  return t.contract.time.dateOf(ServiceTime.seconds(at));
}

/** A fresh identifier valid for `schema`, for a record the kit creates: the run's record prefix (records.ts). */
export function freshId(t: CaseContext, schema: JsonSchema | undefined, prefix = ''): string {
  return t.env.records.freshId(schema, prefix);
}

/**
 * The rule "a valid input of this operation is never a format error": proven by a request the kit sends as valid
 * (a request example, an unknown resource spelled as sellers spell theirs), so the generated phase's valid draw of
 * the operation is not sent again.
 */
export function validInputProof(op: OperationInfo): string {
  return `valid_input:${op.operationId}`;
}

/**
 * The rule "a malformed body of this operation is refused with 400": proven by an x-invalid-example refused as stated,
 * or by a bulk body with one malformed row (a generated variant of the row), so the generated phase's broken body of
 * the operation is not sent again.
 */
export function invalidBodyProof(op: OperationInfo): string {
  return `invalid_body:${op.operationId}`;
}

/** The kinds (parameter components) of an operation's path parameters, sorted. */
export function pathKinds(t: CaseContext, op: OperationInfo): string[] {
  return op.parameters
    .filter((p) => p.in === 'path')
    .map((p) => t.contract.parameterComponent(op, p))
    .sort();
}

/**
 * The rule "this operation answers an unknown resource with its 404": one per operation, since each operation looks
 * its resources up on its own (a server can get one lookup right and its neighbour wrong). A request example of the
 * same operation naming a resource the server does not hold proves it as well as the negative phase's made-up value.
 */
export function unknownResourceProof(t: CaseContext, op: OperationInfo): string | undefined {
  return pathKinds(t, op).length > 0 || t.contract.responseFor(op, 404)
    ? `unknown_resource:${op.operationId}`
    : undefined;
}

/** The rule "this operation answers this error code where the code's rule says": reached by an earlier case. */
export function codeReachedProof(op: OperationInfo, code: string): string {
  return `code_reached:${op.operationId}:${code}`;
}

/** The rule "this query parameter, broken, is refused": one per area and parameter component (contract.ts). */
export function invalidParameterProof(t: CaseContext, op: OperationInfo, p: ParameterInfo): string {
  return `invalid_parameter:${op.area}:${t.contract.parameterComponent(op, p)}`;
}
