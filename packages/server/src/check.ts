import { routes } from '../generated/routes.js';

/** Operations of the contract without a handler, and handlers for operations the contract does not have. */
export function missingHandlers(handlers: object): { missing: string[]; unknown: string[] } {
  const expected = new Set<string>(routes.map((r) => r.operationId));
  const given = new Set(
    Object.entries(handlers)
      .filter(([, fn]) => typeof fn === 'function')
      .map(([name]) => name),
  );
  return {
    missing: [...expected].filter((id) => !given.has(id)),
    unknown: [...given].filter((id) => !expected.has(id)),
  };
}

/**
 * Fails start-up when the implementation does not cover the contract exactly: the types catch this at build time,
 * this catches it at run time (a handler object built dynamically, or a `dist/` older than the contract).
 */
export function assertHandlersComplete(handlers: object): void {
  const { missing, unknown } = missingHandlers(handlers);
  const problems: string[] = [];
  if (missing.length) problems.push(`no handler for ${missing.join(', ')}`);
  if (unknown.length) problems.push(`handlers for operations the contract does not have: ${unknown.join(', ')}`);
  if (problems.length) throw new Error(`the implementation does not match the contract: ${problems.join('; ')}`);
}
