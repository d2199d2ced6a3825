// What the front server answers itself, before Prism sees the request: what Prism cannot take safely (a target that
// is not a path, a malformed percent escape, an unknown route) and bodies it would misread (too large, not UTF-8 or
// not Unicode, nested too deep). And one rule Prism does not hold, applied to its answer: how an integer query
// parameter is written. Each answer is the contract's error envelope.
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import {
  bodyMediaTypeMessage,
  bodyTooLargeMessage,
  contentCodingMessage,
  exceedsJsonDepth,
  illFormedTextMessage,
  MALFORMED_PATH_ESCAPE_MESSAGE,
  MAX_JSON_DEPTH,
  malformedQueryMessage,
  namesMediaType,
} from '@cls-api/server';
import { integerQueryMessage, type OperationInfo } from '@cls-api/spec';
import type { Contract } from './contract.js';
import { errorResponse, parseJson, type ShapedResponse, unknownRoute } from './shape.js';

type Operation = Parameters<typeof errorResponse>[3];

/** The path of an origin-form request target (`/a?b` is `/a`), without `new URL`, which throws on `//[`. */
export function pathOf(target: string | undefined): string | undefined {
  if (!target?.startsWith('/')) return undefined;
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/** The query string of a request target (`/a?b#c` is `b`), or undefined when it has none. */
export function queryOf(target: string | undefined): string | undefined {
  const question = target?.indexOf('?') ?? -1;
  if (question === -1) return undefined;
  const hash = target!.indexOf('#', question);
  return target!.slice(question + 1, hash === -1 ? undefined : hash);
}

/**
 * The answer to a request target Prism must not see: not a path, a malformed escape in the path, no route of the
 * contract, or a malformed escape in the query, which Prism would read as it came (`?product_code=%FF`).
 */
export function refuseTarget(
  contract: Contract,
  method: string,
  pathname: string | undefined,
  query?: string,
): ShapedResponse | undefined {
  if (pathname === undefined)
    return errorResponse(contract, 'invalid', 'The request target must be a path that starts with /.');
  try {
    decodeURIComponent(pathname);
  } catch {
    return errorResponse(
      contract,
      'invalid',
      MALFORMED_PATH_ESCAPE_MESSAGE,
      contract.match(method, pathname.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'))?.route.op,
    );
  }
  const matched = contract.match(method, pathname);
  if (!matched) return unknownRoute(contract, method, pathname);
  return refuseQuery(contract, query, matched.route.op);
}

/** The answer to a query string with a malformed percent escape, or undefined for one without. */
export function refuseQuery(contract: Contract, query: string | undefined, op?: Operation): ShapedResponse | undefined {
  const malformed = query === undefined ? undefined : malformedQueryMessage(query);
  return malformed === undefined ? undefined : errorResponse(contract, 'invalid', malformed, op);
}

/**
 * The answer to an integer query parameter not written as `info.x-limits.query_integer_syntax` says (`size=1e1`,
 * `+5`, `10.0`), or given twice, in the reference server's words; undefined when each is written right. Prism reads
 * such a value as the number it spells and answered 200.
 */
export function refuseIntegerQuery(
  contract: Contract,
  op: OperationInfo,
  query: string | undefined,
): ShapedResponse | undefined {
  if (query === undefined) return undefined;
  const params = new URLSearchParams(query);
  for (const name of contract.integerQuery.get(op.operationId) ?? []) {
    const values = params.getAll(name);
    if (values.length === 0) continue;
    const refused = integerQueryMessage(name, values.length === 1 ? values[0]! : values, contract.queryIntegerSyntax);
    if (refused !== undefined) return errorResponse(contract, 'invalid', refused, op);
  }
  return undefined;
}

/**
 * The answer to a body larger than its operation takes (Contract.bodyLimitOf), in the reference server's words:
 * such a body cannot be valid, and neither server reads more of it than that.
 */
export function tooLarge(contract: Contract, op: Operation): ShapedResponse {
  const message = bodyTooLargeMessage(contract.bodyLimitOf(op), contract.bodyLimits.bodyLimit);
  return errorResponse(contract, 'invalid', message, op);
}

/** Whether a request declares a body larger than its operation takes: refused before a byte of it is read. */
export function declaresTooLarge(contract: Contract, req: IncomingMessage, op: Operation): boolean {
  return Number(req.headers['content-length'] ?? 0) > contract.bodyLimitOf(op);
}

/** Reads the body, keeping none of it past `limit` bytes (Contract.bodyLimitOf). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let large = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) large = true;
      else chunks.push(chunk);
    });
    req.once('end', () => resolve(large ? 'too-large' : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * The answer to a body Prism would misread, or undefined for one it may have. `contentType` is checked for an
 * operation that takes a body: Prism took `application/vnd.api+json` as JSON, and failed (500) on a list of types.
 */
export function refuseBody(
  contract: Contract,
  body: Buffer | 'too-large',
  op: Operation,
  contentEncoding: string | undefined,
  contentType?: string,
): ShapedResponse | undefined {
  const refused = refuseBodyText(contract, body, op, contentEncoding, contentType);
  if (refused || body === 'too-large') return refused;
  // Prism takes a body of JSON `null` for no body ("The request body is required."); it is a body of the wrong type.
  const words = op?.requestBody && parseJson(body) === null ? contract.bodyRefusal(op, null) : undefined;
  return words && errorResponse(contract, words.missing ? 'missing' : 'invalid', words.message, op);
}

/**
 * The part of {@link refuseBody} that reads no schema: the body's size, media type, coding and text. The sandbox's
 * helpers, whose schemas are in the sandbox's own document, check the rest themselves.
 */
export function refuseBodyText(
  contract: Contract,
  body: Buffer | 'too-large',
  op: Operation,
  contentEncoding: string | undefined,
  contentType?: string,
): ShapedResponse | undefined {
  if (body === 'too-large') return tooLarge(contract, op);
  // As the reference server reads it: a Content-Type that names another type is refused, with a body or without; no
  // Content-Type only with a body (without either, the body is missing).
  const mediaType = op?.requestBody?.contentType;
  if (mediaType && (contentType !== undefined || body.length > 0) && !namesMediaType(contentType, mediaType))
    return errorResponse(contract, 'invalid', bodyMediaTypeMessage(mediaType), op);
  // Prism reads a body as it came: a gzip body would be "not UTF-8", and one declared br but sent plain taken.
  const coded = body.length > 0 ? contentCodingMessage(contentEncoding) : undefined;
  if (coded !== undefined) return errorResponse(contract, 'invalid', coded, op);
  // Prism would read the bytes as U+FFFD and accept them: JSON is UTF-8, so such a body is malformed.
  if (!isUtf8(body)) return errorResponse(contract, 'invalid', 'The request body is not valid UTF-8.', op);
  if (exceedsJsonDepth(body))
    return errorResponse(contract, 'invalid', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`, op);
  // Nor is a string holding half of a surrogate pair (`\ud800` alone) Unicode text, though Prism would take it (the
  // reference refuses both). Text that is not JSON at all is Prism's to answer.
  const notUnicode = illFormedTextMessage(parseJson(body));
  if (notUnicode !== undefined) return errorResponse(contract, 'invalid', notUnicode, op);
  return undefined;
}
