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

/**
 * Graceful shutdown on SIGINT/SIGTERM: stop accepting connections, answer 503 to new requests on open ones,
 * let in-flight requests finish, close the database. A second signal, or `timeoutMs`, forces the exit.
 */
export function shutdownOnSignals(app: FastifyInstance, options: { timeoutMs?: number; onClosed?: () => void } = {}): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) {
      app.log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out: exiting');
      process.exit(1);
    }, options.timeoutMs ?? 30_000);
    timer.unref();
    app.close().then(
      () => {
        options.onClosed?.();
        app.log.info('shut down');
        process.exitCode = 0;
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
