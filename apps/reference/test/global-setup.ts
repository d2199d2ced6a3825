// One PostgreSQL server for the whole test run (test/support/pg-server.ts); each suite makes its own databases on it.
import type { TestProject } from 'vitest/node';
import { startPgServer } from './support/pg-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the run's PostgreSQL server without a database name (`…/`). */
    postgresBaseUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPgServer();
  project.provide('postgresBaseUrl', server.urlOf(''));
  return () => server.stop();
}
