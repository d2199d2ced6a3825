// A test case and the context it runs in: `call` sends a request through the transport, runs every response check
// on every response, and records failures with a curl reproduction.
import type { OperationInfo } from '@cls-api/spec';
import { checkResponse } from '../contract/checks.js';
import type { Contract } from '../contract/contract.js';
import type { ApiKeyCredential, BearerCredential, Credential, Seller } from '../plan/credentials.js';
import type { Generator } from '../contract/generate.js';
import { Skip, type Exchange, type Transport } from './http.js';
import type { IsolationLedger } from './isolation.js';
import type { Evidence } from '../matrix/evidence.js';
import type { RunObservations } from './observations.js';
import type { RecordLog } from './records.js';

export type Phase = 'examples' | 'negative' | 'generated' | 'paging' | 'bulk' | 'workflows' | 'probes';
export const PHASES: readonly Phase[] = ['examples', 'negative', 'generated', 'paging', 'bulk', 'workflows', 'probes'];

export interface Failure {
  check: string;
  operation: string;
  expected: string;
  seen: string;
  status?: number;
  curl?: string;
}

/**
 * A response or outcome that breaks only a design of ours (`x-provisional`, `x-known-values`; DECISIONS.md G24):
 * the relaxed contract, which holds what the source shows, accepts it. Reported apart from failures, and counted as
 * one only under `--strict-provisional`.
 */
export interface Departure {
  check: string;
  operation: string;
  expected: string;
  seen: string;
  /** The design it departs from, and why that is not a failure. */
  reason: string;
  status?: number;
  curl?: string;
}

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
  run: (t: CaseContext) => Promise<void>;
}

export interface CheckTally {
  evaluated: number;
  failed: number;
  /** Provisional departures: a design of ours not followed (not failures unless --strict-provisional). */
  departed: number;
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

export interface Expectation {
  status: number | number[];
  code?: string | string[];
  /** The check a mismatch is reported under. */
  check?: string;
  why?: string;
  /**
   * The outcome rests on a design only (the input is valid under the relaxed contract, or goes in a provisional
   * parameter): when the server accepts the input instead, that is a departure with this reason, not a failure.
   */
  provisional?: string;
}

/** Statuses that say the server took the input as well-formed: a success, or a documented not-found or duplicate. */
function accepted(status: number): boolean {
  return (status >= 200 && status < 300) || status === 404 || status === 409;
}

export class CaseContext {
  readonly failures: Failure[] = [];
  readonly departures: Departure[] = [];
  readonly notes: string[] = [];
  requests = 0;
  /** The cases whose proof this case relied on instead of sending the same rule again. */
  readonly coveredBy: string[] = [];
  private lastExchange: Exchange | undefined;

  constructor(
    readonly env: RunEnv,
    readonly def: CaseDef,
  ) {}

  get contract(): Contract {
    return this.env.contract;
  }

  op(operationId: string): OperationInfo {
    return this.env.contract.operation(operationId);
  }

  skip(reason: string): never {
    throw new Skip(reason);
  }

  note(text: string): void {
    this.notes.push(text);
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

  /** Relies on another case's proof instead of spending a request on the same rule; the report names that case. */
  covered(by: string, what: string): void {
    if (!this.coveredBy.includes(by)) this.coveredBy.push(by);
    this.note(`${what}: proven by ${by}`);
  }

  /** A key of the area for the given seller, or a skip saying which key is missing. */
  key(area: string, seller: Seller = 'primary'): ApiKeyCredential {
    const pool = seller === 'primary' ? this.env.keys : this.env.otherKeys;
    const found = pool.find((k) => k.area === area);
    if (!found) {
      const flag = seller === 'primary' ? '--api-key' : '--other-api-key';
      this.skip(`no ${area} API key${seller === 'other' ? ' of another seller' : ''}: pass ${flag} ${area}_test_…`);
    }
    return found;
  }

  hasKey(area: string, seller: Seller = 'primary'): boolean {
    return (seller === 'primary' ? this.env.keys : this.env.otherKeys).some((k) => k.area === area);
  }

  /**
   * The credential an operation's security asks for: a key of the operation's area; on the MCP area (a key of any
   * area is valid there) the key of the area of the tool named in the path, else any key; the JWT for bearer.
   */
  async credentialFor(
    op: OperationInfo,
    seller: Seller = 'primary',
    path: Record<string, string | number> = {},
  ): Promise<Credential> {
    if (op.security.length === 0) return { kind: 'none' };
    // Where a JWT is as good as a key (the manager area), the JWT: it spends no monthly quota. The key is still sent
    // there by the cases about it (workflows: with_ApiKeyAuth, seller isolation).
    if (
      seller === 'primary' &&
      this.env.clientId &&
      this.env.clientSecret &&
      !this.env.examplesOnly &&
      op.security.some((s) => this.isBearerScheme(s)) &&
      op.security.some((s) => this.isApiKeyScheme(s))
    ) {
      return this.env.jwt(this);
    }
    if (op.security.some((s) => this.isApiKeyScheme(s))) {
      const pool = seller === 'primary' ? this.env.keys : this.env.otherKeys;
      const own = pool.find((k) => k.area === op.area);
      if (own) return own;
      if (op.area === this.mcpArea()) {
        const tool = this.contract.operations.find(
          (o) => o.mcpTool !== undefined && Object.values(path).includes(o.mcpTool),
        );
        const forTool = tool ? pool.find((k) => k.area === tool.area) : undefined;
        if (forTool) return forTool;
        if (pool[0]) return pool[0];
      }
      return this.key(op.area, seller);
    }
    if (op.security.some((s) => this.isBearerScheme(s))) return this.env.jwt(this);
    this.skip(`${op.operationId}: no credential of scheme ${op.security.join(', ')}`);
  }

  /** The area of the MCP tool list: the operations there wrap the other areas and take a key of any of them. */
  mcpArea(): string | undefined {
    return this.contract.findOperation('listMcpTools')?.area;
  }

  isApiKeyScheme(name: string): boolean {
    return this.contract.isApiKeyScheme(name);
  }

  isBearerScheme(name: string): boolean {
    return this.contract.isBearerScheme(name);
  }

  /** The header name the API key goes in, from the scheme. */
  apiKeyHeader(op: OperationInfo): string {
    for (const name of op.security) {
      const scheme = this.contract.securityScheme(name);
      if (scheme?.type === 'apiKey' && typeof scheme.name === 'string') return scheme.name;
    }
    for (const scheme of Object.values(this.contract.doc.components?.securitySchemes ?? {})) {
      if (scheme.type === 'apiKey' && typeof scheme.name === 'string') return scheme.name;
    }
    throw new Error('the contract has no apiKey security scheme');
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
    this.env.records.observe(op, exchange);
    return exchange;
  }

  /** Called by the transport hook for every response sent on behalf of this case. */
  inspect(op: OperationInfo, exchange: Exchange, deliberate = false): void {
    this.requests += 1;
    const { evaluated, findings } = checkResponse({
      contract: this.contract,
      op,
      exchange,
      now: this.env.now(),
      clockRelative: !this.env.examplesOnly,
    });
    for (const across of [
      this.env.observations.observe(op, exchange, this.def.id),
      this.env.isolation.observe(op, exchange),
    ]) {
      evaluated.push(...across.evaluated);
      findings.push(...across.findings);
    }
    this.env.evidence.answered(op, exchange, this.def.id, deliberate);
    for (const name of evaluated) this.tally(name).evaluated += 1;
    for (const f of findings) {
      if (f.provisional) {
        this.depart(f.check, f.expected, f.seen, f.provisional, exchange, op);
        continue;
      }
      this.tally(f.check).failed += 1;
      this.fail(f.check, f.expected, f.seen, exchange, op);
    }
    if (deliberate) return;
    this.tally('no_server_error').evaluated += 1;
    if (exchange.response.status >= 500) {
      this.tally('no_server_error').failed += 1;
      this.fail(
        'no_server_error',
        'no 5xx',
        `HTTP ${exchange.response.status}: ${exchange.response.text.slice(0, 200)}`,
        exchange,
        op,
      );
    }
  }

  private tally(name: string) {
    let t = this.env.tally.get(name);
    if (!t) {
      t = { evaluated: 0, failed: 0, departed: 0 };
      this.env.tally.set(name, t);
    }
    return t;
  }

  fail(check: string, expected: string, seen: string, exchange?: Exchange, op?: OperationInfo): void {
    const failure: Failure = {
      check,
      operation: op?.operationId ?? this.def.operations.join(', '),
      expected,
      seen: this.env.transport.options.redactor.redact(seen),
    };
    if (exchange) {
      failure.status = exchange.response.status;
      failure.curl = this.env.transport.curl(exchange);
    }
    this.failures.push(failure);
  }

  /**
   * Records a provisional departure. Under `--strict-provisional` it is also a failure of the same check, so the
   * case fails and the run exits 1.
   */
  depart(check: string, expected: string, seen: string, reason: string, exchange?: Exchange, op?: OperationInfo): void {
    const redact = (text: string) => this.env.transport.options.redactor.redact(text);
    const departure: Departure = {
      check,
      operation: op?.operationId ?? this.def.operations.join(', '),
      expected,
      seen: redact(seen),
      reason,
    };
    if (exchange) {
      departure.status = exchange.response.status;
      departure.curl = this.env.transport.curl(exchange);
    }
    this.departures.push(departure);
    const t = this.tally(check);
    t.departed += 1;
    if (this.env.strictProvisional) {
      t.failed += 1;
      this.fail(check, `${expected} [provisional, failed by --strict-provisional: ${reason}]`, seen, exchange, op);
    }
  }

  /** Records a case-level check result (counted in the summary table). */
  assert(ok: boolean, check: string, expected: string, seen: string, exchange?: Exchange, op?: OperationInfo): boolean {
    const t = this.tally(check);
    t.evaluated += 1;
    if (!ok) {
      t.failed += 1;
      this.fail(check, expected, seen, exchange, op);
    }
    return ok;
  }

  /** Asserts the status (and error code) of a response. */
  expect(exchange: Exchange, op: OperationInfo, want: Expectation): boolean {
    const statuses = Array.isArray(want.status) ? want.status : [want.status];
    const codes = want.code === undefined ? undefined : Array.isArray(want.code) ? want.code : [want.code];
    const { status, json } = exchange.response;
    const code = errorCode(json);
    const statusOk = statuses.includes(status);
    const codeOk = codes === undefined || status < 400 || (code !== undefined && codes.includes(code));
    const expected = `HTTP ${statuses.join(' or ')}${codes ? ` ${codes.join(' or ')}` : ''}${want.why ? ` (${want.why})` : ''}`;
    const seen = `HTTP ${status}${code ? ` ${code}` : ''}`;
    const check = want.check ?? 'expected_outcome';
    if (!(statusOk && codeOk) && want.provisional !== undefined && accepted(status)) {
      this.tally(check).evaluated += 1;
      this.depart(check, expected, seen, want.provisional, exchange, op);
      return false;
    }
    return this.assert(statusOk && codeOk, check, expected, seen, exchange, op);
  }

  get last(): Exchange | undefined {
    return this.lastExchange;
  }
}

export function errorCode(json: unknown): string | undefined {
  const error = (json as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === 'string' ? error.code : undefined;
}

export function dataOf<T = unknown>(exchange: Exchange): T {
  return (exchange.response.json as { data?: T } | undefined)?.data as T;
}
