// What every server of this contract answers to a request target whose percent escapes do not spell text. Read
// leniently, as Node's and Prism's query parsers read it, `?product_code=%FF` was the product code "%FF": the
// reference answered 404 PRODUCT_NOT_FOUND for a product the client never named, and the mock ignored the filter.
// A path with such an escape was already refused; the query now is too, in the same words.

const ESCAPE_RULE =
  'each % must be followed by two hex digits (a % itself is written %25), and the bytes they spell must be UTF-8';

/** The 400 message for a path with a malformed percent escape. */
export const MALFORMED_PATH_ESCAPE_MESSAGE = `The path has a malformed percent escape: ${ESCAPE_RULE}.`;

/** The longest part of a parameter's name a message repeats. */
const NAME_SHOWN = 40;

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the query string (what follows `?`, without a fragment) has a malformed percent escape, as the 400 message,
 * or undefined when every escape of it spells UTF-8 text. The message names the first parameter at fault, decoded
 * as a query is (`+` is a space), when its name itself decodes.
 */
export function malformedQueryMessage(query: string): string | undefined {
  if (decodes(query)) return undefined;
  for (const pair of query.split('&')) {
    if (decodes(pair)) continue;
    const raw = pair.split('=', 1)[0]!.replace(/\+/g, ' ');
    if (!decodes(raw)) return `The query string has a malformed percent escape in a parameter's name: ${ESCAPE_RULE}.`;
    const name = Array.from(decodeURIComponent(raw));
    const shown = name.length > NAME_SHOWN ? `${name.slice(0, NAME_SHOWN).join('')}…` : name.join('');
    return `The query parameter ${shown} has a malformed percent escape: ${ESCAPE_RULE}.`;
  }
  return undefined;
}
