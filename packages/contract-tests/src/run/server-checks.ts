// What the kit learns of the server before the first case: that the base URL is the API's, which keys it misjudges,
// whether it authenticates at all, and whether it keeps state.
import type { CaseDef, CaseResult, RunEnv } from './case.js';
import { checkCredentials, type MisjudgedKey, RefusedCredentials, WrongBaseUrl } from './credential-check.js';
import { BudgetSkip, ConnectionError, type Exchange } from './http.js';
import type { Authentication } from '../report/report.js';
import { preflight } from './base-url.js';
import type { RunOutcome } from './outcome.js';

export interface ServerChecks {
  outcome: RunOutcome;
  authentication?: Authentication;
  misjudged: MisjudgedKey[];
}

export async function checkServer(env: RunEnv, selected: CaseDef[]): Promise<ServerChecks> {
  const outcome: RunOutcome = {};
  let authentication: Authentication | undefined;
  let misjudged: MisjudgedKey[] = [];
  try {
    await preflight(env.transport, env.contract);
    if (!env.examplesOnly) misjudged = await checkCredentials(env);
    authentication = await authenticationProbe(env, selected);
  } catch (err) {
    if (err instanceof WrongBaseUrl) outcome.fatal = { reason: 'usage', message: err.message };
    else if (err instanceof RefusedCredentials) outcome.fatal = { reason: 'credentials', message: err.message };
    else if (err instanceof ConnectionError) outcome.fatal = { reason: 'unreachable', message: err.message };
    else if (err instanceof BudgetSkip) outcome.budgetSkipped = err.message;
    else throw err;
  }
  return { outcome, ...(authentication ? { authentication } : {}), misjudged };
}

/**
 * A key of the right shape that no one issued (`{area}_{env}_{random}`, credentials.ts): no secret, so it is shown
 * as is in reports.
 */
const MADE_UP_KEY_RANDOM = 'notissuedbyanyone0contractkit000';

/**
 * Whether the server authenticates at all: one request with a made-up key to a list that needs a key and no other
 * input. A 2xx means every credential rule will fail at once (a mock, a server with authentication off); the report
 * says so once instead of leaving a page of "expected 401, seen 200". Sent only when credential cases are selected.
 */
async function authenticationProbe(env: RunEnv, selected: CaseDef[]): Promise<Authentication | undefined> {
  if (env.examplesOnly || !selected.some((c) => c.concern === 'authentication')) return undefined;
  const { contract, transport } = env;
  const apiKeyScheme = (o: CaseDef['operations'][number]) =>
    contract
      .operation(o)
      .security.map((s) => contract.securityScheme(s))
      .find((s) => s?.type === 'apiKey' && typeof s.name === 'string');
  const candidates = contract.operations.filter(
    (o) =>
      o.method === 'get' &&
      !o.path.includes('{') &&
      o.parameters.every((p) => !p.required) &&
      apiKeyScheme(o.operationId) !== undefined,
  );
  const op = candidates.find((o) => env.keys.some((k) => k.area === o.area)) ?? candidates[0];
  if (!op) return undefined;
  const header = String(apiKeyScheme(op.operationId)!.name);
  const keyEnv = env.keys[0]?.env ?? [...contract.limits.monthlyQuota.keys()][0] ?? 'test';
  const credential = { kind: 'raw' as const, headers: { [header]: `${op.area}_${keyEnv}_${MADE_UP_KEY_RANDOM}` } };
  transport.guard(credential);
  const ex: Exchange = await transport.sendRaw({ method: 'get', path: op.path, credential });
  const { status } = ex.response;
  if (status < 200 || status >= 300) return undefined;
  return {
    authenticates: false,
    operation: op.operationId,
    status,
    curl: transport.curl(ex),
    message: `this server does not authenticate: ${op.method.toUpperCase()} ${op.path} with a made-up API key answered ${status}. Every credential case (missing, made-up, wrong area or scheme) fails for that one reason. If this is a mock, run with --target mock against it; otherwise turn its authentication on.`,
  };
}

/**
 * Whether the server keeps no state: a read of a record by an identifier no one issued (`CLSKIT-…`, with a made-up
 * key) answered 2xx. Returns what showed it, or undefined.
 */
export async function statelessProbe(env: RunEnv): Promise<string | undefined> {
  const { contract, transport } = env;
  const op = contract.operations.find(
    (o) =>
      o.method === 'get' &&
      /^[^{]*\{[^}]+\}$/.test(o.path) &&
      o.security.some((s) => contract.securityScheme(s)?.type === 'apiKey') &&
      o.parameters.every((p) => p.in === 'path' || !p.required),
  );
  if (!op) return undefined;
  const header = op.security
    .map((name) => contract.securityScheme(name))
    .find((scheme) => scheme?.type === 'apiKey' && typeof scheme.name === 'string')?.name as string;
  const path = op.path.replace(/\{[^}]+\}/, `${env.records.prefix}NOSUCHRECORD`);
  const credential = { kind: 'raw' as const, headers: { [header]: `${op.area}_test_${MADE_UP_KEY_RANDOM}` } };
  transport.guard(credential);
  const ex = await transport.sendRaw({ method: 'get', path, credential });
  const { status } = ex.response;
  return status >= 200 && status < 300
    ? `a stateless server detected: GET ${path} (a record no one created, with a made-up key) answered ${status}`
    : undefined;
}

/** A key the server took on its own area but answered 401 on another: a contract failure, not a refused key. */
export function misjudgedResult(env: RunEnv, m: MisjudgedKey): CaseResult {
  const t = env.tally.get('expected_outcome') ?? { evaluated: 0, failed: 0, departed: 0 };
  env.tally.set('expected_outcome', t);
  t.evaluated += 1;
  t.failed += 1;
  return {
    id: `negative/${m.operation}/valid_key_of_another_area/${m.ref}`,
    phase: 'negative',
    title: `A valid key of another area ($${m.ref}) is refused as forbidden, not as unknown`,
    operations: [m.operation],
    status: 'failed',
    failures: [
      {
        check: 'expected_outcome',
        operation: m.operation,
        expected: m.expected,
        seen: m.seen,
        status: m.status,
        curl: m.curl,
      },
    ],
    departures: [],
    notes: [],
    requests: 0,
    metered: 0,
    charged: 0,
    ms: 0,
  };
}
