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
 * The first `\uXXXX` escape of the JSON text that stands for one half of a surrogate pair without the other, as
 * written (`\ud800`), or undefined when there is none. JSON.parse turns such an escape into a lone UTF-16 code unit,
 * which is not Unicode text: a database keeps it as bytes that read back as something else, so the value kept is
 * neither the one sent nor the one a later look-up with it finds. A text's own bytes cannot hold one (a server refuses
 * bytes that are not UTF-8 before this); only an escape can. Escapes are found with a native search, so a body without
 * any costs one pass of `indexOf`; an escaped backslash followed by `u` is text, not an escape.
 */
export function unpairedSurrogateEscape(text: string | Uint8Array): string | undefined {
  const bytes =
    typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  let at = bytes.indexOf(ESCAPE);
  while (at !== -1) {
    let backslashes = 0;
    while (at - backslashes > 0 && bytes[at - backslashes - 1] === 0x5c) backslashes++;
    const unit = backslashes % 2 === 0 ? hexUnit(bytes, at + 2) : undefined;
    let next = at + 1;
    if (unit !== undefined) {
      if (unit >= 0xdc00 && unit <= 0xdfff) return bytes.toString('latin1', at, at + 6);
      next = at + 6;
      if (unit >= 0xd800 && unit <= 0xdbff) {
        const low = bytes[at + 6] === 0x5c && bytes[at + 7] === 0x75 ? hexUnit(bytes, at + 8) : undefined;
        if (low === undefined || low < 0xdc00 || low > 0xdfff) return bytes.toString('latin1', at, at + 6);
        next = at + 12;
      }
    }
    at = bytes.indexOf(ESCAPE, next);
  }
  return undefined;
}

/** The 400 message of a body with such an escape, the same from every server of the contract. */
export function unpairedSurrogateMessage(halfPair: string): string {
  return `The request body is not valid Unicode: its escape ${halfPair} is half of a surrogate pair, without the other half.`;
}

const ESCAPE = Buffer.from('\\u', 'latin1');

/** The code unit of the four hex digits at `at`, or undefined when they are not four hex digits. */
function hexUnit(bytes: Uint8Array, at: number): number | undefined {
  if (at + 4 > bytes.length) return undefined;
  let unit = 0;
  for (let i = at; i < at + 4; i++) {
    const c = bytes[i]!;
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : (c | 0x20) >= 0x61 && (c | 0x20) <= 0x66 ? (c | 0x20) - 0x57 : -1;
    if (digit < 0) return undefined;
    unit = unit * 16 + digit;
  }
  return unit;
}
