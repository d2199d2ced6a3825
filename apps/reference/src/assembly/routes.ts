// One Fastify route per operation of the contract: its parameters, query and body validated against the
// contract's own schemas, then its handler called with the caller's context.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bodyLimitOf, routes, type Area, type HandlerContext, type Route } from '@cls-api/server';
import type { Contract } from '../contract-facts.js';
import type { RequestContext } from '../environment.js';
import { stringifyInSlices } from '../json-write.js';
import { isLargeBody } from '../plugins/json-body.js';
import { successSchemaOf } from '../serialization.js';
import { requestValidator } from '../validation.js';
import type { ServerHandlers } from './handlers.js';

type AnyHandler = (
  input: { params: unknown; query: unknown; body: unknown },
  ctx: HandlerContext | RequestContext,
) => Promise<unknown>;

/**
 * The handler's context. An authenticated call carries the environment of its credential (DECISIONS G20), which
 * every domain handler needs; the public token operations have none and get the generated context only.
 */
function context(request: FastifyRequest, route: Route): HandlerContext | RequestContext {
  const credential = request.credential;
  // One object per request, built whole (no base object spread into another).
  if (credential && credential.kind !== 'public')
    return {
      accountId: credential.accountId,
      area: route.area as Area,
      keyArea: credential.kind === 'api_key' ? credential.keyArea : null,
      // The one place the domain's time comes from: the account's test clock for test data (src/plugins/sandbox.ts).
      now: request.serviceNow,
      log: request.log,
      environment: credential.environment,
    };
  // Only operations without `security` get here; a domain handler without an environment would be a bug.
  if (route.security.length > 0) throw new Error(`${route.operationId} was reached without a credential`);
  return { accountId: '', area: route.area as Area, keyArea: null, now: request.now, log: request.log };
}

/**
 * Registers one Fastify route per operation of the generated route table. Params, query and body are validated
 * against the contract's own schemas (the contract model's validators; params and query coerced from strings and defaulted, the body
 * taken as sent) before the handler runs.
 */
export function registerRoutes(
  app: FastifyInstance,
  handlers: ServerHandlers,
  spec: Contract,
  bodyLimit: number,
): void {
  // Requests may carry any member of an open set (`openValues`); responses are held to the known ones.
  const validators = {
    parameters: spec.model.validator({ coerceTypes: true, openValues: true }),
    body: spec.model.validator({ openValues: true }),
  };
  const validatorOptions = { doc: spec.doc, integerSyntax: spec.limits };
  for (const route of routes) {
    const op = spec.operations.get(route.operationId);
    if (!op)
      throw new Error(
        `the route table has ${route.operationId}, which the loaded contract does not: rebuild @cls-api/server`,
      );
    const validate = requestValidator(op, validators, validatorOptions);
    const handler = handlers[route.operationId] as AnyHandler;
    const [status] = route.successStatuses;
    const response = successSchemaOf(spec, route.operationId, status!);
    app.route({
      method: route.method,
      url: route.url,
      config: { operation: route },
      // The success response written from its schema when that gives JSON.stringify's bytes (src/serialization.ts).
      ...(response ? { schema: { response: { [status!]: response } } } : {}),
      bodyLimit: bodyLimitOf(route.operationId, { bodyLimit, operationLimits: spec.operationBodyLimits }),
      // A large body's rows are checked in slices of the event loop, as it was parsed (src/plugins/json-body.ts).
      preValidation: async function validateRequest(request) {
        await validate(request, isLargeBody(request.headers));
      },
      // The success answer to a large body (a row per row sent) is written in slices, as the body was read: last of
      // the hooks before writing (a route's own come after the server's), so it writes the enveloped, checked value.
      // Other answers are Fastify's own.
      ...(response
        ? {}
        : {
            preSerialization: async function writeLargeAnswerInSlices(request, reply, payload: unknown) {
              if (reply.statusCode !== status || !isLargeBody(request.headers)) return payload;
              const bytes = await stringifyInSlices(payload);
              // Fastify writes what a serializer returns as it is: bytes skip its encoding and length count too.
              reply.serializer(() => bytes as unknown as string);
              return payload;
            },
          }),
      handler: async (request, reply) => {
        const result = await handler(
          { params: request.params, query: request.query, body: request.body },
          context(request, route),
        );
        // An async handler that resolves to nothing would leave the request hanging.
        if (result === undefined) throw new Error(`the handler of ${route.operationId} returned no result`);
        reply.code(status);
        return result;
      },
    });
  }
}
