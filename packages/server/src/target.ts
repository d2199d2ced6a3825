// What every server of this contract answers to a request target whose percent escapes do not spell text (and,
// below, to a method and path that name no operation). Read
// leniently, as Node's and Prism's query parsers read it, `?product_code=%FF` was the product code "%FF": the
// reference answered 404 PRODUCT_NOT_FOUND for a product the client never named, and the mock ignored the filter.
// A path with such an escape was already refused; the query now is too, in the same words.
import { shown } from '@cls-api/spec';
import { routes } from '../generated/routes.js';

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

// A method and path that name no operation. Where the path has operations of other methods, the answer names them,
// so that a client that sent PUT for PATCH reads what to send; the 404 itself is the contract's (NOT_FOUND).

/**
 * A path of the contract (`/v3/wms/orders/{order_no}`) as the pattern of the concrete paths it names: a
 * `{parameter}` is one non-empty segment, and nothing may follow (a trailing slash names no operation).
 */
export function pathPattern(template: string): RegExp {
  const segments = template
    .split('/')
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '([^/]+)' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}$`);
}

const PATH_PATTERNS = routes.map((route) => ({ method: route.method, pattern: pathPattern(route.path) }));

/** The methods of the operations at a concrete path (`/v3/wms/orders/ORD-1`: GET, PATCH), in the contract's order. */
export function methodsAt(path: string): string[] {
  return [...new Set(PATH_PATTERNS.filter((p) => p.pattern.test(path)).map((p) => p.method))];
}

/**
 * The 404 message for a method and path that name no operation of the contract. `methods` are those at the path:
 * by default the contract's (`methodsAt`); a server serving another document gives its own.
 */
export function noOperationMessage(method: string, path: string, methods: readonly string[] = methodsAt(path)): string {
  const others = methods.filter((m) => m !== method.toUpperCase());
  return others.length > 0
    ? `${method} is not an operation of ${shown(path)}: it has ${others.join(', ')}.`
    : `No operation ${method} ${shown(path)}.`;
}
