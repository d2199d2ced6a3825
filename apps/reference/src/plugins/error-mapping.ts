import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '@cls-api/server';
import type { ErrorCatalogEntry } from '@cls-api/spec';
import { ApiError } from '../errors.js';
import { globalPlugin } from '../fastify.js';
import { RequestValidationError } from '../validation.js';

export interface ErrorMappingOptions extends Record<string, unknown> {
  catalog: ReadonlyMap<string, ErrorCatalogEntry>;
  /** Strict-contract mode: a code the operation does not document for its status is a bug, answered with 500. */
  strict: boolean;
  violations: string[];
}

export const INTERNAL_ERROR_MESSAGE = 'An internal error occurred. Please report the request to the operations team.';

/** Messages for the request-level failures Fastify detects before our validation runs. */
const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'The request body must be sent as application/json.',
  FST_ERR_CTP_INVALID_TYPE: 'The request body must be sent as application/json.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the request body.',
  FST_ERR_BAD_URL: 'The request URL is malformed.',
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is too long.',
};

function isClientError(error: FastifyError): boolean {
  return typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500;
}

/**
 * Every error leaves as `{success: false, error: {code, message}}` with the status the contract's error
 * catalogue gives the code. Validation failures are 400 REQUIRED_PARAMETER (a required item is missing) or
 * INVALID_PARAMETER; unknown routes and methods are 404 NOT_FOUND; anything unexpected is 500 INTERNAL_ERROR with
 * a generic message, its details only in the log under the request id.
 */
export const errorMapping = globalPlugin<ErrorMappingOptions>('error-mapping', async (app: FastifyInstance, options) => {
  const { catalog, strict, violations } = options;

  function statusOf(code: ErrorCode): number {
    const entry = catalog.get(code);
    if (!entry) throw new Error(`error code ${code} is not in the contract's catalogue`);
    return entry.status;
  }

  function send(request: FastifyRequest, reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
    const status = statusOf(code);
    const route = request.operation;
    if (strict && route) {
      const listed: readonly string[] | undefined = (route.errorCodes as Record<string, readonly string[] | undefined>)[String(status)];
      if (!listed?.includes(code)) {
        const violation = `${route.operationId} answered ${status} ${code}, which its x-error-codes do not list for ${status}`;
        violations.push(violation);
        request.log.error({ violation }, 'contract violation');
        return reply.code(statusOf('INTERNAL_ERROR')).send({ success: false, error: { code: 'INTERNAL_ERROR', message: INTERNAL_ERROR_MESSAGE } });
      }
    }
    return reply.code(status).send({ success: false, error: { code, message } });
  }

  /** REQUIRED_PARAMETER where the operation documents it, else the general INVALID_PARAMETER. */
  function validationCode(request: FastifyRequest, missing: boolean): ErrorCode {
    const route = request.operation;
    if (!missing) return 'INVALID_PARAMETER';
    const listed: readonly string[] | undefined = route && (route.errorCodes as Record<string, readonly string[] | undefined>)['400'];
    return !route || listed?.includes('REQUIRED_PARAMETER') ? 'REQUIRED_PARAMETER' : 'INVALID_PARAMETER';
  }

  function handle(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (error instanceof ApiError) return send(request, reply, error.code, error.message);
    if (error instanceof RequestValidationError) return send(request, reply, validationCode(request, error.missing), error.message);
    const fastifyError = error as FastifyError;
    if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return send(request, reply, validationCode(request, true), 'The request body is required.');
    }
    if (isClientError(fastifyError) && (fastifyError.code?.startsWith('FST_') || error instanceof SyntaxError)) {
      const message = FRAMEWORK_MESSAGES[fastifyError.code] ?? (error instanceof SyntaxError ? FRAMEWORK_MESSAGES.FST_ERR_CTP_INVALID_JSON_BODY! : 'The request is malformed.');
      return send(request, reply, 'INVALID_PARAMETER', message);
    }
    request.log.error({ err: error, url: request.url, method: request.method }, 'unexpected error');
    return send(request, reply, 'INTERNAL_ERROR', INTERNAL_ERROR_MESSAGE);
  }

  app.setErrorHandler((error, request, reply) => handle(error as FastifyError, request, reply));

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
    return send(request, reply, 'NOT_FOUND', `No operation ${request.method} ${shown}.`);
  });
});

/** For Fastify's `frameworkErrors` option: URL-level failures found before routing, in the same envelope. */
export function frameworkErrorReply(catalog: ReadonlyMap<string, ErrorCatalogEntry>) {
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    const status = catalog.get('INVALID_PARAMETER')?.status ?? 400;
    reply.code(status).send({
      success: false,
      error: { code: 'INVALID_PARAMETER', message: FRAMEWORK_MESSAGES[error.code] ?? 'The request is malformed.' },
    });
  };
}
