// runContractTests: builds the cases from the contract, runs them one after another against the server, and
// returns the report (also written as JUnit XML and JSON when asked).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CaseContext,
  dataOf,
  PHASES,
  type CaseDef,
  type CaseResult,
  type CheckTally,
  type Phase,
  type RunEnv,
} from './case.js';
import { CHECKS } from './checks.js';
import { checkCredentials, type MisjudgedKey, RefusedCredentials, WrongBaseUrl } from './credential-check.js';
import { Contract, ContractGap } from './contract.js';
import { keyCredentials, Redactor, UsageError, type ApiKeyCredential, type BearerCredential } from './credentials.js';
import { LIVE_READ_ONLY, runEnvironment } from './environment.js';
import { Generator, seededRandom } from './generate.js';
import type { StopReason } from './exit-codes.js';
import { BudgetSkip, ConnectionError, Skip, Transport, type Exchange } from './http.js';
import { bulkCases } from './phases/bulk.js';
import { exampleCases } from './phases/examples.js';
import { generatedCases } from './phases/generated.js';
import { negativeCases } from './phases/negative.js';
import { pagingCases } from './phases/paging.js';
import { RunObservations } from './observations.js';
import { QuotaPlan } from './quota-plan.js';
import { applyProfile, PR_QUOTA } from './profile.js';
import { probeCases } from './phases/probes.js';
import { RecordLog } from './records.js';
import { workflowCases } from './phases/workflows.js';
import { buildReport, type Authentication, type Report } from './report.js';
import type { RunOptions } from './run-options.js';

export type { RunOptions } from './run-options.js';

export const DEFAULT_QUOTA_RESERVE = 50;

function selectPhases(options: RunOptions): Phase[] {
  if (options.examplesOnly) return ['examples'];
  const wanted = options.phases ?? PHASES.filter((p) => p !== 'probes' || options.probeLimits);
  return wanted.filter((p) => p !== 'probes' || options.probeLimits);
}

export async function runContractTests(given: RunOptions): Promise<Report> {
  // A stateless mock is a target of its own: only what holds without state (the examples, asked for with Prefer),
  // no quota plan (a mock has no quota), no credential needed.
  const options: RunOptions = given.target === 'mock' ? { ...given, examplesOnly: true } : given;
  const startedAt = new Date();
  const log = options.log ?? (() => {});
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  try {
    new URL(options.baseUrl);
  } catch {
    throw new UsageError(`--base-url must be an absolute URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  versionSegment(options.baseUrl);
  const contract = new Contract(options.spec);
  const redactor = new Redactor();
  const keys = keyCredentials(options.apiKeys ?? [], 'primary');
  const otherKeys = keyCredentials(options.otherApiKeys ?? [], 'other');
  for (const k of [...keys, ...otherKeys]) redactor.add(k.key, k.ref);
  redactor.add(options.clientSecret, 'CLS_CLIENT_SECRET');
  redactor.add(options.clientId, 'CLS_CLIENT_ID');
  redactor.add(options.otherClientSecret, 'CLS_OTHER_CLIENT_SECRET');
  redactor.add(options.otherClientId, 'CLS_OTHER_CLIENT_ID');
  redactor.add(options.expiredToken, 'CLS_EXPIRED_TOKEN');
  const credentialFree = keys.length === 0 && otherKeys.length === 0 && !options.clientId;
  if (credentialFree && !options.noCredentials && !options.examplesOnly && options.target !== 'mock') {
    throw new UsageError(NO_CREDENTIAL);
  }
  // One environment for every credential (environment.ts); a live one is read-only unless --allow-live-writes.
  const environment = runEnvironment(keys, otherKeys, options.clientId, options.allowLiveWrites ?? false);
  if (options.examplesOnly) synthesizeMockKeys(contract, keys, environment.name);
  if (options.clientId && options.clientSecret) {
    const tokenOp = contract.findOperation('createAccessToken');
    const errors = tokenOp?.requestBody?.schema
      ? contract.validate(tokenOp.requestBody.schema, {
          client_id: options.clientId,
          client_secret: options.clientSecret,
        })
      : [];
    if (errors.length > 0)
      throw new UsageError(`--client-id/--client-secret do not fit the token request: ${errors.join('; ')}`);
  }

  const profile = options.profile ?? 'full';
  // A pr run is held to its quota by the same hard cap as --max-quota (the smaller of the two).
  const maxQuota = options.examplesOnly
    ? undefined
    : profile === 'pr'
      ? Math.min(options.maxQuota ?? PR_QUOTA, PR_QUOTA)
      : options.maxQuota;
  const random = seededRandom(seed);
  const tally = new Map<string, CheckTally>();
  const transport = new Transport({
    baseUrl: options.baseUrl,
    contract,
    redactor,
    ...(options.maxRequests !== undefined ? { maxRequests: options.maxRequests } : {}),
    ...(maxQuota !== undefined ? { maxQuota } : {}),
    quotaReserve: options.quotaReserve ?? DEFAULT_QUOTA_RESERVE,
    paceFraction: options.paceFraction ?? 0.5,
    backoffBaseMs: options.backoffBaseMs ?? 1000,
    backoffMaxMs: options.backoffMaxMs ?? 60_000,
    maxRetries: options.maxRetries ?? 5,
    timeoutMs: options.timeoutMs ?? 30_000,
    // Bodies too long for a curl line go beside the reports CI keeps; without a folder they stay in the line.
    // Never a temporary folder: a curl line must not point at a file gone with the machine.
    ...(options.artifactsDir !== undefined ? { artifactsDir: options.artifactsDir } : {}),
    random,
    trackQuota: !options.examplesOnly,
  });

  const env: RunEnv = {
    contract,
    generator: new Generator(contract),
    transport,
    random,
    seed,
    keys,
    otherKeys,
    ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
    ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}),
    ...(options.expiredToken ? { expiredToken: options.expiredToken } : {}),
    ...(options.otherClientId && options.otherClientSecret
      ? { otherClient: { id: options.otherClientId, secret: options.otherClientSecret } }
      : {}),
    examplesOnly: options.examplesOnly ?? false,
    readOnly: (options.readOnly ?? false) || !environment.writes,
    runs: Math.max(1, options.runs ?? 1),
    strictProvisional: options.strictProvisional ?? false,
    tally,
    records: new RecordLog(contract, environment.name, !options.examplesOnly),
    shared: new Map(),
    now: () => Date.now(),
    observations: new RunObservations(contract),
    proofs: new Map(),
    jwt: async (t) => obtainJwt(env, t),
  };

  const phases = selectPhases(options);
  const all: CaseDef[] = [
    ...(phases.includes('examples') ? exampleCases(env) : []),
    ...(phases.includes('negative') ? negativeCases(env) : []),
    // The bulk bodies before the generated inputs: a body with one malformed row proves what a generated malformed
    // body of the same operation would (inputs.ts, invalidBodyProof), so that one is not sent. Paging first: it
    // reads a list before the bulk bodies add to it.
    ...(phases.includes('paging') ? pagingCases(env) : []),
    ...(phases.includes('bulk') ? bulkCases(env) : []),
    ...(phases.includes('generated') ? generatedCases(env) : []),
    ...(phases.includes('workflows') ? workflowCases(env) : []),
    ...(phases.includes('probes') ? probeCases(env) : []),
  ];
  const { cases: selected, plan: profilePlan } = applyProfile(
    env,
    profile,
    all.filter((c) => matches(contract, c, options)),
    seed,
  );
  let fatal: { reason: StopReason; message: string } | undefined;
  /** Why the first request the budget or the quota left unsent was left: exit 3 if no case ran at all. */
  let budgetSkipped: string | undefined;

  log(`Contract ${contract.doc.info.title} ${contract.doc.info.version} against ${options.baseUrl}`);
  log(
    `seed ${seed} · profile ${profile}${profilePlan.slots ? ` (slot ${profilePlan.slot! + 1} of ${profilePlan.slots})` : ''} · phases ${phases.join(', ')} · ${selected.length} cases${environment.name ? ` · ${environment.name} environment` : ''}${env.readOnly ? ` · read-only${options.readOnly ? '' : ` (${LIVE_READ_ONLY})`}` : ''}`,
  );
  let authentication: Authentication | undefined;
  let misjudged: MisjudgedKey[] = [];
  try {
    await preflight(transport, contract);
    if (!env.examplesOnly) misjudged = await checkCredentials(env);
    authentication = await authenticationProbe(env, selected);
  } catch (err) {
    if (err instanceof WrongBaseUrl) fatal = { reason: 'usage', message: err.message };
    else if (err instanceof RefusedCredentials) fatal = { reason: 'credentials', message: err.message };
    else if (err instanceof ConnectionError) fatal = { reason: 'unreachable', message: err.message };
    else if (err instanceof BudgetSkip) budgetSkipped = err.message;
    else throw err;
  }
  // A server that takes a made-up key and answers a read of a record no one created is a stateless mock: the run
  // starts again as one (--target mock), said in the summary, unless the target was given.
  if (authentication && options.target === undefined && !fatal) {
    const stateless = await statelessProbe(env).catch(() => undefined);
    if (stateless) {
      log(`  ! ${stateless}: running as --target mock`);
      return runContractTests({ ...given, target: 'mock', detectedMock: stateless });
    }
  }
  // The summary says it in full (report.ts, authenticationBanner); the progress only flags it as the cases fail.
  if (authentication) log(`  ! a made-up API key was accepted: this server does not authenticate (see the summary)`);

  const results: CaseResult[] = misjudged.map((m) => misjudgedResult(env, m));
  const quotaPlan = maxQuota !== undefined ? new QuotaPlan(env, transport) : undefined;
  for (const def of fatal ? [] : selected) {
    const t = new CaseContext(env, def);
    const started = Date.now();
    const meteredBefore = transport.metered;
    let status: CaseResult['status'] = 'passed';
    let skipReason: string | undefined;
    try {
      if (def.writes && env.readOnly)
        throw new Skip(options.readOnly ? 'writes data: left out by --read-only' : LIVE_READ_ONLY);
      quotaPlan?.admit(def);
      await def.run(t);
      quotaPlan?.record(def, transport.metered - meteredBefore);
    } catch (err) {
      if (err instanceof Skip) {
        skipReason = err.message;
        status = 'skipped';
        if (err instanceof BudgetSkip) budgetSkipped ??= err.message;
      } else if (err instanceof ConnectionError) {
        fatal = { reason: 'unreachable', message: `connection lost: ${err.message}` };
        t.fail('connection', 'a response', err.message);
      } else if (err instanceof ContractGap) {
        t.fail('expected_outcome', 'the contract to describe what the check needs', err.message);
      } else {
        t.fail('kit_error', 'the case to run to its end', (err as Error).stack ?? String(err));
      }
    }
    if (t.failures.length > 0) status = 'failed';
    const result: CaseResult = {
      id: def.id,
      phase: def.phase,
      ...(def.concern ? { concern: def.concern } : {}),
      title: def.title,
      operations: def.operations,
      ...(def.reaches ? { reaches: def.reaches } : {}),
      status,
      failures: t.failures,
      departures: t.departures,
      notes: t.notes,
      requests: t.requests,
      metered: transport.metered - meteredBefore,
      ms: Date.now() - started,
      ...(skipReason ? { skipReason } : {}),
      ...(t.coveredBy.length > 0 ? { coveredBy: t.coveredBy } : {}),
    };
    results.push(result);
    log(progressLine(result));
    if (fatal) break;
  }
  // What the contract lets the kit remove of what it created (records.ts), unless the server is gone.
  if (fatal?.reason !== 'unreachable') {
    await env.records.cleanUp(transport, (op, values) => fillPath(op.path, values));
  }
  results.push(...quotaCountResults(transport, tally));
  // The run's access token, for the next run's expired-token case (CLS_EXPIRED_TOKEN): by then it is past its life.
  if (options.saveToken && env.bearer && !env.examplesOnly) {
    mkdirSync(dirname(options.saveToken), { recursive: true });
    writeFileSync(options.saveToken, `${env.bearer.token}\n`, { mode: 0o600 });
  }
  // Nothing was judged: the budget or the quota was spent before any case could run (exit 3), not a pass.
  if (!fatal && budgetSkipped && results.every((r) => r.status === 'skipped')) {
    fatal = {
      reason: 'budget',
      message: `the budget ran out before the first case: ${budgetSkipped}`,
    };
  }

  return buildReport({
    contract,
    options,
    seed,
    phases,
    startedAt,
    results,
    tally,
    transport,
    checks: CHECKS,
    ...(fatal ? { fatal } : {}),
    ...(authentication ? { authentication } : {}),
    ...(quotaPlan ? { leftOutByQuota: quotaPlan.leftOut } : {}),
    profile: profilePlan,
    codesSeen: env.observations.codes,
    environment: {
      ...(environment.name !== undefined ? { name: environment.name } : {}),
      writes: !env.readOnly,
      ...(env.readOnly && !options.readOnly
        ? { leftOutAsLive: results.filter((r) => r.skipReason === LIVE_READ_ONLY).map((r) => r.id) }
        : {}),
    },
    records: env.records.report(),
  });
}

function progressLine(r: CaseResult): string {
  const mark = r.status === 'passed' ? '✓' : r.status === 'failed' ? '✗' : '-';
  const departed =
    r.departures.length > 0
      ? `, ${r.departures.length} provisional departure${r.departures.length === 1 ? '' : 's'}`
      : '';
  const tail =
    r.status === 'skipped'
      ? ` (skipped: ${r.skipReason})`
      : r.status === 'failed'
        ? ` (${r.failures.length} failure${r.failures.length === 1 ? '' : 's'}${departed})`
        : departed
          ? ` (${departed.slice(2)})`
          : '';
  return `  ${mark} ${r.id} · ${r.requests} req${tail}`;
}

function matches(contract: Contract, c: CaseDef, options: RunOptions): boolean {
  const tags = options.tags ?? [];
  const ids = options.operations ?? [];
  if (tags.length === 0 && ids.length === 0) return true;
  return c.operations.some((id) => {
    if (ids.includes(id)) return true;
    const op = contract.findOperation(id);
    return op ? op.tags.some((tag) => tags.includes(tag)) : false;
  });
}

/**
 * No credential at all: on a fork's pull request, where CI secrets are empty, a run would otherwise skip every case
 * that needs one and pass. A smoke run without credentials is asked for by name.
 */
export const NO_CREDENTIAL =
  'no credential given: set CLS_API_KEYS (or CLS_API_KEY_WMS, CLS_API_KEY_MANAGER, CLS_API_KEY_CAM), CLS_OTHER_API_KEYS, and CLS_CLIENT_ID with CLS_CLIENT_SECRET (or pass --api-key, --client-id, --client-secret). Empty secrets are what a pull request from a fork gets. For a run without any credential, pass --no-credentials';

/** A base URL ending in a version segment (`/v3`): every path the kit sends would name the version twice. */
function versionSegment(baseUrl: string): void {
  const path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const segment = /\/(v\d+)$/i.exec(path)?.[1];
  if (segment) {
    throw new UsageError(
      `--base-url ends in the version segment /${segment}: give the API's base address without it (the kit adds /v3 to every path), e.g. ${baseUrl.replace(/\/v\d+\/*$/i, '')}`,
    );
  }
}

/** One unauthenticated request, so that a wrong base URL is a usage error (exit 2), not a page of failures. */
async function preflight(transport: Transport, contract: Contract): Promise<void> {
  const op = contract.operations.find((o) => o.method === 'get' && !o.path.includes('{'));
  if (!op) return;
  transport.guard({ kind: 'none' });
  const ex = await transport.sendRaw({ method: 'get', path: op.path, credential: { kind: 'none' } });
  const type = ex.response.headers['content-type'] ?? '';
  // Any 404 here: the path names no parameter, so only a wrong address can leave it unknown (the API would ask for
  // a credential first). A JSON NOT_FOUND is as telling as an HTML page: a base URL with a stray segment.
  if (ex.response.status === 404) {
    const code = (ex.response.json as { error?: { code?: unknown } } | undefined)?.error?.code;
    throw new WrongBaseUrl(
      `${transport.url({ method: 'get', path: op.path, credential: { kind: 'none' } })} answered 404 ${typeof code === 'string' ? code : type}: is --base-url the API's base address (without /v3)? ${new URL(transport.options.baseUrl).pathname.replace(/\/+$/, '') ? 'Its path part may not belong there.' : 'Check the host and port.'}`,
    );
  }
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
async function statelessProbe(env: RunEnv): Promise<string | undefined> {
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

/** A mock checks only that a credential is present: stand-in keys of every API-key area, no secret in them. */
function synthesizeMockKeys(contract: Contract, keys: ApiKeyCredential[], environment: string | undefined): void {
  const areas = new Set(
    contract.operations
      .filter((o) => o.security.some((s) => contract.securityScheme(s)?.type === 'apiKey'))
      .map((o) => o.area),
  );
  const env = environment ?? [...contract.limits.monthlyQuota.keys()][0] ?? 'test';
  for (const area of areas) {
    if (keys.some((k) => k.area === area)) continue;
    keys.push({
      kind: 'apiKey',
      key: `${area}_${env}_examplesonly0000000000`,
      area,
      env,
      seller: 'primary',
      ref: `CLS_API_KEY_${area.toUpperCase()}`,
    });
  }
}

async function obtainJwt(env: RunEnv, t: CaseContext): Promise<BearerCredential> {
  if (env.bearer) return env.bearer;
  if (env.examplesOnly && (!env.clientId || !env.clientSecret)) {
    env.bearer = { kind: 'bearer', token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtb2NrIn0.bW9jaw', ref: 'CLS_ACCESS_TOKEN' };
    return env.bearer;
  }
  if (!env.clientId || !env.clientSecret)
    t.skip('no JWT: pass --client-id and --client-secret (or CLS_CLIENT_ID / CLS_CLIENT_SECRET)');
  const op = env.contract.operation('createAccessToken');
  const body = { client_id: env.clientId, client_secret: env.clientSecret };
  const ex = await t.call(op, { body, credential: { kind: 'none' } });
  if (
    !t.expect(ex, op, {
      status: env.contract.successStatus(op),
      why: 'obtaining a JWT with the given client credentials',
    })
  ) {
    t.skip('no JWT: the token request failed');
  }
  const token = String(dataOf<{ access_token?: string }>(ex)?.access_token ?? '');
  const refresh = String(dataOf<{ refresh_token?: string }>(ex)?.refresh_token ?? '');
  env.transport.options.redactor.add(token, 'CLS_ACCESS_TOKEN');
  env.transport.options.redactor.add(refresh, 'CLS_REFRESH_TOKEN');
  env.bearer = { kind: 'bearer', token, ref: 'CLS_ACCESS_TOKEN' };
  return env.bearer;
}

export type { Report };

/** A key the server took on its own area but answered 401 on another: a contract failure, not a refused key. */
function misjudgedResult(env: RunEnv, m: MisjudgedKey): CaseResult {
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
    ms: 0,
  };
}

/**
 * The service's own count of the quota held to the kit's: a service that counts more calls than the kit sent over
 * the same span (every call twice, a refused call and its retry) spends the partner's month for nothing. Judged only
 * when the service showed its count (X-RateLimit-Remaining on two metered answers or more).
 */
function quotaCountResults(transport: Transport, tally: Map<string, CheckTally>): CaseResult[] {
  const out: CaseResult[] = [];
  for (const [seller, q] of Object.entries(transport.quotaSummary())) {
    if (!q.service || q.kitCountedInSpan === 0) continue;
    const t = tally.get('quota_counted') ?? { evaluated: 0, failed: 0, departed: 0 };
    tally.set('quota_counted', t);
    t.evaluated += 1;
    if (!q.overcounted) continue;
    t.failed += 1;
    out.push({
      id: `quota/${seller}_service_count`,
      phase: 'workflows',
      title: `The service counts no more of the ${seller} seller's quota than the kit sent`,
      operations: [],
      status: 'failed',
      failures: [
        {
          check: 'quota_counted',
          operation: 'X-RateLimit-Remaining',
          expected: `at most ${q.kitCountedInSpan} calls counted (the test-key calls the kit sent after the first metered answer)`,
          seen: `X-RateLimit-Remaining ${q.service.before} → ${q.service.after}: ${q.service.used} counted, ${q.service.used - q.kitCountedInSpan} more than were sent (nothing else used this account's test keys meanwhile?)`,
        },
      ],
      departures: [],
      notes: [],
      requests: 0,
      metered: 0,
      ms: 0,
    });
  }
  return out;
}

function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}
