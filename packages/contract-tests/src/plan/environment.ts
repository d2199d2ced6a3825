// The environment a run works in, read from the credentials' own names: API keys are `{area}_{env}_…` and client ids
// `cli_{env}_…` (spec/components/schemas/TokenRequest.yaml). Test and live are separate data and a credential
// reaches only its own environment's (spec/DECISIONS.md G20, G21), so a run works in one environment, and it writes
// to the live one only when asked to (`--allow-live-writes`).
import type { ApiKeyCredential } from './credentials.js';
import { UsageError } from './credentials.js';

/**
 * The environment for development and integration checks (DECISIONS.md G20): the only one the kit writes to unasked.
 * Any other (`live`, or a segment the kit does not know) is treated as production.
 */
export const TEST_ENVIRONMENT = 'test';

/** The skip reason of a writing case with a live credential and no `--allow-live-writes`. */
export const LIVE_READ_ONLY = 'live key: read-only without --allow-live-writes';

const CLIENT_ID_SHAPE = /^cli_([a-z][a-z0-9]*)_./;

export interface RunEnvironment {
  /** `test`, `live`, …: the one environment of every credential given; undefined when none names one. */
  name?: string;
  /** Whether the kit may send writing requests there: always in the test environment, else only when allowed. */
  writes: boolean;
  /** Which credential named the environment, by the variable it is read from (never the secret). */
  namedBy: string[];
}

/** The environment of client credentials, from the client id's `cli_{env}_` prefix, if it has one. */
export function clientEnvironment(clientId: string): string | undefined {
  return CLIENT_ID_SHAPE.exec(clientId)?.[1];
}

/**
 * The run's environment. Mixed environments are a usage error, whatever the mix: every case that uses two
 * credentials together assumes one world (the JWT reads the product the key created; another seller's key must not
 * see the order in the same environment, or the isolation check proves nothing), so a mix could only give false
 * failures or false passes.
 */
export function runEnvironment(
  keys: ApiKeyCredential[],
  otherKeys: ApiKeyCredential[],
  clientId: string | undefined,
  allowLiveWrites: boolean,
): RunEnvironment {
  const named: Array<{ ref: string; env: string }> = [...keys, ...otherKeys].map((k) => ({
    ref: `$${k.ref} (${k.area}_${k.env}_…)`,
    env: k.env,
  }));
  if (clientId) {
    // The `cli_{env}_` shape is a design of ours (TokenRequest is x-provisional): a client id without it names no
    // environment, and the keys decide.
    const env = clientEnvironment(clientId);
    if (env) named.push({ ref: `$CLS_CLIENT_ID (cli_${env}_…)`, env });
  }
  const envs = [...new Set(named.map((n) => n.env))];
  if (envs.length > 1) {
    const list = envs
      .map(
        (e) =>
          `${e}: ${named
            .filter((n) => n.env === e)
            .map((n) => n.ref)
            .join(', ')}`,
      )
      .join('; ');
    throw new UsageError(
      `the credentials name different environments (${list}). Test and live are separate data (spec/DECISIONS.md G20): give credentials of one environment only`,
    );
  }
  const name = envs[0];
  return {
    ...(name !== undefined ? { name } : {}),
    writes: name === undefined || name === TEST_ENVIRONMENT || allowLiveWrites,
    namedBy: named.map((n) => n.ref),
  };
}
