import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { malformedQueryMessage } from '@cls-api/server';
import { ApiError } from '../errors.js';

/**
 * A query string whose percent escapes do not spell UTF-8 text is refused, as a path with one is by the router
 * (`frameworkErrorReply`): before authentication, and in the same words (`malformedQueryMessage` of @cls-api/server,
 * which says why). Fastify's query parser keeps such an escape as it came, so `?product_code=%FF` would be read as
 * the product code "%FF". A route the contract does not have is still answered 404 first.
 */
export const queryEscapes = fp(
  async (app: FastifyInstance) => {
    // A callback hook: no promise per request.
    app.addHook('onRequest', function refuseMalformedQuery(request, _reply, done) {
      const question = request.url.indexOf('?');
      const message =
        question === -1 || request.is404 ? undefined : malformedQueryMessage(request.url.slice(question + 1));
      done(message === undefined ? undefined : new ApiError('INVALID_PARAMETER', message));
    });
  },
  { name: 'query-escapes', fastify: '5.x', dependencies: ['cors'] },
);
