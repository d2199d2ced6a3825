// Test and live are separate data (spec/DECISIONS.md G20, G21): every credential reaches one environment, and
// every domain record belongs to one account and one environment.

import type { components, HandlerContext } from '@cls-api/server';

/** `test` or `live`: the environment segment of a key or client id, and the token response's `environment`. */
export type Environment = components['schemas']['Token']['environment'];

export const ENVIRONMENTS = ['test', 'live'] as const satisfies readonly Environment[];
// An environment the contract adds must be listed here: this fails to compile until it is.
const everyEnvironmentListed: [Exclude<Environment, (typeof ENVIRONMENTS)[number]>] extends [never] ? true : false =
  true;
void everyEnvironmentListed;

export function isEnvironment(value: unknown): value is Environment {
  return (ENVIRONMENTS as readonly unknown[]).includes(value);
}

/**
 * What a domain handler receives: the generated `HandlerContext` plus the environment of the credential, which the
 * generated stubs do not know of. The framework builds it from the authenticated credential (`src/assembly/routes.ts`).
 */
export interface RequestContext extends HandlerContext {
  environment: Environment;
}

/** The owner of a domain record: one seller account in one environment. */
export interface Owner {
  accountId: string;
  environment: Environment;
}

export function ownerOf(ctx: RequestContext): Owner {
  return { accountId: ctx.accountId, environment: ctx.environment };
}
