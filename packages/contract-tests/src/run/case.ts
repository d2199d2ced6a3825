// A test case and the context it runs in: `call` sends a request through the transport, runs every response check
// on every response, and records failures with a curl reproduction.
import type { OperationInfo } from '@cls-api/spec';
import type { Contract } from '../contract/contract.js';
import type { ApiKeyCredential, BearerCredential, Credential, Seller } from '../plan/credentials.js';
import type { Generator } from '../contract/generate.js';
import { CaseAssertions, type Expectation } from './case/assertions.js';
import { CredentialChoice } from './case/credential-choice.js';
import { CaseFindings, type CheckTally, type Departure, type Failure } from './case/findings.js';
import { Skip, type Exchange, type Transport } from './http.js';
import type { IsolationLedger } from './isolation.js';
import type { Evidence } from '../matrix/evidence.js';
import type { RunObservations } from './observations.js';
import type { RecordLog } from './records.js';
import type { SandboxAccess } from './sandbox.js';

export { errorCode, type Expectation } from './case/assertions.js';
export type { CheckTally, Departure, Failure } from './case/findings.js';

export type Phase = 'examples' | 'negative' | 'generated' | 'paging' | 'bulk' | 'workflows' | 'probes';
export const PHASES: readonly Phase[] = ['examples', 'negative', 'generated', 'paging', 'bulk', 'workflows', 'probes'];

/**
 * What a case is about, where the report treats such cases together: `authentication`, the credential rules
 * (missing, made-up, wrong scheme, wrong area), which all fail at once against a server that does not authenticate.
 */
export type Concern = 'authentication';

export interface CaseResult {
  id: string;
  phase: Phase;
  concern?: Concern;
  title: string;
  operations: string[];
  reaches?: string[];
  status: 'passed' | 'failed' | 'skipped';
  skipReason?: string;
  failures: Failure[];
  departures: Departure[];
  notes: string[];
  requests: number;
  /** Requests of the case sent with a test key (the kit's count of the monthly quota it spent). */
  metered: number;
  /**
   * Calls of the quota the case spent by the service's own count where the service showed it (X-RateLimit-Remaining;
   * a refused call it does not meter is not among them): what the ledger learns a case costs.
   */
  charged: number;
  /**
   * The cases of this run whose requests already proved this case's rule (the same shared parameter, the same path
   * parameter kind, in the same area): what this case did not send again.
   */
  coveredBy?: string[];
  ms: number;
}

export interface CaseDef {
  id: string;
  phase: Phase;
  title: string;
  /** The operations the case is about; `--tag` and `--operation` select on them. */
  operations: string[];
  /** Sends anything but GET (and the token request): left out by `--read-only`. */
  writes: boolean;
  concern?: Concern;
  /** Codes of the error catalogue the case sets out to drive the server to (the report's `errorCodes`). */
  reaches?: string[];
  /**
   * Operations whose records, made earlier in the run by other cases, this case reads: a pr run that takes it takes
   * an example of each too.
   */
  needs?: string[];
  run: (t: CaseContext) => Promise<void>;
}

/** Shared state of one run: the contract, inputs, transport and what cases learnt from the server. */
export interface RunEnv {
  contract: Contract;
  generator: Generator;
  transport: Transport;
  random: () => number;
  seed: number;
  keys: ApiKeyCredential[];
  otherKeys: ApiKeyCredential[];
  clientId?: string;
  clientSecret?: string;
  /** An access token past its life, given by the partner (CLS_EXPIRED_TOKEN). */
  expiredToken?: string;
  examplesOnly: boolean;
  readOnly: boolean;
  runs: number;
  /** Departures count as failures (`--strict-provisional`). */
  strictProvisional: boolean;
  tally: Map<string, CheckTally>;
  /** A JWT once obtained. */
  bearer?: BearerCredential;
  /** Obtains the JWT via the token operation (once). */
  jwt: (t: CaseContext) => Promise<BearerCredential>;
  /** Another seller's client credentials (optional), and its JWT once obtained. */
  otherClient?: { id: string; secret: string };
  otherBearer?: BearerCredential;
  /** The records the run creates: their prefix, and what each writing call created (records.ts). */
  records: RecordLog;
  /** Values cases share: a created product, a registered order. */
  shared: Map<string, unknown>;
  now: () => number;
  /** What the run learns across responses: the quota sequence per seller, answer times, the codes reached. */
  observations: RunObservations;
  /** Every record each seller's credentials were answered with: one seller's record shown to the other fails. */
  isolation: IsolationLedger;
  /** Where the run looked, per operation and rule: the coverage matrix's evidence (matrix/evidence.ts). */
  evidence: Evidence;
  /** Rules proven so far, by key (CaseContext.provenBy), and the case that proved each. */
  proofs: Map<string, string>;
  /** The sandbox's helpers, if the server offers them (run/sandbox.ts): asked at the first use. */
  sandbox?: SandboxAccess;
}

export interface CallInput {
  path?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** `auto` (default): the credential the operation's security asks for. */
  credential?: Credential | 'auto' | { area: string; seller?: Seller };
  /**
   * The request asks for its status (a mock's `Prefer: code=…`): a 429 is not backed off from and a 5xx is not a
   * server error.
   */
  deliberate?: boolean;
}

export class CaseContext {
  private readonly findings: CaseFindings;
  private readonly assertions: CaseAssertions;
  private readonly credentials: CredentialChoice;
  private lastExchange: Exchange | undefined;

  constructor(
    readonly env: RunEnv,
    readonly def: CaseDef,
  ) {
    this.findings = new CaseFindings(env, def);
    this.assertions = new CaseAssertions(env, def.id, this.findings);
    this.credentials = new CredentialChoice(env, () => env.jwt(this));
  }

  get contract(): Contract {
    return this.env.contract;
  }

  op(operationId: string): OperationInfo {
    return this.env.contract.operation(operationId);
  }

  skip(reason: string): never {
    throw new Skip(reason);
  }

  /**
   * The case that already proved a rule in this run (keyed by rule, area and shared parameter), or undefined. Proofs
   * are taken in run order, so a run of fewer cases (--operation, a pr slot) proves each rule with what it selected.
   */
  provenBy(key: string): string | undefined {
    return this.env.proofs.get(key);
  }

  /** This case proved the rule: later cases with the same key rely on it. */
  proved(key: string): void {
    if (!this.env.proofs.has(key)) this.env.proofs.set(key, this.def.id);
  }

  fillPath(op: OperationInfo, values: Record<string, string | number> = {}): string {
    return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const v = values[name];
      if (v === undefined) throw new Error(`${op.operationId}: no value for path parameter ${name}`);
      return encodeURIComponent(String(v));
    });
  }

  /** Sends one request to an operation; every response is checked. */
  async call(op: OperationInfo, input: CallInput = {}): Promise<Exchange> {
    let credential: Credential;
    const c = input.credential ?? 'auto';
    if (c === 'auto') credential = await this.credentialFor(op, 'primary', input.path);
    else if ('area' in c) credential = this.key(c.area, c.seller ?? 'primary');
    else credential = c;
    if (this.env.readOnly && op.method !== 'get' && op.security.length > 0) {
      throw new Error(`read-only run: ${op.method.toUpperCase()} ${op.path} must not be sent`);
    }
    const req = {
      method: op.method,
      path: this.fillPath(op, input.path),
      credential,
      ...(input.query ? { query: input.query } : {}),
      ...(input.headers ? { headers: input.headers } : {}),
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.rawBody !== undefined ? { rawBody: input.rawBody } : {}),
    };
    // Checks run on every response, the retried gateway 429s included.
    const exchange = await this.env.transport.send(
      req,
      (e) => this.inspect(op, e, input.deliberate === true),
      input.deliberate === true,
    );
    this.lastExchange = exchange;
    this.env.records.observe(op, exchange, this.def.id);
    return exchange;
  }

  get last(): Exchange | undefined {
    return this.lastExchange;
  }

  // What the case found and noted (case/findings.ts).
  get failures(): Failure[] {
    return this.findings.failures;
  }
  get departures(): Departure[] {
    return this.findings.departures;
  }
  get notes(): string[] {
    return this.findings.notes;
  }
  get coveredBy(): string[] {
    return this.findings.coveredBy;
  }
  get requests(): number {
    return this.findings.requests;
  }
  note(text: string): void {
    this.findings.note(text);
  }
  /** Relies on another case's proof instead of spending a request on the same rule; the report names that case. */
  covered(by: string, what: string): void {
    this.findings.covered(by, what);
  }
  fail(check: string, expected: string, seen: string, exchange?: Exchange, op?: OperationInfo): void {
    this.findings.fail(check, expected, seen, exchange, op);
  }
  /** Records a provisional departure; under `--strict-provisional` also a failure of the same check. */
  depart(check: string, expected: string, seen: string, reason: string, exchange?: Exchange, op?: OperationInfo): void {
    this.findings.depart(check, expected, seen, reason, exchange, op);
  }

  // What the case judges (case/assertions.ts).
  /** Called by the transport hook for every response sent on behalf of this case. */
  inspect(op: OperationInfo, exchange: Exchange, deliberate = false): void {
    this.assertions.inspect(op, exchange, deliberate);
  }
  /** Records a case-level check result (counted in the summary table). */
  assert(ok: boolean, check: string, expected: string, seen: string, exchange?: Exchange, op?: OperationInfo): boolean {
    return this.assertions.assert(ok, check, expected, seen, exchange, op);
  }
  /** Asserts the status (and error code) of a response. */
  expect(exchange: Exchange, op: OperationInfo, want: Expectation): boolean {
    return this.assertions.expect(exchange, op, want);
  }

  // Which credential a request goes with (case/credential-choice.ts).
  /** A key of the area for the given seller, or a skip saying which key is missing. */
  key(area: string, seller: Seller = 'primary'): ApiKeyCredential {
    return this.credentials.key(area, seller);
  }
  hasKey(area: string, seller: Seller = 'primary'): boolean {
    return this.credentials.hasKey(area, seller);
  }
  /** The credential an operation's security asks for (the JWT where it is as good as a key). */
  credentialFor(
    op: OperationInfo,
    seller: Seller = 'primary',
    path: Record<string, string | number> = {},
  ): Promise<Credential> {
    return this.credentials.credentialFor(op, seller, path);
  }
  /** The area of the MCP tool list: the operations there wrap the other areas and take a key of any of them. */
  mcpArea(): string | undefined {
    return this.credentials.mcpArea();
  }
  isApiKeyScheme(name: string): boolean {
    return this.credentials.isApiKeyScheme(name);
  }
  isBearerScheme(name: string): boolean {
    return this.credentials.isBearerScheme(name);
  }
  /** The header name the API key goes in, from the scheme. */
  apiKeyHeader(op: OperationInfo): string {
    return this.credentials.apiKeyHeader(op);
  }
}

export function dataOf<T = unknown>(exchange: Exchange): T {
  return (exchange.response.json as { data?: T } | undefined)?.data as T;
}
