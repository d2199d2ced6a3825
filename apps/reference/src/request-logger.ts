// Each request's logger (`request.log`), made when the request first logs something at a level the server writes.
// Fastify gives every request a pino child bound to its request id; making that child copies the parent's
// bindings and serializers, which was one of the larger items of a GET's profile (BENCHMARKS.md), and at the
// production level (warn) almost no request ever writes a line.
import type { FastifyBaseLogger, FastifyHttpOptions } from 'fastify';
import type { Server } from 'node:http';
import type { Bindings, ChildLoggerOptions, Level, LevelWithSilent, Logger } from 'pino';

class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The pino child every line goes through, made once. */
  private get bound(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): LevelWithSilent {
    return (this.made ?? this.parent).level as LevelWithSilent;
  }

  set level(level: LevelWithSilent) {
    this.bound.level = level;
  }

  private write(method: Level, args: unknown[]): void {
    // A child whose own level was changed decides for itself; otherwise nothing is made for a line not written.
    // The server's logger is pino's (server.ts, createLogger), which says which levels it writes.
    if (this.made === undefined && !(this.parent as Logger).isLevelEnabled(method)) return;
    (this.bound[method] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.bound.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: the request's logger, bound to its request id as Fastify's own would be. */
export const lazyRequestLogger: NonNullable<FastifyHttpOptions<Server>['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
