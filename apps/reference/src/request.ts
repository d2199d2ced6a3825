// What a request carries through the plugins and handlers (declared on Fastify's request type): the contract's
// operation it addresses, its time, the caller's credential and quota state.
import type { KeyArea, Route } from '@cls-api/server';
import type { Environment } from './environment.js';

/** Who is calling, as established by the auth plugin: an account, and the environment its credential reaches. */
export type Credential =
  | { kind: 'public' }
  | { kind: 'api_key'; accountId: string; keyArea: KeyArea; environment: Environment }
  | { kind: 'jwt'; accountId: string; environment: Environment };

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
  /** The id of this call's charge, by which it is given back (DECISIONS.md G31). */
  charge?: string;
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
    credential: Credential | undefined;
    quota: QuotaState | undefined;
  }
}

/** The path of a request URL without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
