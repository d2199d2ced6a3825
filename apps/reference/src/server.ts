import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildAppOptions } from './app.js';

/** Where the server listens, as a base URL a client can use (0.0.0.0 and :: are shown as loopback). */
export function baseUrlOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the server is not listening on a TCP port');
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** Builds the server and listens on config.port / config.host. */
export async function startServer(options: BuildAppOptions): Promise<FastifyInstance> {
  const app = await buildApp(options);
  try {
    await app.listen({ port: options.config.port, host: options.config.host });
  } catch (err) {
    await app.close();
    throw err;
  }
  return app;
}

export interface ShutdownOptions {
  /** How long in-flight requests may take (SHUTDOWN_GRACE_MS); then their connections are cut. */
  graceMs: number;
  onClosed?: () => void;
}

/**
 * Graceful shutdown on SIGINT/SIGTERM (src/plugins/graceful-close.ts): new connections are refused, in-flight
 * requests finish and are answered with `Connection: close`, then the database closes and the process exits 0.
 * Requests still running after `graceMs` have their connections cut, and the process exits 1; so does a second
 * signal, at once.
 */
export function shutdownOnSignals(app: FastifyInstance, options: ShutdownOptions): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    app.log.info({ signal, graceMs: options.graceMs }, 'shutting down: refusing new connections, finishing in-flight requests');
    let cut = false;
    const grace = setTimeout(() => {
      cut = true;
      app.log.error({ graceMs: options.graceMs }, 'shutdown grace period over: cutting the connections of requests still running');
      app.server.closeAllConnections();
      // The close waits for nothing more now; if it still does not finish, do not hang.
      setTimeout(() => process.exit(1), 1_000).unref();
    }, options.graceMs);
    grace.unref();
    app.close().then(
      () => {
        clearTimeout(grace);
        options.onClosed?.();
        app.log.info('shut down');
        process.exitCode = cut ? 1 : 0;
      },
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
