// The Fastify instance's own options: the body limit, the router's parameter length, the framework's errors in the
// envelope, and the bounds on slow clients (README, "Limits and timeouts").
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyHttpOptions } from 'fastify';
import type { Server } from 'node:http';
import type { Config } from '../config.js';
import type { Contract } from '../contract-facts.js';
import { clientErrorHandler, frameworkErrorReply } from '../plugins/error-mapping.js';
import { lazyRequestLogger } from '../request-logger.js';

/** The largest request head Node's parser reads (its default); a larger one is 400 in the envelope. */
export const MAX_HEADER_BYTES = 16 * 1024;

export function httpOptions(
  config: Config,
  spec: Contract,
  logger: FastifyBaseLogger,
): FastifyHttpOptions<Server, FastifyBaseLogger> {
  return {
    loggerInstance: logger,
    childLoggerFactory: lazyRequestLogger,
    trustProxy: config.trustedProxies.length > 0 ? config.trustedProxies : false,
    bodyLimit: config.bodyLimitBytes,
    // find-my-way measures a parameter decoded. Every path value the contract allows (percent-encoded UTF-8, up
    // to the longest path parameter's maxLength) must reach validation, and so should one somewhat longer, whose
    // 400 then names the parameter; only a far longer one is refused by the router (400 via frameworkErrors).
    routerOptions: { maxParamLength: 2 * spec.maxPathParameterLength },
    exposeHeadRoutes: false,
    requestIdHeader: false,
    genReqId: () => randomUUID(),
    frameworkErrors: frameworkErrorReply(spec.catalog),
    // 503 is not a contract status: requests that arrive while the server closes are served, with Connection: close
    // (src/plugins/graceful-close.ts).
    return503OnClosing: false,
    // Slow clients (README, "Limits and timeouts"): the headers, the whole request, an idle connection and an idle
    // kept-alive connection each have a bound. Node checks the first two every `connectionsCheckingInterval`, so
    // that interval follows them: a bound of 300 ms is enforced within 300 ms, not within Node's default 30 s.
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.connectionTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(
        10,
        Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)),
      ),
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    clientErrorHandler: clientErrorHandler(spec.catalog, MAX_HEADER_BYTES, () => logger),
  };
}
