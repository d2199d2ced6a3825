// What every case of a run shares: the transport (its budget, quota cap, pacing and retries), the seeded random
// stream, the records it creates, the proofs and the access token.
import { dataOf, type CaseContext, type CheckTally, type RunEnv } from './case.js';
import type { Contract } from '../contract/contract.js';
import type { BearerCredential } from '../plan/credentials.js';
import { Generator, seededRandom } from '../contract/generate.js';
import { Transport } from './http.js';
import { IsolationLedger } from './isolation.js';
import { Evidence } from '../matrix/evidence.js';
import { RunObservations } from './observations.js';
import { PR_QUOTA } from '../plan/profile.js';
import { RecordLog } from './records.js';
import type { Profile, RunOptions } from '../plan/run-options.js';
import type { RunCredentials } from './credentials.js';

export const DEFAULT_QUOTA_RESERVE = 50;

/** The hard cap on the test-key calls of the run, if any. */
export function quotaCap(options: RunOptions, profile: Profile): number | undefined {
  // A pr run is held to its quota by the same hard cap as --max-quota (the smaller of the two).
  return options.examplesOnly
    ? undefined
    : profile === 'pr'
      ? Math.min(options.maxQuota ?? PR_QUOTA, PR_QUOTA)
      : options.maxQuota;
}

export function runEnv(
  options: RunOptions,
  contract: Contract,
  credentials: RunCredentials,
  seed: number,
  maxQuota: number | undefined,
): RunEnv {
  const { redactor, keys, otherKeys, environment } = credentials;
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

  const records = new RecordLog(contract, environment.name, !options.examplesOnly);
  const isolation = new IsolationLedger(contract, records.prefix);
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
    records,
    shared: new Map(),
    now: () => Date.now(),
    observations: new RunObservations(contract),
    isolation,
    evidence: new Evidence(contract, (op, exchange) => isolation.couldShow(op, exchange)),
    proofs: new Map(),
    jwt: async (t) => obtainJwt(env, t),
  };
  return env;
}

async function obtainJwt(env: RunEnv, t: CaseContext): Promise<BearerCredential> {
  if (env.bearer) return env.bearer;
  if (env.examplesOnly && (!env.clientId || !env.clientSecret)) {
    env.bearer = {
      kind: 'bearer',
      token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtb2NrIn0.bW9jaw',
      ref: 'CLS_ACCESS_TOKEN',
      seller: 'primary',
    };
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
  env.bearer = { kind: 'bearer', token, ref: 'CLS_ACCESS_TOKEN', seller: 'primary' };
  return env.bearer;
}
