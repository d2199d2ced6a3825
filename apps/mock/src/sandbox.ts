// The reference sandbox's helpers (`/sandbox/`), answered by the front server itself from their own document
// (@cls-api/spec/sandbox.json, spec/DECISIONS.md G31), never from the contract Prism serves: a client's sandbox calls
// can be tried against the mock too. Stateless, as the rest of the mock: a reset removes nothing and the clock never
// moves; each answer is a documented example of that helper, and what the sandbox would refuse (no credential, a
// live key, a body against its schema) is refused here the same way. A forced outcome (`X-Sandbox-Outcome` on a
// `/v3/` operation) becomes the operation's own named example of that answer, as a `Prefer` would ask for it.
import { describeRequestError, schemaAt } from '@cls-api/server';
import {
  apiKeyShape,
  bulkRows,
  documentValidator,
  failedRowsOf,
  liveCredentialMessage,
  loadSandboxSpec,
  operations,
  pastLastTimeMessage,
  rowBeyondRequest,
  sandboxClockLastTime,
  sandboxOutcomes,
  type SandboxOutcome,
  type SandboxOutcomeFacts,
  undeclaredOutcomeMessage,
  unknownOutcomeMessage,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
  type SchemaValidator,
} from '@cls-api/spec';
import type { Contract, ErrorRole } from './contract.js';
import { errorResponse, type Preference, schemeToken, type ShapedResponse, unknownRoute } from './shape.js';

/** The path prefix of the sandbox's helpers. */
export const SANDBOX_PREFIX = '/sandbox/';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The request's body, parsed; undefined when it is not JSON (the rows it holds are then none). */
function parsedBody(body: Buffer | undefined): unknown {
  try {
    return JSON.parse(body?.toString('utf8') ?? '');
  } catch {
    return undefined;
  }
}

export class SandboxHelpers {
  readonly doc: OpenApiDocument;
  readonly operations: readonly OperationInfo[];
  private readonly validator: SchemaValidator;
  private readonly forced: SandboxOutcomeFacts;
  /** The last time the test clock shows (`x-last-time`): the mock's clock never moves, but a later `at` is refused. */
  private readonly clockLastTime: string;

  constructor(
    private readonly contract: Contract,
    doc: OpenApiDocument = loadSandboxSpec(),
  ) {
    this.doc = doc;
    this.operations = operations(doc);
    this.validator = documentValidator(doc);
    this.forced = sandboxOutcomes(doc);
    this.clockLastTime = sandboxClockLastTime(doc);
  }

  /**
   * For a `/v3/` request that asks for a forced outcome: the `Prefer` that serves the operation's example of it, or
   * the refusal the sandbox gives (a live key, an outcome the operation does not declare, failed rows it would not
   * take); undefined without one. `body` is the request's, for the rows `X-Sandbox-Failed-Rows` may name.
   */
  forcedOutcome(
    op: OperationInfo,
    headers: Record<string, string | string[] | undefined>,
    body?: Buffer,
  ): { prefer: Preference } | { refused: ShapedResponse } | undefined {
    const header = (name: string) => {
      const raw = headers[name.toLowerCase()];
      return (Array.isArray(raw) ? raw[0] : raw)?.trim();
    };
    const outcome = header(this.forced.outcomeHeader);
    const failedRows = header(this.forced.failedRowsHeader);
    if (outcome === undefined && failedRows === undefined) return undefined;
    const refuse = (message: string) => ({ refused: errorResponse(this.contract, 'invalid', message, op) });
    const credential = this.credentialOf(op, headers);
    if (credential?.live)
      return { refused: errorResponse(this.contract, 'wrongCredential', liveCredentialMessage('Forced outcomes'), op) };
    // Checked as the sandbox checks it, though not applied: the failed rows answered are the example's.
    const rows = failedRows === undefined ? undefined : failedRowsOf(this.forced, outcome, failedRows);
    if (outcome === undefined) return rows && 'refused' in rows ? refuse(rows.refused) : undefined;
    if (!this.forced.outcomes.has(outcome as never)) return refuse(unknownOutcomeMessage(this.forced, outcome));
    const forced = outcome as SandboxOutcome;
    // A JWT has no monthly quota: no operation called with one declares that outcome (the reference server's rule).
    if (forced === 'quota_exceeded' && credential?.jwt)
      return refuse(undeclaredOutcomeMessage(this.forced, forced, op.operationId, true));
    const scenarios = this.contract.scenariosOf(op);
    const retryAfter = (h: Record<string, string>) => Object.keys(h).some((n) => n.toLowerCase() === 'retry-after');
    const found =
      outcome === 'internal_error'
        ? scenarios.find((s) => s.status === '500')
        : outcome === 'quota_exceeded'
          ? scenarios.find((s) => s.status === '429' && retryAfter(s.headers))
          : outcome === 'gateway_throttled'
            ? scenarios.find((s) => s.status === '429' && !retryAfter(s.headers))
            : scenarios.find(
                (s) =>
                  s.status === '200' &&
                  Number((s.value as { data?: { failed_count?: unknown } }).data?.failed_count) > 0,
              );
    if (!found) return refuse(undeclaredOutcomeMessage(this.forced, forced, op.operationId, false));
    if (rows && 'refused' in rows) return refuse(rows.refused);
    const beyond = rows && rowBeyondRequest(this.forced, rows.rows, bulkRows(parsedBody(body)).length);
    if (beyond) return refuse(beyond);
    return { prefer: { code: found.status, example: found.example, rest: [] } };
  }

  /** Whether a path is the sandbox's, which this answers, and not the contract's. */
  static owns(pathname: string): boolean {
    return pathname.startsWith(SANDBOX_PREFIX);
  }

  /** The answer to a request under `/sandbox/`. */
  answer(
    method: string,
    pathname: string,
    headers: Record<string, string | string[] | undefined>,
    body: Buffer,
    prefer: Preference,
  ): ShapedResponse {
    const op = this.helper(method, pathname);
    if (!op) return unknownRoute(this.contract, method, pathname);
    const refused = this.refuseCredential(op, headers);
    if (refused) return refused;
    let input: unknown;
    if (op.requestBody) {
      const text = body.toString('utf8');
      if (text.trim() === '') {
        if (op.requestBody.required)
          return errorResponse(this.contract, 'missing', 'The request body is required.', op);
      } else {
        try {
          input = JSON.parse(text);
        } catch {
          return errorResponse(this.contract, 'invalid', 'The request body is not valid JSON.', op);
        }
        const refused = this.refuseBody(op, input);
        if (refused) return refused;
        // Validated: a DateTime, which orders as text does.
        const at = op.operationId === 'setSandboxClock' ? (input as { at?: unknown }).at : undefined;
        if (typeof at === 'string' && at > this.clockLastTime)
          return errorResponse(this.contract, 'invalid', pastLastTimeMessage(this.clockLastTime, 'at'), op);
      }
    }
    return this.example(op, prefer, input);
  }

  /** The helper at `method` and `pathname`; undefined when the sandbox has none there. */
  helper(method: string, pathname: string): OperationInfo | undefined {
    const m = method.toLowerCase();
    return this.operations.find((o) => o.path === pathname && o.method === m);
  }

  /** The answer to a missing credential, or one the helpers do not take; undefined when the credential is taken. */
  refuseCredential(
    op: OperationInfo,
    headers: Record<string, string | string[] | undefined>,
  ): ShapedResponse | undefined {
    const credential = this.credentialOf(op, headers);
    if (credential === undefined) return this.documented(op, '401', 'AUTH_MISSING_TOKEN', 'noCredential');
    if (credential === null) return this.documented(op, '401', 'AUTH_INVALID_TOKEN', 'invalidCredential');
    // A test credential only (the document's 403); the mock tells a live key by its `{area}_{env}_` shape.
    if (credential.live) return this.documented(op, '403', 'AUTH_FORBIDDEN', 'liveCredential');
    return undefined;
  }

  /**
   * The credential sent in a header of a scheme the helper takes, an API key first (DECISIONS G22); null for an
   * authorization header the reference server refuses by its shape (`Basic …`, `Bearer` alone); undefined when none
   * was sent.
   */
  private credentialOf(
    op: OperationInfo,
    headers: Record<string, string | string[] | undefined>,
  ): { live: boolean; jwt: boolean } | null | undefined {
    let malformed = false;
    for (const name of op.security) {
      const scheme = this.contract.schemes.get(name);
      if (!scheme) continue;
      const raw = headers[scheme.header];
      if (scheme.httpScheme) {
        const token = schemeToken(scheme.httpScheme, raw);
        if (typeof token === 'string') return { live: false, jwt: true };
        malformed ||= token === null;
        continue;
      }
      const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
      if (value) return { live: apiKeyShape(value)?.env === 'live', jwt: false };
    }
    return malformed ? null : undefined;
  }

  private refuseBody(op: OperationInfo, input: unknown): ShapedResponse | undefined {
    const schema = op.requestBody?.schema as JsonSchema | undefined;
    if (!schema) return undefined;
    // The first refusal, in the reference server's words.
    const first = this.validator.errors(schema, input)[0];
    if (!first) return undefined;
    const words = describeRequestError('body', first, (at) => schemaAt(this.doc, schema, at));
    return errorResponse(this.contract, words.missing ? 'missing' : 'invalid', words.message, op);
  }

  /**
   * The example served: the one `Prefer: example=` names, else the first of the status `Prefer: code=` names, else
   * the success example that fits the request (a reset with a seed gets the example that loaded that seed).
   */
  private example(op: OperationInfo, prefer: Preference, input: unknown): ShapedResponse {
    const all = Object.entries(op.responses).flatMap(([status, r]) =>
      Object.entries(r.examples).map(([name, e]) => ({ status, name, value: e.value })),
    );
    let chosen = prefer.example !== undefined ? all.find((e) => e.name === prefer.example) : undefined;
    if (prefer.example !== undefined && !chosen)
      return errorResponse(this.contract, 'invalid', `${op.operationId} has no example ${prefer.example}.`, op);
    if (!chosen && prefer.code !== undefined) {
      chosen = all.find((e) => e.status === String(prefer.code));
      if (!chosen)
        return errorResponse(this.contract, 'invalid', `${op.operationId} documents no ${prefer.code} example.`, op);
    }
    if (!chosen) {
      const successes = all.filter((e) => /^2\d\d$/.test(e.status));
      const seed = (input as { seed?: unknown } | undefined)?.seed;
      chosen = successes.find((e) => (e.value as { data?: { seed?: unknown } }).data?.seed === seed) ?? successes[0];
    }
    if (!chosen)
      return errorResponse(this.contract, 'internal', `${op.operationId} has no example to answer with.`, op);
    return {
      status: Number(chosen.status),
      headers: { 'content-type': JSON_TYPE },
      body: Buffer.from(JSON.stringify(chosen.value)),
      example: chosen.name,
    };
  }

  /** The helper's documented example of `status` with `code`, else the envelope with that code. */
  private documented(op: OperationInfo, status: string, code: string, why: string): ShapedResponse {
    for (const [name, example] of Object.entries(op.responses[status]?.examples ?? {})) {
      if ((example.value as { error?: { code?: unknown } })?.error?.code === code) {
        return {
          status: Number(status),
          headers: { 'content-type': JSON_TYPE },
          body: Buffer.from(JSON.stringify(example.value)),
          example: name,
          rewritten: why,
        };
      }
    }
    const [role, message]: [ErrorRole, string] =
      code === 'AUTH_FORBIDDEN'
        ? ['wrongCredential', 'The sandbox helpers take a test credential only.']
        : code === 'AUTH_INVALID_TOKEN'
          ? ['invalidCredential', 'The Authorization header must be Bearer <access_token>.']
          : ['noCredential', 'Send X-API-Key or a JWT.'];
    return errorResponse(this.contract, role, message, op);
  }
}
