export * from '../generated/routes.js';
export type * from '../generated/handlers.js';
export type { components, operations, paths } from '../generated/openapi-types.js';
export type { Area, HandlerContext, KeyArea } from './context.js';
export { missingHandlers, assertHandlersComplete } from './check.js';
export {
  BYTES_PER_CHARACTER,
  BYTES_PER_NUMBER,
  type BodyLimits,
  bodyLimitOf,
  bodyTooLargeMessage,
  maxJsonBytes,
  maxRequestBodyBytes,
  operationBodyLimits,
} from './body-limit.js';
export {
  MAX_JSON_DEPTH,
  bodyMediaTypeMessage,
  contentCodingMessage,
  exceedsJsonDepth,
  illFormedTextMessage,
  namesMediaType,
} from './json.js';
export {
  MALFORMED_PATH_ESCAPE_MESSAGE,
  malformedQueryMessage,
  methodsAt,
  noOperationMessage,
  pathPattern,
} from './target.js';
// Kept here too for the servers that named them from this package: they live in @cls-api/spec, which the MCP server
// shares.
export { MAX_ECHOED_CHARACTERS, itemName, shown } from '@cls-api/spec';
export {
  describeRequestError,
  schemaAt,
  type RequestErrorWords,
  type RequestPart,
  type SchemaRefusal,
} from './request-errors.js';
