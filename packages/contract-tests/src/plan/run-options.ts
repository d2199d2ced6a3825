// The options of one run of the kit: a module of its own so that the report (report.ts) and the command line
// (options.ts) can name them without importing the runner that imports them.
import type { OpenApiDocument } from '@cls-api/spec';
import type { Phase } from '../run/case.js';

export type Profile = 'full' | 'pr';
export const PROFILES: readonly Profile[] = ['full', 'pr'];
export type Target = 'server' | 'mock';
export const TARGETS: readonly Target[] = ['server', 'mock'];

export interface RunOptions {
  /** The server's base address, without `/v3`. */
  baseUrl: string;
  /** API keys of one seller, `{area}_{env}_…`, at most one per area needed. */
  apiKeys?: string[];
  /** API keys of another seller, for the isolation checks. */
  otherApiKeys?: string[];
  /** Client credentials for the JWT (POST /v3/auth/token). */
  clientId?: string;
  clientSecret?: string;
  /** Client credentials of another seller (optional): seller isolation is then also checked with its JWT. */
  otherClientId?: string;
  otherClientSecret?: string;
  /**
   * Run with no credential at all (`--no-credentials`): only what a request without one can prove. Without it, a
   * run given no credential is a usage error, so that a CI job whose secrets are empty never passes by accident.
   */
  noCredentials?: boolean;
  /** `full` (default): every check; `pr`: a seeded share of the metered checks within 15 test-key calls. */
  profile?: Profile;
  /**
   * A ledger file kept across runs (a CI cache): when each (operation, rule) pair was last proven and each pr slot
   * last ran. Read before the run (a pr run takes the slot that ran longest ago) and written after it.
   */
  ledger?: string;
  /** `server` (default), or `mock`: a stateless server (checks that need state are not applicable). */
  target?: Target;
  /** Set by the run itself when it found the target to be a stateless mock: what showed it. */
  detectedMock?: string;
  /** An access token that has expired (`CLS_EXPIRED_TOKEN`): reaches AUTH_EXPIRED_TOKEN. */
  expiredToken?: string;
  /** Write the run's access token here (`--save-token`), to be the next run's CLS_EXPIRED_TOKEN. */
  saveToken?: string;
  /** Seed of every generated input; printed in the report so that a run can be repeated. */
  seed?: number;
  /** GET requests only (plus the token request when client credentials are given). */
  readOnly?: boolean;
  /**
   * With credentials of an environment other than `test` (a live key): send writing requests there too. Without it
   * such a run is read-only (environment.ts).
   */
  allowLiveWrites?: boolean;
  /** Also run the rate-limit probes (bursts over the gateway limit). */
  probeLimits?: boolean;
  /**
   * Use the sandbox's helpers when the server offers them (default true; `--no-sandbox` turns it off): the test
   * clock reaches RETURN_CANCEL_EXPIRED, and a reset at the end removes every test record of each seller's account,
   * the kit's and any other (run/sandbox.ts).
   */
  sandbox?: boolean;
  /** Only the examples: for a mock, which answers with the examples when asked with Prefer. */
  examplesOnly?: boolean;
  /** Only cases about operations with these tags or operationIds. */
  tags?: string[];
  operations?: string[];
  /** Only these phases. */
  phases?: Phase[];
  /** Stop (skip the rest) after this many requests. */
  maxRequests?: number;
  /** Spend at most this many calls of each seller's test-key monthly quota, retries and probes included. */
  maxQuota?: number;
  /** Leave this many calls of a test key's monthly quota unspent (default 50). */
  quotaReserve?: number;
  /** Generated inputs per operation and kind (default 1). */
  runs?: number;
  /**
   * Count provisional departures (a design of ours the server does not follow) as failures: the run exits 1. By
   * default they are reported apart and do not change the exit code.
   */
  strictProvisional?: boolean;
  /** Progress lines; default: none (the CLI prints them). */
  log?: (line: string) => void;
  /**
   * Folder for request bodies too long to show inline in a curl line, which then reads them from there (the command
   * line: `requests/` beside --json or --junit). Without one, every body is inline.
   */
  artifactsDir?: string;
  /** Another contract document (default: the bundled @cls-api/spec). */
  spec?: OpenApiDocument;
  /** Fraction of the gateway rate to pace at (default 0.5); 0 disables pacing. */
  paceFraction?: number;
  /** First wait after a gateway 429 in ms (default 1000), doubling up to backoffMaxMs (default 60000). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Retries of a request the gateway keeps answering 429 (default 5). */
  maxRetries?: number;
  /** Per-request timeout in ms (default 30000). */
  timeoutMs?: number;
}
