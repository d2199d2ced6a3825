import type { FastifyPluginAsync } from 'fastify';
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

/**
 * A plugin whose hooks apply to the whole server rather than to its own encapsulated context: the same marker
 * that the `fastify-plugin` package sets.
 */
export function globalPlugin<T extends Record<string, unknown>>(name: string, plugin: FastifyPluginAsync<T>): FastifyPluginAsync<T> {
  return Object.assign(plugin, {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: name,
  });
}

/** The path of a request URL without its query string. */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
