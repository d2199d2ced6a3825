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
 * undefined when it is. JSON.parse turns an escape of one half of a surrogate pair without the other (`\ud800` alone)
 * into a lone UTF-16 code unit: a database keeps it as bytes that read back as something else, so the value kept is
 * neither the one sent nor the one a later look-up with it finds. Bytes that are not UTF-8 are a server's to refuse
 * before parsing; a lone half can only come from an escape. Walked without recursion, each string (keys included)
 * checked natively; the path of a node is put together only for the one found.
 */
export function illFormedTextMessage(value: unknown): string | undefined {
  const nodes: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: Array<string | number> = [''];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (typeof node === 'string') {
      if (!wellFormed(node)) return `${NOT_UNICODE}: ${pathOf(parents, keys, i) || 'the body'} holds ${HALF_PAIR}.`;
    } else if (Array.isArray(node)) {
      for (let k = 0; k < node.length; k++) {
        nodes.push(node[k]);
        parents.push(i);
        keys.push(k);
      }
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (!wellFormed(key))
          return `${NOT_UNICODE}: a property name in ${pathOf(parents, keys, i) || 'the body'} holds ${HALF_PAIR}.`;
        nodes.push(child);
        parents.push(i);
        keys.push(key);
      }
    }
  }
  return undefined;
}

const NOT_UNICODE = 'The request body is not valid Unicode';
const HALF_PAIR = 'half of a surrogate pair without the other half (an escape such as \\ud800 alone)';

/** `String.prototype.isWellFormed` (Node 20 and every runtime the servers run on; not in the ES2022 types). */
const wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** `orders[0].mall_order_no`: the node's path from the root, as the validators' messages write it. */
function pathOf(parents: readonly number[], keys: ReadonlyArray<string | number>, at: number): string {
  const segments: Array<string | number> = [];
  for (let i = at; parents[i]! >= 0; i = parents[i]!) segments.push(keys[i]!);
  let path = '';
  for (let j = segments.length - 1; j >= 0; j--) {
    const key = segments[j]!;
    path += typeof key === 'number' ? `[${key}]` : path === '' ? key : `.${key}`;
  }
  return path;
}
