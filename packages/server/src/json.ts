import { HALF_SURROGATE_PAIR, illFormedTextAt } from '@cls-api/spec';

// What every server of this contract needs before it parses a JSON body: a bound on nesting, and text that is Unicode.
// The contract's bodies are a few levels deep (a bulk body is `{orders: [{…}]}`); a body nested thousands deep is an
// attack on the parser's stack (a recursive JSON.parse or validator overflows), and must be refused as a format error
// before any recursive code sees it.

/** Nesting depth a server accepts in a JSON request body: far above any body of the contract. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text opens more than `maxDepth` arrays or objects inside one another. Reads the text once,
 * iteratively (no recursion), and skips brackets inside strings; it does not validate the JSON otherwise.
 */
export function exceedsJsonDepth(text: string | Uint8Array, maxDepth: number = MAX_JSON_DEPTH): boolean {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next byte is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Why the parsed JSON value is not Unicode text, as the 400 message every server of the contract answers with, or
 * undefined when it is (`illFormedTextAt` in @cls-api/spec says why such text is refused). Bytes that are not UTF-8
 * are a server's to refuse before parsing; half a surrogate pair alone can only come from an escape.
 */
export function illFormedTextMessage(value: unknown): string | undefined {
  const found = illFormedTextAt(value);
  if (!found) return undefined;
  const where = found.path || 'the body';
  return `${NOT_UNICODE}: ${found.propertyName ? `a property name in ${where}` : where} holds ${HALF_SURROGATE_PAIR}.`;
}

const NOT_UNICODE = 'The request body is not valid Unicode';

/**
 * Why a body sent with this `Content-Encoding` is refused, or undefined when it is not coded (no header, or only
 * `identity`). No server of the contract decodes a body: read as it came, a gzip body was refused as "not valid
 * UTF-8", and one declared `br` but sent plain was taken as plain. The coding is named, cut at 40 characters.
 */
export function contentCodingMessage(header: string | undefined): string | undefined {
  const coding = header
    ?.split(',')
    .map((c) => c.trim())
    .find((c) => c !== '' && c.toLowerCase() !== 'identity');
  if (coding === undefined) return undefined;
  return `The request body is sent with Content-Encoding ${coding.slice(0, 40)}, which this server does not decode: send the JSON text as it is, without a Content-Encoding.`;
}

/**
 * Whether a `Content-Type` header names `mediaType` (`application/json`): case aside, with or without parameters
 * (`; charset=utf-8`). A list of types (`application/json, text/plain`) names none.
 */
export function namesMediaType(header: string | undefined, mediaType: string): boolean {
  if (header === undefined) return false;
  return header.split(';', 1)[0]!.trim().toLowerCase() === mediaType.toLowerCase();
}

/** The 400 message for a body sent with another `Content-Type` than `mediaType`, or with none. */
export function bodyMediaTypeMessage(mediaType: string): string {
  return `The request body must be sent as ${mediaType}.`;
}
