// The facts this server reads from the contract beyond the contract model's own (`@cls-api/spec`'s
// `contractModel`): the limits and the service time zone come from the model, which reads and checks the
// contract's extensions once; what is derived here (token lifetimes, path and message bounds, credential headers)
// is read from the document's plain schemas.
import { maxRequestBodyBytes, operationBodyLimits } from '@cls-api/server';
import {
  ContractError,
  contractModel,
  referenceOf,
  resolvePointer,
  type ContractModel,
  type ErrorCatalogEntry,
  type GatewayLimit,
  type JsonSchema,
  type OpenApiDocument,
  type OperationInfo,
} from '@cls-api/spec';

export interface ContractLimits {
  /** Every gateway limit, in the order `info.x-limits` states them: each one is enforced, whatever its name. */
  gateway: readonly GatewayLimit[];
  testKeyMonthlyQuota: number;
  /** `info.x-limits.query_integer_syntax`: how every integer query parameter is written (DECISIONS G23). */
  queryIntegerSyntax: RegExp;
  /** `info.x-limits.query_integer_meaning`: the same in words, as a refusal says it. */
  queryIntegerMeaning: string;
}

/** The security scheme of the JWT (`components.securitySchemes`). */
export const BEARER_SCHEME = 'BearerAuth';

/**
 * What an operation's `security` accepts: the areas of the API keys its key schemes stand for (each scheme's
 * `x-key-area`: `/v3/mcp/` lists the scheme of every area, DECISIONS G8), and whether a JWT; `unknown` names the
 * schemes this server cannot check.
 */
export interface AcceptedCredentials {
  keyAreas: readonly string[];
  jwt: boolean;
  unknown: readonly string[];
}

/** What the server reads from the bundled contract at run time. */
export interface Contract {
  doc: OpenApiDocument;
  /** The contract model: limits, time zone, the one validator configuration. */
  model: ContractModel;
  operations: ReadonlyMap<string, OperationInfo>;
  catalog: ReadonlyMap<string, ErrorCatalogEntry>;
  limits: ContractLimits;
  /** `info.x-service-time-zone`. */
  timeZone: string;
  /** Bounds of the token lifetimes (`Token.expires_in`, `Token.refresh_token_expires_in`). */
  tokenLifetime: { access: { min: number; max: number }; refresh: { min: number; max: number } };
  /** The areas with an operation that accepts a JWT (`security` naming `BearerAuth`): the JWT's audience. */
  jwtAudience: string[];
  /** The largest `maxLength` of any path parameter: the router must pass every value up to it to validation. */
  maxPathParameterLength: number;
  /** The largest request body the contract allows (a 1,000-row bulk request at every maximum length), bytes. */
  maxRequestBodyBytes: number;
  /** Each operation's largest request body by its own schema, bytes; an operation with an open body is absent. */
  operationBodyLimits: ReadonlyMap<string, number>;
  /** `maxLength` of an error's `message` (the `Text` schema of `Error.message`). */
  messageMaxLength: number;
  /** Request headers that carry a credential (`components.securitySchemes`): `X-API-Key`, `Authorization`. */
  credentialHeaders: string[];
  /** The credentials a `security` list (scheme names) accepts. */
  accepted(security: readonly string[]): AcceptedCredentials;
  /** Every response header the contract declares on some response (`Retry-After`, `X-RateLimit-*`). */
  declaredResponseHeaders: string[];
}

function fail(what: string): never {
  throw new ContractError(`the contract (@cls-api/spec) does not state ${what}`);
}

function positiveNumber(value: unknown, what: string): number {
  if (typeof value !== 'number' || !(value > 0)) fail(`${what} as a positive number`);
  return value;
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) fail(what);
  return value as Record<string, unknown>;
}

function bounds(doc: OpenApiDocument, property: string): { min: number; max: number } {
  const token = object(doc.components?.schemas?.Token, 'components.schemas.Token');
  const props = object(token.properties, 'components.schemas.Token.properties');
  const schema = object(props[property], `components.schemas.Token.properties.${property}`) as JsonSchema;
  return {
    min: positiveNumber(schema.minimum, `Token.${property}.minimum`),
    max: positiveNumber(schema.maximum, `Token.${property}.maximum`),
  };
}

/** The `maxLength` a value must keep to under `schema`: the smallest bound along its chain of `$ref`s. */
function maxLengthOf(doc: OpenApiDocument, schema: unknown): number | undefined {
  let bound: number | undefined;
  let current = schema as Record<string, unknown> | undefined;
  for (let hops = 0; hops < 32 && current && typeof current === 'object'; hops++) {
    if (typeof current.maxLength === 'number')
      bound = bound === undefined ? current.maxLength : Math.min(bound, current.maxLength);
    const next = referenceOf(current);
    if (!next) break;
    current = resolvePointer(doc, next.$ref) as Record<string, unknown> | undefined;
  }
  return bound;
}

function maxPathParameterLength(doc: OpenApiDocument, ops: OperationInfo[]): number {
  let max = 0;
  for (const op of ops) {
    for (const p of op.parameters) {
      if (p.in !== 'path') continue;
      const bound = maxLengthOf(doc, p.schema);
      if (bound === undefined) fail(`a maxLength for the path parameter ${p.name} of ${op.operationId}`);
      max = Math.max(max, bound);
    }
  }
  return max;
}

function credentialHeaders(model: ContractModel): string[] {
  const headers = [...new Set(model.credentialSchemes.map((s) => s.header))];
  if (headers.length === 0) fail('a security scheme sent in a header');
  return headers;
}

/** The bound of `error.message` in the one error body, `ErrorEnvelope` (its `error` schema is reached by `$ref`). */
function messageMaxLength(doc: OpenApiDocument): number {
  const envelope = object(doc.components?.schemas?.ErrorEnvelope, 'components.schemas.ErrorEnvelope');
  let error = object(
    object(envelope.properties, 'components.schemas.ErrorEnvelope.properties').error,
    'components.schemas.ErrorEnvelope.properties.error',
  );
  for (let hops = 0, next = referenceOf(error); hops < 32 && next; hops++, next = referenceOf(error))
    error = object(resolvePointer(doc, next.$ref), `the schema at ${next.$ref}`);
  const message = object(
    object(error.properties, 'ErrorEnvelope error.properties').message,
    'ErrorEnvelope error.properties.message',
  );
  const bound = maxLengthOf(doc, message);
  if (bound === undefined) fail("a maxLength for the error envelope's error.message");
  return bound;
}

export function readContract(doc: OpenApiDocument): Contract {
  const model = contractModel(doc);
  const testQuota = model.limits.monthlyQuota.get('test');
  const ops = [...model.operations];
  const jwtAudience = model.areasAccepting(BEARER_SCHEME);
  if (jwtAudience.length === 0) fail(`an operation that accepts ${BEARER_SCHEME}`);
  return {
    doc,
    model,
    operations: new Map(ops.map((op) => [op.operationId, op])),
    catalog: model.catalog,
    limits: {
      gateway: model.limits.gateway,
      testKeyMonthlyQuota: positiveNumber(testQuota, 'info.x-limits.monthly_quota.test.calls_per_month'),
      queryIntegerSyntax: model.limits.queryIntegerSyntax,
      queryIntegerMeaning: model.limits.queryIntegerMeaning,
    },
    timeZone: model.timeZone,
    tokenLifetime: { access: bounds(doc, 'expires_in'), refresh: bounds(doc, 'refresh_token_expires_in') },
    jwtAudience,
    maxPathParameterLength: maxPathParameterLength(doc, ops),
    maxRequestBodyBytes: maxRequestBodyBytes(doc, ops).bytes,
    operationBodyLimits: operationBodyLimits(doc, ops),
    messageMaxLength: messageMaxLength(doc),
    credentialHeaders: credentialHeaders(model),
    accepted: acceptedBy(model),
    declaredResponseHeaders: [...model.responseHeaders],
  };
}

function acceptedBy(model: ContractModel): (security: readonly string[]) => AcceptedCredentials {
  const schemes = new Map(model.credentialSchemes.map((s) => [s.name, s]));
  return (security) => {
    const keyAreas: string[] = [];
    const unknown: string[] = [];
    let jwt = false;
    for (const name of security) {
      const scheme = schemes.get(name);
      if (scheme?.kind === 'apiKey' && scheme.keyArea !== undefined) keyAreas.push(scheme.keyArea);
      else if (scheme?.kind === 'http' && scheme.httpScheme === 'bearer') jwt = true;
      else unknown.push(name);
    }
    return { keyAreas, jwt, unknown };
  };
}

let cached: Contract | undefined;

/** The bundled contract, read once per process (on the bundled contract's shared model). */
export function contract(): Contract {
  cached ??= readContract(contractModel().doc);
  return cached;
}
