export { baseUrlProblem, createClient } from './client.js';
export type { ClientExtensions, ClientOptions, ClsClient, ThrowingClsClient } from './client.js';

export {
  ApiError,
  CorsError,
  CredentialError,
  NetworkError,
  QuotaExceededError,
  apiErrorOf,
  requestIdHeader,
  requestIdOf,
} from './errors.js';
export type { ApiErrorInit, ErrorReport, QuotaExceededInit } from './errors.js';
export { BulkChunkError } from './bulk.js';
export type {
  BulkFunction,
  BulkHelpers,
  BulkOperationId,
  BulkOptions,
  BulkProgress,
  BulkResult,
  BulkRow,
} from './bulk.js';

export { isErrorCode } from './contract.js';
export type { CredentialKind, ErrorCode, ErrorEnvelope, GatewayLimit } from './contract.js';

export type { JwtClientCredentials, JwtOptions, JwtTokenSource } from './auth.js';
export { backoffDelay } from './retry.js';
export type { RetryEvent, RetryOptions } from './retry.js';
export { Pacer, contractGatewayLimits, createPacer, defaultPacingMargin, sharedPacer } from './pacing.js';
export type { PacerOptions } from './pacing.js';
export { cacheKindOf, defaultCacheTtls, isFromCache } from './cache.js';
export type { CacheKind, CacheOptions, CacheStore, CacheTtls, CachedResponse } from './cache.js';
export type { QuotaState } from './quota.js';
export { sandboxOutcomeHeaders } from './sandbox.js';
export type {
  SandboxClock,
  SandboxClockHelpers,
  SandboxHelpers,
  SandboxOutcome,
  SandboxOutcomeOption,
  SandboxReset,
  SandboxResetRequest,
  SandboxSeed,
} from './sandbox.js';
export type { Timers } from './timers.js';
export type {
  GetPath,
  Page,
  PagedPath,
  PageItem,
  SuccessBody,
  CallData,
  CallError,
  CallMethod,
  CallMethods,
  CallOptions,
  CallResponse,
  RequestMethod,
  SuccessResponse,
} from './types.js';

export { bulkOperations, contractVersion, errorCodes, limits, serviceTimeZone } from '../generated/contract.js';
export type { components, operations, paths } from '../generated/openapi.js';
