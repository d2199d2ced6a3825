import type { FastifyInstance, FastifyRequest } from 'fastify';
import { routes, type Area, type HandlerContext, type Handlers, type Route } from '@cls-api/server';
import type { Contract } from './contract.js';
import { contractAjv, requestValidator } from './validation.js';

type AnyHandler = (input: { params: unknown; query: unknown; body: unknown }, ctx: HandlerContext) => Promise<unknown>;

function context(request: FastifyRequest, route: Route): HandlerContext {
  const credential = request.credential;
  return {
    accountId: credential && credential.kind !== 'public' ? credential.accountId : '',
    area: route.area as Area,
    keyArea: credential?.kind === 'api_key' ? credential.keyArea : null,
    now: request.now,
    log: request.log,
  };
}

/**
 * Registers one Fastify route per operation of the generated route table. Params, query and body are validated
 * against the contract's own schemas (Ajv 2020; params and query coerced from strings and defaulted, the body
 * taken as sent) before the handler runs.
 */
export function registerRoutes(app: FastifyInstance, handlers: Handlers, spec: Contract): void {
  const ajv = { coercing: contractAjv(spec.doc, { coerceTypes: true, useDefaults: true }), strict: contractAjv(spec.doc, { coerceTypes: false, useDefaults: false }) };
  for (const route of routes) {
    const op = spec.operations.get(route.operationId);
    if (!op) throw new Error(`the route table has ${route.operationId}, which the loaded contract does not: rebuild @cls-api/server`);
    const validate = requestValidator(op, ajv);
    const handler = handlers[route.operationId] as AnyHandler;
    const [status] = route.successStatuses;
    app.route({
      method: route.method,
      url: route.url,
      config: { operation: route },
      preValidation: async (request) => {
        validate(request);
      },
      handler: async (request, reply) => {
        const result = await handler({ params: request.params, query: request.query, body: request.body }, context(request, route));
        // An async handler that resolves to nothing would leave the request hanging.
        if (result === undefined) throw new Error(`the handler of ${route.operationId} returned no result`);
        reply.code(status);
        return result;
      },
    });
  }
}
