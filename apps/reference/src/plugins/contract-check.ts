import type { FastifyInstance } from 'fastify';
import type { OperationInfo, SchemaValidator } from '@cls-api/spec';
import fp from 'fastify-plugin';
import { responseValidator } from '../validation.js';
import { INTERNAL_ERROR_MESSAGE } from './error-mapping.js';

export interface ContractCheckOptions extends Record<string, unknown> {
  operations: ReadonlyMap<string, OperationInfo>;
  /** The contract model's `validator()`. */
  validator: SchemaValidator;
  violations: string[];
}

/**
 * Strict-contract mode (tests, and STRICT_CONTRACT=1): every response body is validated against the schema the
 * contract gives the operation's response of that status, `success` first. A mismatch is recorded and answered
 * as 500, so that no test can pass on a response the contract does not describe.
 */
export const contractCheck = fp<ContractCheckOptions>(
  async (app: FastifyInstance, options) => {
    const { operations, validator, violations } = options;
    const validators = new Map<string, ReturnType<typeof responseValidator>>();

    app.addHook('preSerialization', async function checkResponse(request, reply, payload) {
      const route = request.operation;
      // A refused forced outcome is the sandbox document's answer (SandboxOutcomeRefused, SandboxForbidden).
      if (!route || request.declaredBySandbox) return payload;
      let validate = validators.get(route.operationId);
      if (!validate) {
        validate = responseValidator(operations.get(route.operationId)!, validator);
        validators.set(route.operationId, validate);
      }
      let problem = validate(reply.statusCode, payload);
      if (!problem && (payload === null || typeof payload !== 'object' || Object.keys(payload)[0] !== 'success')) {
        problem = `${route.operationId} ${reply.statusCode}: the body does not start with success`;
      }
      if (!problem) return payload;
      violations.push(problem);
      request.log.error({ violation: problem }, 'contract violation');
      reply.code(500);
      return { success: false, error: { code: 'INTERNAL_ERROR', message: INTERNAL_ERROR_MESSAGE } };
    });
  },
  { name: 'contract-check', fastify: '5.x', dependencies: ['envelope', 'error-mapping'] },
);
