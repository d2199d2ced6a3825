// The sandbox's helpers in a run (contract/sandbox.ts reads their document). Whether the server offers them is found
// out once, when a case or the cleanup first has a use for them (a run that needs none sends nothing more): GET
// /sandbox/clock with a test key answering 200 as the sandbox document shapes it. A 404 (the service, or a server without them) or any other answer means absent, and the run goes as without
// them. They are used only in the test environment (DECISIONS.md G20, G31), never with a live credential, and never
// in a read-only run (a reset and a clock move are writes).
import type { SandboxDocument, SandboxHelper } from '../contract/sandbox.js';
import { SandboxDocument as SandboxReader } from '../contract/sandbox.js';
import type { ApiKeyCredential, Seller } from '../plan/credentials.js';
import { TEST_ENVIRONMENT } from '../plan/environment.js';
import type { Contract } from '../contract/contract.js';
import { BudgetSkip, ConnectionError, Skip, type Exchange, type Transport } from './http.js';

/** What of the run the helpers use (the run's `RunEnv` has it; named here so that case.ts can hold the access). */
export interface SandboxEnv {
  contract: Contract;
  transport: Transport;
  keys: ApiKeyCredential[];
  otherKeys: ApiKeyCredential[];
  examplesOnly: boolean;
  readOnly: boolean;
}

/** What the run's report says of the sandbox's helpers. */
export interface SandboxReport {
  /** Whether the server offers them (GET /sandbox/clock answered 200 as documented). */
  offered: boolean;
  /** Why not, or with what: the discovery's answer. */
  why: string;
  /** The resets at the end of the run, per seller: the records the server said it removed. */
  resets?: Array<{ seller: Seller; removed?: Record<string, number>; error?: string }>;
}

/** The helpers of a server that offers them. */
export class SandboxSession {
  readonly resets: NonNullable<SandboxReport['resets']> = [];

  constructor(
    readonly env: SandboxEnv,
    readonly document: SandboxDocument,
    readonly why: string,
  ) {}

  /** The test key a seller's helper calls go with: the first of the seller's test-environment keys. */
  credential(seller: Seller): ApiKeyCredential | undefined {
    const keys = seller === 'primary' ? this.env.keys : this.env.otherKeys;
    return keys.find((k) => k.env === TEST_ENVIRONMENT);
  }

  /**
   * Calls a helper for a seller, through the transport (paced, within the request budget). Not counted against the
   * seller's monthly quota when the sandbox document says the service does not count it.
   */
  async call(helper: SandboxHelper, seller: Seller, body?: unknown): Promise<Exchange> {
    const credential = this.credential(seller);
    if (!credential) throw new Skip(`the ${seller} seller has no test key for the sandbox's helpers`);
    const op = this.document.operation(helper);
    return this.env.transport.send({
      method: op.method,
      path: op.path,
      credential,
      ...(body !== undefined ? { body } : {}),
      ...(this.document.metered(helper) ? {} : { unmetered: true }),
    });
  }

  /** A helper's `data`, or an Error saying how its answer differs from the sandbox document. */
  async data<T>(helper: SandboxHelper, seller: Seller, body?: unknown): Promise<T> {
    const ex = await this.call(helper, seller, body);
    const { status, json } = ex.response;
    const errors = this.document.successErrors(helper, status, json);
    if (errors.length > 0) {
      const code = (json as { error?: { code?: string } } | undefined)?.error?.code;
      const op = this.document.operation(helper);
      throw new SandboxAnswerError(
        `${op.method.toUpperCase()} ${op.path} answered ${status}${code ? ` ${code}` : ''}: ${errors.slice(0, 3).join('; ')}`,
      );
    }
    return (json as { data: T }).data;
  }

  report(): SandboxReport {
    return { offered: true, why: this.why, ...(this.resets.length > 0 ? { resets: this.resets } : {}) };
  }
}

/** A helper answered other than its document says. */
export class SandboxAnswerError extends Error {
  override name = 'SandboxAnswerError';
}

/** The helpers of a run: whether the server offers them is asked once, at the first use. */
export class SandboxAccess {
  private asked: Promise<{ report: SandboxReport; session?: SandboxSession }> | undefined;
  private answer: { report: SandboxReport; session?: SandboxSession } | undefined;

  constructor(
    private readonly env: SandboxEnv,
    private readonly enabled: boolean,
  ) {}

  /** The helpers when the server offers them, else undefined; the first call asks the server. */
  async session(): Promise<SandboxSession | undefined> {
    this.asked ??= discoverSandbox(this.env, this.enabled).then((found) => {
      this.answer = found;
      return found;
    });
    return (await this.asked).session;
  }

  /** What the report says: undefined when the run never asked. */
  report(): SandboxReport | undefined {
    if (!this.answer) return undefined;
    return this.answer.session ? this.answer.session.report() : this.answer.report;
  }
}

/**
 * Whether the server offers the helpers, asked once with the primary seller's test key; `session` is set when it
 * does. Not asked against a mock (its answers are examples), in a read-only run, without a test key, or when the
 * run is told not to (`sandbox: false`, `--no-sandbox`).
 */
export async function discoverSandbox(
  env: SandboxEnv,
  enabled: boolean,
): Promise<{ report: SandboxReport; session?: SandboxSession }> {
  const absent = (why: string) => ({ report: { offered: false, why } });
  if (!enabled) return absent('not used (--no-sandbox)');
  if (env.examplesOnly) return absent('not asked: a mock answers with examples');
  if (env.readOnly) return absent('not asked: a read-only run');
  const document = new SandboxReader(env.contract.quotaHeaders.remaining);
  const probe = new SandboxSession(env, document, '');
  if (!probe.credential('primary')) return absent(`not asked: no ${TEST_ENVIRONMENT} key`);
  const op = document.operation('readClock');
  const asked = `${op.method.toUpperCase()} ${op.path}`;
  let ex: Exchange;
  try {
    ex = await probe.call('readClock', 'primary');
  } catch (err) {
    if (err instanceof BudgetSkip || err instanceof Skip || err instanceof ConnectionError)
      return absent(`${asked}: ${err.message}`);
    throw err;
  }
  const { status, json } = ex.response;
  if (status === 404) return absent(`${asked} answered 404: the server has none`);
  const errors = document.successErrors('readClock', status, json);
  if (errors.length > 0) return absent(`${asked} did not answer as the sandbox document says: ${errors[0]}`);
  const why = `${asked} answered 200`;
  return { report: { offered: true, why }, session: new SandboxSession(env, document, why) };
}
