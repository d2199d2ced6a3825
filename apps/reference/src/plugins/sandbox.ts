// The sandbox's helpers (spec/sandbox/openapi.yaml, DECISIONS G31), for test credentials only: the account's test
// clock as the service time of its test data (`testClock`), forced outcomes of the contract's operations
// (`forcedOutcomes`), and the /sandbox/ routes: the reset and the clock (`sandboxHelpers`).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  bulkRows,
  failedRowsOf,
  type IntegerQuerySyntax,
  type JsonSchema,
  liveCredentialMessage,
  type OpenApiDocument,
  type OperationInfo,
  type QuotaHeaders,
  referenceOf,
  resolvePointer,
  rowBeyondRequest,
  type SandboxOutcome,
  ServiceTime,
  undeclaredOutcomeMessage,
  unknownOutcomeMessage,
} from '@cls-api/spec';
import { type Route, shown } from '@cls-api/server';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';
import type { Owner } from '../environment.js';
import type { Contract } from '../contract-facts.js';
import type { ForcedOutcome } from '../request.js';
import { type ClockChange, clockedAccount, type SandboxClocks } from '../sandbox/clock.js';
import type { SandboxSeed } from '../domain/index.js';
import type { SandboxFacts } from '../sandbox/facts.js';
import { requestValidator, responseValidator } from '../validation.js';
import { INTERNAL_ERROR_MESSAGE } from './error-mapping.js';
import { GATEWAY_LIMIT_MESSAGE } from './gateway-rate-limit.js';
import { QUOTA_EXHAUSTED_MESSAGE } from './quota.js';

/** A header's value; an empty header counts as not sent. */
function header(request: FastifyRequest, name: string): string | undefined {
  const raw = request.headers[name.toLowerCase()];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value === '' ? undefined : value;
}

/** Refusals the sandbox document declares (`SandboxForbidden`, `SandboxOutcomeRefused`, `SandboxBadRequest`). */
function refused(message: string): ApiError {
  return new ApiError('INVALID_PARAMETER', message, true);
}
function liveRefused(what: Parameters<typeof liveCredentialMessage>[0]): ApiError {
  return new ApiError('AUTH_FORBIDDEN', liveCredentialMessage(what), true);
}

/** The test owner of a request's credential, or the refusal of a live one. */
function testOwner(request: FastifyRequest, what: Parameters<typeof liveCredentialMessage>[0]): Owner {
  const credential = request.credential;
  if (!credential || credential.kind === 'public') throw new Error(`${what} reached without a credential`);
  if (credential.environment !== 'test') throw liveRefused(what);
  return { accountId: credential.accountId, environment: 'test' };
}

// ---------------------------------------------------------------------------------------------------------------
// The test clock

export interface TestClockOptions extends Record<string, unknown> {
  clocks: SandboxClocks;
}

/**
 * Reads the service time of every contract operation's request once, before its handler: the account's test clock
 * for a test credential, real time otherwise. Read from the database on each request, so a clock set through any
 * instance is the one every instance reads next.
 */
export const testClock = fp<TestClockOptions>(
  async (app: FastifyInstance, { clocks }) => {
    app.decorateRequest('serviceNow', undefined as unknown as Date);
    // A callback hook: live and public calls, the most frequent, cost no promise and no read.
    app.addHook('preHandler', function readTestClock(request, _reply, done) {
      if (!request.operation || clockedAccount(request.credential) === undefined) {
        request.serviceNow = request.now;
        done();
        return;
      }
      clocks.serviceNow(request.credential, request.now).then((now) => {
        request.serviceNow = now;
        done();
      }, done);
    });
  },
  { name: 'test-clock', fastify: '5.x', dependencies: ['auth'] },
);

// ---------------------------------------------------------------------------------------------------------------
// Forced outcomes

export interface ForcedOutcomesOptions extends Record<string, unknown> {
  sandbox: SandboxFacts;
  spec: Contract;
  quotaHeaders: QuotaHeaders;
  timeZone: string;
}

/** How a bulk registration's 200 answers its rows, read from the contract (`BulkResultRow` rows). */
interface BulkShape {
  /** `drafts`, `results`, `options`: the rows of `data`. */
  rowsKey: string;
  /** `created_count`, `added_count`: the other `RowCount` of `data`. */
  succeededKey: string;
  failedKey: string;
  /** Each property of a row with what a success and a failure put there. */
  row: Array<{ name: string; fill: 'success' | 'message' | 'time' | 'known' | 'identifier'; known?: string }>;
}

const BULK_ROW = '#/components/schemas/BulkResultRow';
const FAILED_COUNT = 'failed_count';
const FORCED_ROW_MESSAGE = 'Failed as asked by X-Sandbox-Outcome: bulk_failed; nothing was registered.';

function schemaAt(doc: OpenApiDocument, schema: unknown): JsonSchema {
  let node = schema as JsonSchema;
  for (let hops = 0; hops < 32 && typeof node?.$ref === 'string'; hops++)
    node = resolvePointer(doc, node.$ref as string) as JsonSchema;
  return node ?? {};
}

/** The bulk shape of an operation's 200, or undefined when its rows are not `BulkResultRow`s. */
function bulkShapeOf(doc: OpenApiDocument, op: OperationInfo): BulkShape | undefined {
  const body = schemaAt(doc, op.responses['200']?.schema);
  const data = schemaAt(doc, (body.properties as Record<string, unknown> | undefined)?.data);
  const props = Object.entries((data.properties as Record<string, unknown> | undefined) ?? {});
  for (const [rowsKey, raw] of props) {
    const items = schemaAt(doc, schemaAt(doc, raw).items);
    const parts = (items.allOf as JsonSchema[] | undefined) ?? [];
    if (!parts.some((p) => p.$ref === BULK_ROW)) continue;
    const succeededKey = props.map(([name]) => name).find((name) => name !== rowsKey && name !== FAILED_COUNT);
    if (!succeededKey) return undefined;
    const row: BulkShape['row'] = [];
    // A row is `BulkResultRow` and the operation's own row, which is a `oneOf` of a success row and a failure row
    // (`success` const true or false): the success row says what a success puts in each field, so it is read first.
    const branches = parts
      .map((p) => schemaAt(doc, p))
      .flatMap((part) => (Array.isArray(part.oneOf) ? (part.oneOf as unknown[]).map((b) => schemaAt(doc, b)) : [part]));
    const succeeds = (b: JsonSchema) =>
      (((b.properties as Record<string, JsonSchema> | undefined)?.success ?? {}) as JsonSchema).const === true;
    branches.sort((a, b) => Number(succeeds(b)) - Number(succeeds(a)));
    for (const part of branches) {
      for (const [name, property] of Object.entries((part.properties as Record<string, unknown>) ?? {})) {
        if (row.some((r) => r.name === name)) continue;
        const ref = referenceOf(property)?.$ref;
        const known = (schemaAt(doc, ref ? { $ref: ref } : property)['x-known-values'] as unknown[] | undefined)?.find(
          (v): v is string => typeof v === 'string' && v !== '',
        );
        const fill =
          name === 'success'
            ? 'success'
            : name === 'result_message'
              ? 'message'
              : ref?.endsWith('/DateTime')
                ? 'time'
                : known !== undefined
                  ? 'known'
                  : 'identifier';
        row.push({ name, fill, ...(known !== undefined ? { known } : {}) });
      }
    }
    return { rowsKey, succeededKey, failedKey: FAILED_COUNT, row };
  }
  return undefined;
}

/** Whether the operation declares the outcome for this credential (the guide's table, read from the contract). */
function declares(
  op: OperationInfo,
  outcome: SandboxOutcome,
  code: string | undefined,
  bulk: boolean,
  byApiKey: boolean,
  retryAfter: string,
): boolean {
  if (outcome === 'bulk_failed') return bulk;
  const status = outcome === 'internal_error' ? '500' : '429';
  const response = op.responses[status];
  if (!response || code === undefined || !response.errorCodes.includes(code)) return false;
  if (outcome !== 'quota_exceeded') return true;
  // The quota's 429 is the one with Retry-After, and only test API keys have a quota (JWT calls have none).
  return byApiKey && Object.keys(response.headers).some((h) => h.toLowerCase() === retryAfter.toLowerCase());
}

/**
 * `X-Sandbox-Outcome` on a contract operation: checked as the request arrives (a test credential, an outcome the
 * operation declares), so that the quota neither counts nor refuses it; answered after the request's validation,
 * instead of its handler, writing nothing.
 */
export const forcedOutcomes = fp<ForcedOutcomesOptions>(
  async (app: FastifyInstance, options) => {
    const { sandbox, spec, quotaHeaders } = options;
    const { outcomeHeader, failedRowsHeader, outcomes } = sandbox.outcomes;
    const time = new ServiceTime(options.timeZone);
    const bulkShapes = new Map<string, BulkShape>();
    for (const op of spec.operations.values()) {
      const shape = bulkShapeOf(spec.doc, op);
      if (shape) bulkShapes.set(op.operationId, shape);
    }

    app.decorateRequest('forcedOutcome', undefined);

    /** The forced outcome a request asks for, checked; throws the refusal the sandbox document declares. */
    function forcedOutcomeOf(request: FastifyRequest, route: Route): ForcedOutcome | undefined {
      const value = header(request, outcomeHeader);
      const rows = header(request, failedRowsHeader);
      if (value === undefined && rows === undefined) return undefined;
      const op = spec.operations.get(route.operationId)!;
      const credential = request.credential;
      if (!credential || credential.kind === 'public')
        throw refused(`${outcomeHeader} takes a test credential; ${route.operationId} takes none.`);
      if (credential.environment !== 'test') throw liveRefused('Forced outcomes');
      if (value === undefined) {
        // Rows without an outcome: always refused.
        const read = failedRowsOf(sandbox.outcomes, value, rows!, shown);
        throw refused('refused' in read ? read.refused : `${outcomeHeader} is missing.`);
      }
      const outcome = value as SandboxOutcome;
      if (!outcomes.has(outcome)) throw refused(unknownOutcomeMessage(sandbox.outcomes, value));
      const byApiKey = credential.kind === 'api_key';
      const code = outcomes.get(outcome)!.code;
      if (!declares(op, outcome, code, bulkShapes.has(op.operationId), byApiKey, quotaHeaders.retryAfter)) {
        throw refused(undeclaredOutcomeMessage(sandbox.outcomes, outcome, route.operationId, !byApiKey));
      }
      const forced: ForcedOutcome = { outcome };
      if (rows !== undefined) {
        const read = failedRowsOf(sandbox.outcomes, outcome, rows, shown);
        if ('refused' in read) throw refused(read.refused);
        forced.failedRows = read.rows;
      }
      return forced;
    }

    // Callback hooks: a request without the headers, nearly every one, costs no promise.
    app.addHook('onRequest', function readForcedOutcome(request, _reply, done) {
      const route = request.operation;
      // The headers mean something on the contract's operations only.
      if (route === undefined) return done();
      try {
        request.forcedOutcome = forcedOutcomeOf(request, route);
      } catch (err) {
        return done(err as Error);
      }
      done();
    });

    function bulkAnswer(request: FastifyRequest, shape: BulkShape, failed: ReadonlySet<number> | undefined) {
      const sent = bulkRows(request.body) as Array<Record<string, unknown>>;
      const beyond = failed && rowBeyondRequest(sandbox.outcomes, failed, sent.length);
      if (beyond) throw refused(beyond);
      const at = time.format(ServiceTime.seconds(request.serviceNow));
      const rows = sent.map((input, index) => {
        const ok = failed !== undefined && !failed.has(index);
        const out: Record<string, unknown> = {};
        for (const { name, fill, known } of shape.row) {
          if (fill === 'success') out[name] = ok;
          else if (fill === 'message') out[name] = ok ? '' : FORCED_ROW_MESSAGE;
          else if (name in input) out[name] = input[name];
          else if (!ok) out[name] = '';
          else if (fill === 'time') out[name] = at;
          else if (fill === 'known') out[name] = known;
          // An identifier of a row that was never written: it names nothing (the guide says so).
          else out[name] = `sandbox-${randomUUID()}`;
        }
        return out;
      });
      const failures = rows.filter((r) => r.success === false).length;
      return {
        data: {
          [shape.succeededKey]: rows.length - failures,
          [shape.failedKey]: failures,
          [shape.rowsKey]: rows,
        },
      };
    }

    /** The error a forced outcome answers with, or the bulk answer it sends. */
    function answer(request: FastifyRequest, reply: FastifyReply, forced: ForcedOutcome): ApiError | undefined {
      switch (forced.outcome) {
        case 'internal_error':
          return new ApiError('INTERNAL_ERROR', INTERNAL_ERROR_MESSAGE);
        case 'quota_exceeded':
          // The quota's own 429: Retry-After and the X-RateLimit-* headers (the quota plugin writes them).
          if (request.quota) request.quota = { ...request.quota, remaining: 0, exhausted: true };
          return new ApiError('RATE_LIMIT_EXCEEDED', QUOTA_EXHAUSTED_MESSAGE);
        case 'gateway_throttled':
          // The gateway answers before the quota is read: no Retry-After, no X-RateLimit-*.
          request.quota = undefined;
          return new ApiError('RATE_LIMIT_EXCEEDED', GATEWAY_LIMIT_MESSAGE);
        case 'bulk_failed': {
          const shape = bulkShapes.get(request.operation!.operationId)!;
          reply.code(200).send(bulkAnswer(request, shape, forced.failedRows));
          return undefined;
        }
      }
    }

    app.addHook('preHandler', function answerForcedOutcome(request, reply, done) {
      const forced = request.forcedOutcome;
      if (!forced) return done();
      let error: ApiError | undefined;
      try {
        error = answer(request, reply, forced);
      } catch (err) {
        return done(err as Error);
      }
      // A hook that sent the answer itself does not go on.
      if (error) done(error);
    });
  },
  { name: 'forced-outcomes', fastify: '5.x', dependencies: ['auth', 'test-clock'] },
);

// ---------------------------------------------------------------------------------------------------------------
// The /sandbox/ routes

export interface SandboxHelpersOptions extends Record<string, unknown> {
  sandbox: SandboxFacts;
  clocks: SandboxClocks;
  integerSyntax: IntegerQuerySyntax;
  /** Strict-contract mode: every answer is checked against the sandbox document, as contract-check does. */
  strict: boolean;
  violations: string[];
}

/** `POST /sandbox/reset` and `GET`, `PUT`, `DELETE /sandbox/clock`, with their handlers. */
export const sandboxHelpers = fp<SandboxHelpersOptions>(
  async (app: FastifyInstance, options) => {
    const { sandbox, clocks, strict, violations } = options;
    const handlers: Record<string, (request: FastifyRequest) => Promise<unknown>> = {
      async resetSandbox(request) {
        const owner = testOwner(request, 'The sandbox helpers');
        const seed = (request.body as { seed?: SandboxSeed } | undefined)?.seed;
        const now = await clocks.serviceNow(request.credential, request.now);
        return { data: await app.domain.resetSandbox({ owner, now, ...(seed ? { seed } : {}) }) };
      },
      async getSandboxClock(request) {
        const owner = testOwner(request, 'The sandbox helpers');
        return { data: await clocks.read(owner.accountId, request.now) };
      },
      async setSandboxClock(request) {
        const owner = testOwner(request, 'The sandbox helpers');
        return { data: await clocks.set(owner.accountId, request.body as ClockChange, request.now) };
      },
      async resetSandboxClock(request) {
        const owner = testOwner(request, 'The sandbox helpers');
        return { data: await clocks.reset(owner.accountId, request.now) };
      },
    };

    for (const op of sandbox.operations.values()) {
      const handler = handlers[op.operationId];
      if (!handler) throw new Error(`the sandbox document has ${op.operationId}, which this server does not serve`);
      const validate = requestValidator(op, sandbox.validators, {
        doc: sandbox.doc,
        integerSyntax: options.integerSyntax,
      });
      const check = responseValidator(op, sandbox.validators.body);
      const target = { area: 'sandbox', security: op.security, anyArea: true };
      app.route({
        method: op.method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'DELETE',
        url: op.path,
        onRequest: async function authenticateSandbox(request) {
          await app.authenticate(request, target);
          // Refused before the body is read: a live credential changes nothing.
          testOwner(request, 'The sandbox helpers');
        },
        preValidation: async function validateSandboxRequest(request) {
          await validate(request);
        },
        ...(strict
          ? {
              preSerialization: async function checkSandboxResponse(request, reply, payload) {
                const problem = check(reply.statusCode, payload);
                if (!problem) return payload;
                violations.push(problem);
                request.log.error({ violation: problem }, 'contract violation');
                reply.code(500);
                return { success: false, error: { code: 'INTERNAL_ERROR', message: INTERNAL_ERROR_MESSAGE } };
              },
            }
          : {}),
        handler: async (request, reply) => {
          const result = await handler(request);
          reply.code(200);
          return result;
        },
      });
    }
  },
  { name: 'sandbox-helpers', fastify: '5.x', dependencies: ['auth', 'envelope', 'error-mapping'] },
);
