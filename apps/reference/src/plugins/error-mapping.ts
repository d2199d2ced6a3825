import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  bodyMediaTypeMessage,
  bodyTooLargeMessage,
  type ErrorCode,
  MALFORMED_PATH_ESCAPE_MESSAGE,
  noOperationMessage,
  shown,
} from '@cls-api/server';
import type { ErrorCatalogEntry } from '@cls-api/spec';
import { ApiError, messageText } from '../errors.js';
import fp from 'fastify-plugin';
import { BODY_MEDIA_TYPE } from './json-body.js';
import { pathOf } from '../request.js';
import { DatabaseLockedError } from '../store/busy.js';
import { RequestValidationError } from '../validation.js';

export interface ErrorMappingOptions extends Record<string, unknown> {
  catalog: ReadonlyMap<string, ErrorCatalogEntry>;
  /** Strict-contract mode: a code the operation does not document for its status is a bug, answered with 500. */
  strict: boolean;
  violations: string[];
  /** `maxLength` of `Error.message` in the contract: no message is longer. */
  messageMaxLength: number;
  /** The body limit, named in the message that refuses a larger body. */
  bodyLimit: number;
}

export const INTERNAL_ERROR_MESSAGE = 'An internal error occurred. Please report the request to the operations team.';

/** Messages for the request-level failures Fastify detects before our validation runs. */
const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: bodyMediaTypeMessage(BODY_MEDIA_TYPE),
  FST_ERR_CTP_INVALID_TYPE: bodyMediaTypeMessage(BODY_MEDIA_TYPE),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The Content-Length header does not match the request body.',
  FST_ERR_BAD_URL: MALFORMED_PATH_ESCAPE_MESSAGE,
  FST_ERR_MAX_PARAM_LENGTH: 'A path parameter is too long.',
};

/** An error Fastify or Node gives a 4xx status: something about the request, never a fault of the server. */
function clientStatus(error: FastifyError): number | undefined {
  return typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500
    ? error.statusCode
    : undefined;
}

/** The envelope body of an error, `success` first. */
function envelopeText(code: string, message: string): string {
  return JSON.stringify({ success: false, error: { code, message } });
}

/**
 * A complete HTTP/1.1 error response as bytes, for the places where Node answers before Fastify exists for the
 * request (malformed HTTP, oversized headers, a request that was not received in time): the same envelope, and the
 * connection closes after it.
 */
export function rawErrorResponse(status: number, code: string, message: string): Buffer {
  const body = envelopeText(code, message);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    `X-Request-Id: ${randomUUID()}`,
  ];
  return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`, 'utf8');
}

/**
 * How long a connection refused after a parse error stays open to read what the client still sends: closing a
 * socket with unread data sends a reset, which can make the client lose the answer it was sent.
 */
const LINGER_MS = 2_000;

/** The in-flight response of a socket, as Node's HTTP server keeps it. */
type SocketWithMessage = Socket & { _httpMessage?: (ServerResponse & { req?: IncomingMessage }) | null };

/**
 * Whether a timeout fell on a connection that has sent no request: one opened and left idle (a browser keeps a spare
 * one). An answer written on it would be read as the answer to the client's next request, so it is closed without a
 * byte. Node times out a kept-alive connection's head only once a new request has begun (it closes an idle one at
 * the keep-alive timeout itself, silently), so a connection with nothing received is the only idle one it reports.
 */
export function idleTimedOut(err: NodeJS.ErrnoException, socket: Socket): boolean {
  return err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.bytesRead === 0;
}

/**
 * For Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (a bad header name, `Content-Length: abc`,
 * headers over the limit, a bad chunk size, bytes after the request) and requests not received in time are
 * answered 400 INVALID_PARAMETER in the envelope, never Node's bare 400, 408 or 431 (not contract statuses); a
 * connection that sent nothing is closed unanswered (`idleTimedOut`).
 */
export function clientErrorHandler(
  catalog: ReadonlyMap<string, ErrorCatalogEntry>,
  maxHeaderSize: number,
  log: () => FastifyInstance['log'],
) {
  const status = catalog.get('INVALID_PARAMETER')?.status ?? 400;
  const answered = new WeakSet<Socket>();
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (answered.has(socket)) return; // the parser reports each later chunk again
    answered.add(socket);
    if (err.code === 'ECONNRESET' || socket.destroyed || idleTimedOut(err, socket)) {
      socket.destroy();
      return;
    }
    const message =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? `The request headers are larger than ${maxHeaderSize} bytes.`
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'The request was not received in time.'
          : 'The request is not valid HTTP.';
    log().info({ code: err.code, remoteAddress: socket.remoteAddress }, 'malformed or stalled request refused');
    const answer = () => {
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      socket.end(rawErrorResponse(status, 'INVALID_PARAMETER', message));
      socket.resume();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
    const inFlight = (socket as SocketWithMessage)._httpMessage;
    if (inFlight?.headersSent) {
      // An answer is already on its way: bytes written now would corrupt it.
      socket.destroy();
    } else if (inFlight && inFlight.req?.complete === true && err.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
      // The bad bytes follow a complete request (pipelined, or sent after `Content-Length: 0`): that request is
      // answered first, then the refusal, then the connection closes.
      inFlight.once('finish', answer);
      inFlight.once('close', () => {
        if (!inFlight.writableFinished) socket.destroy();
      });
    } else {
      answer();
    }
  };
}

/**
 * Every error leaves as `{success: false, error: {code, message}}` with the status the contract's error
 * catalogue gives the code. Validation failures are 400 REQUIRED_PARAMETER (a required item is missing) or
 * INVALID_PARAMETER; unknown routes and methods are 404 NOT_FOUND; what Fastify refuses about a request (content
 * type, size, a body that did not arrive) is 400 INVALID_PARAMETER; anything unexpected is 500 INTERNAL_ERROR with
 * a generic message, its details only in the log under the request id. Every message is one line of at most the
 * contract's `Text` length, whatever it repeats of the request.
 */
export const errorMapping = fp<ErrorMappingOptions>(
  async (app: FastifyInstance, options) => {
    const { catalog, strict, violations, messageMaxLength, bodyLimit } = options;

    function statusOf(code: ErrorCode): number {
      const entry = catalog.get(code);
      if (!entry) throw new Error(`error code ${code} is not in the contract's catalogue`);
      return entry.status;
    }

    function send(
      request: FastifyRequest,
      reply: FastifyReply,
      code: ErrorCode,
      message: string,
      declaredBySandbox = false,
    ): FastifyReply {
      const status = statusOf(code);
      const route = request.operation;
      request.declaredBySandbox = declaredBySandbox;
      if (strict && route && !declaredBySandbox) {
        const listed: readonly string[] | undefined = (
          route.errorCodes as Record<string, readonly string[] | undefined>
        )[String(status)];
        if (!listed?.includes(code)) {
          const violation = `${route.operationId} answered ${status} ${code}, which its x-error-codes do not list for ${status}`;
          violations.push(violation);
          request.log.error({ violation }, 'contract violation');
          return reply
            .code(statusOf('INTERNAL_ERROR'))
            .send({ success: false, error: { code: 'INTERNAL_ERROR', message: INTERNAL_ERROR_MESSAGE } });
        }
      }
      return reply
        .code(status)
        .send({ success: false, error: { code, message: messageText(message, messageMaxLength) } });
    }

    /** REQUIRED_PARAMETER where the operation documents it, else the general INVALID_PARAMETER. */
    function validationCode(request: FastifyRequest, missing: boolean): ErrorCode {
      const route = request.operation;
      if (!missing) return 'INVALID_PARAMETER';
      const listed: readonly string[] | undefined =
        route && (route.errorCodes as Record<string, readonly string[] | undefined>)['400'];
      return !route || listed?.includes('REQUIRED_PARAMETER') ? 'REQUIRED_PARAMETER' : 'INVALID_PARAMETER';
    }

    function handle(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
      if (error instanceof ApiError) return send(request, reply, error.code, error.message, error.declaredBySandbox);
      if (error instanceof RequestValidationError)
        return send(request, reply, validationCode(request, error.missing), error.message);
      const fastifyError = error as FastifyError;
      if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        // The rest of the body is not read: the connection closes after the answer.
        reply.header('Connection', 'close');
        const limit = request.routeOptions.bodyLimit ?? bodyLimit;
        return send(request, reply, 'INVALID_PARAMETER', bodyTooLargeMessage(limit, bodyLimit));
      }
      const status = clientStatus(fastifyError);
      if (status !== undefined) {
        if (status === 404)
          return send(request, reply, 'NOT_FOUND', noOperationMessage(request.method, pathOf(request.url)));
        const known = FRAMEWORK_MESSAGES[fastifyError.code];
        // A body stream that ended early (the client went away, or a parse error cut it) has no Fastify code.
        const message =
          known ??
          (fastifyError.code?.startsWith('FST_')
            ? 'The request is malformed.'
            : 'The request body was not received completely.');
        request.log.info({ code: fastifyError.code, message: error.message }, 'request refused');
        return send(request, reply, 'INVALID_PARAMETER', message);
      }
      if (error instanceof DatabaseLockedError) {
        // Not a bug: another connection kept the write lock longer than DB_LOCK_TIMEOUT_MS (src/store/busy.ts).
        request.log.warn(
          { err: error, url: request.url, method: request.method },
          'write refused: the database stayed locked',
        );
        return send(request, reply, 'INTERNAL_ERROR', INTERNAL_ERROR_MESSAGE);
      }
      request.log.error({ err: error, url: request.url, method: request.method }, 'unexpected error');
      return send(request, reply, 'INTERNAL_ERROR', INTERNAL_ERROR_MESSAGE);
    }

    app.decorateRequest('declaredBySandbox', false);
    app.setErrorHandler((error, request, reply) => handle(error as FastifyError, request, reply));

    const notFound = (request: FastifyRequest, reply: FastifyReply) =>
      send(request, reply, 'NOT_FOUND', noOperationMessage(request.method, pathOf(request.url)));
    app.setNotFoundHandler(notFound);

    // A route or method the contract has nowhere is answered before Fastify reads a body for it: Fastify would
    // refuse a bodiless QUERY (no Content-Type) or a body it cannot parse with 400, where the answer is 404. A body
    // left unread is not read at all: the connection closes after the answer.
    app.addHook('onRequest', async function answerUnknownOperation(request, reply) {
      if (!request.is404) return;
      const { 'content-length': length, 'transfer-encoding': chunked } = request.headers;
      if (chunked !== undefined || (length !== undefined && length !== '0')) reply.header('Connection', 'close');
      return notFound(request, reply);
    });

    // `Expect: 100-continue` is answered by Node as it should be; any other expectation would get Node's bare 417.
    app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      res.shouldKeepAlive = false;
      const body = envelopeText(
        'INVALID_PARAMETER',
        `The Expect header ${shown(String(req.headers.expect ?? ''))} is not supported; only 100-continue is.`,
      );
      res.writeHead(statusOf('INVALID_PARAMETER'), {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      });
      res.end(body);
    });
    // CONNECT (a proxy tunnel) is a method the contract has nowhere: 404 like any other, then the connection closes.
    app.server.on('connect', (_req: IncomingMessage, socket: Socket) => {
      socket.end(
        rawErrorResponse(statusOf('NOT_FOUND'), 'NOT_FOUND', 'No operation CONNECT: this server is not a proxy.'),
      );
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    });
  },
  { name: 'error-mapping', fastify: '5.x' },
);

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
