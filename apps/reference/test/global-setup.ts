// One PostgreSQL server for the whole test run (Debian's, from @cls-api/test-servers); each suite makes its own
// databases on it (test/support/engines.ts).
import { startPostgres } from '@cls-api/test-servers';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the run's PostgreSQL server without a database name (`…/`). */
    postgresBaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide('postgresBaseUrl', server.urlOf(''));
  return () => server.stop();
}
