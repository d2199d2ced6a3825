import type { ErrorCode } from '@cls-api/server';

/**
 * An error the API reports to the client: the error-mapping plugin turns it into `{success: false, error: {code,
 * message}}` with the HTTP status the contract's error catalogue gives the code (never a status chosen here).
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** How much of a client's own text (a property name, a path) a message repeats. */
export const MAX_ECHOED_CHARACTERS = 200;

/**
 * Characters a message may not carry as they are: C0 and C1 controls and DEL (the contract's `Text` is one line
 * without control characters, spec/components/schemas/SingleLineText.yaml; C1 controls such as U+009B start terminal escape
 * sequences too), the Unicode line and paragraph separators, and lone surrogates, which are not text.
 */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A client's text as a message may repeat it: every unsafe character written as a JSON-style escape (`a\u0010b`),
 * and at most `max` characters, so that an echo can neither break the message's one line, nor colour or move a
 * terminal that shows the log, nor make the message long.
 */
export function shown(text: string, max: number = MAX_ECHOED_CHARACTERS): string {
  const chars = Array.from(text);
  const cut = chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
  return cut.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A message as the contract's `Text` allows it (`Error.message`): escaped like `shown`, at most `max` characters. */
export function messageText(message: string, max: number): string {
  const escaped = Array.from(shown(message, Number.MAX_SAFE_INTEGER));
  return escaped.length <= max ? escaped.join('') : `${escaped.slice(0, max - 1).join('')}…`;
}
