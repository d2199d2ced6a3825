// Shutting down on SIGINT/SIGTERM/SIGHUP. close-with-grace owns the signals (a second one exits at once) and the
// last-resort exit; what is ours is the grace period: requests still running after it have their connections cut.
import { constants as osConstants } from 'node:os';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';

export interface ShutdownOptions {
  /** How long in-flight requests may take (SHUTDOWN_GRACE_MS); then their connections are cut. */
  graceMs: number;
  onClosed?: () => void;
}

/** The exit code of a command stopped by `signal`, as a shell reports it: 128 + its number (130, 143, 129). */
export const exitCodeOf = (signal: NodeJS.Signals): number => 128 + (osConstants.signals[signal] ?? 0);

/** How long the close may still take once the connections are cut, before the process exits anyway. */
const AFTER_CUT_MS = 1_000;

/**
 * Every event close-with-grace would listen to besides SIGINT, SIGTERM and SIGHUP (Ctrl-C, a stop, a closed
 * terminal): those keep Node's own behaviour.
 */
const LEFT_TO_NODE: closeWithGrace.AllEvents[] = [
  'SIGQUIT',
  'SIGILL',
  'SIGTRAP',
  'SIGABRT',
  'SIGBUS',
  'SIGFPE',
  'SIGSEGV',
  'SIGUSR2',
  'uncaughtException',
  'unhandledRejection',
  'beforeExit',
];

/** Cut connections: the close finished, but only after the grace period ended the requests still running. */
class GraceOver extends Error {}

/**
 * Graceful shutdown on SIGINT/SIGTERM/SIGHUP (src/plugins/graceful-close.ts): new connections are refused, in-flight
 * requests finish and are answered with `Connection: close`, then the database closes and the process exits 130,
 * 143 or 129, as a shell reports a command ended by that signal, and as `cluster` exits (so `pnpm reference serve`
 * ends with pnpm's "Command failed" line after Ctrl-C). Requests still running after `graceMs` have their
 * connections cut, and the process exits 1; so does a second signal, at once.
 */
export function shutdownOnSignals(app: FastifyInstance, options: ShutdownOptions): void {
  closeWithGrace(
    {
      delay: options.graceMs + AFTER_CUT_MS,
      logger: false,
      skip: LEFT_TO_NODE,
      onSecondSignal: (signal) => app.log.warn({ signal }, 'second signal: exiting now'),
      onTimeout: () => app.log.error('shutdown: the close did not finish after the connections were cut'),
    },
    async ({ signal }) => {
      // A closed terminal takes stdout with it: a log line that cannot be written must not cut the close short.
      if (signal === 'SIGHUP') process.stdout.on('error', () => undefined);
      app.log.info(
        { signal, graceMs: options.graceMs },
        'shutting down: refusing new connections, finishing in-flight requests',
      );
      let cut = false;
      const grace = setTimeout(() => {
        cut = true;
        app.log.error(
          { graceMs: options.graceMs },
          'shutdown grace period over: cutting the connections of requests still running',
        );
        app.server.closeAllConnections();
      }, options.graceMs);
      try {
        await app.close();
      } catch (err) {
        app.log.error({ err }, 'shutdown failed');
        throw err;
      } finally {
        clearTimeout(grace);
      }
      options.onClosed?.();
      app.log.info('shut down');
      // close-with-grace exits 1 on a rejection: the exit code says that requests were cut.
      if (cut) throw new GraceOver();
      // close-with-grace would exit 0; the signal's own code tells a caller the command was stopped, not done.
      process.exit(exitCodeOf(signal as NodeJS.Signals));
    },
  );
}
