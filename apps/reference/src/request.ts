// What a request carries through the plugins and handlers (declared on Fastify's request type): the contract's
// operation it addresses, its time, the caller's credential and quota state.
import type { KeyArea, Route } from '@cls-api/server';
import type { SandboxOutcome } from '@cls-api/spec';
import type { Environment } from './environment.js';

/** Who is calling, as established by the auth plugin: an account, and the environment its credential reaches. */
export type Credential =
  | { kind: 'public' }
  | { kind: 'api_key'; accountId: string; keyArea: KeyArea; environment: Environment }
  | { kind: 'jwt'; accountId: string; environment: Environment };

/** A forced outcome (spec/sandbox/openapi.yaml, `X-Sandbox-Outcome`), checked against the operation's responses. */
export interface ForcedOutcome {
  outcome: SandboxOutcome;
  /** With `bulk_failed`: the row indexes that fail (`X-Sandbox-Failed-Rows`); every row when absent. */
  failedRows?: ReadonlySet<number>;
}

/** The caller's monthly-quota state, set by the quota plugin for test-key requests. */
export interface QuotaState {
  limit: number;
  remaining: number;
  /** 00:00 on the 1st of next month, service time zone. */
  reset: Date;
  /** True when this request was refused because the quota is used up. */
  exhausted: boolean;
  /** The month whose counter this call was counted in (absent when it was refused, so not counted). */
  countedIn?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract's route this Fastify route serves; absent on the not-found handler. */
    operation?: Route;
  }
  interface FastifyRequest {
    /**
     * The contract's operation this request addresses: the route's, unless a path parameter is empty
     * (`/v3/wms/orders/`), which addresses no operation.
     */
    operation: Route | undefined;
    /** The request time, read once from the server's clock. */
    now: Date;
    /**
     * The service time the request's records see (src/plugins/sandbox.ts): the account's test clock for a credential
     * of the test environment, else `now`. The quota's month and a JWT's expiry read `now`.
     */
    serviceNow: Date;
    /** The sandbox's forced outcome the request asks for (`X-Sandbox-Outcome`), answered instead of carrying it out. */
    forcedOutcome: ForcedOutcome | undefined;
    /**
     * The answer is a refusal the sandbox document declares (a forced outcome refused), not a response of the
     * operation: strict-contract mode checks it against neither the operation's codes nor its responses.
     */
    declaredBySandbox: boolean;
    credential: Credential | undefined;
    quota: QuotaState | undefined;
  }
}

/** The path of a request URL without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
