// One PostgreSQL server for the whole test run (Debian's, from @cls-api/test-servers); each suite makes its own
// databases on it (test/support/engines.ts). The migrations are applied once, to a template: a test that wants fresh
// storage gets a copy of it, where applying them again for each of some two hundred tests is most of its set-up.
import { startPostgres } from '@cls-api/test-servers';
import type { TestProject } from 'vitest/node';
import { openStorage, parseDatabaseTarget } from '../src/store/storage.js';
import { TEST_CONNECT_TIMEOUT_MS } from './support/connect-timeout.js';

/** The migrated database the run's fresh storages are copied from; never opened by a test. */
const MIGRATED_TEMPLATE = 'cls_migrated_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The URL of the run's PostgreSQL server without a database name (`…/`). */
    postgresBaseUrl: string;
    /** The database on it holding every migration and no rows, to copy (`CREATE DATABASE … TEMPLATE`). */
    postgresMigratedTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  try {
    // Closed before any copy: PostgreSQL copies a template no session is connected to.
    const template = parseDatabaseTarget(await server.createDatabase(MIGRATED_TEMPLATE));
    await (await openStorage(template, { connectTimeoutMs: TEST_CONNECT_TIMEOUT_MS })).close();
  } catch (err) {
    await server.stop();
    throw err;
  }
  project.provide('postgresBaseUrl', server.urlOf(''));
  project.provide('postgresMigratedTemplate', MIGRATED_TEMPLATE);
  return () => server.stop();
}
