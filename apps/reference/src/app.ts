import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createDomain } from './domain/index.js';
import { assembleApp, type Clock } from './framework.js';
import type { Db } from './store/db.js';

export interface BuildAppOptions {
  config: Config;
  /** An open database; when absent, `config.database` is opened and migrated (and closed with the server). */
  db?: Db;
  /** Close a database given in `db` when the server closes. */
  closeDb?: boolean;
  /** The server's clock (quota month, token expiry, return window, timestamps); injectable for tests. */
  clock?: Clock;
  logger?: Logger;
}

/** The reference server: the framework around the real domain. Call `listen` on the result to serve. */
export function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  return assembleApp({ ...options, createDomain });
}
