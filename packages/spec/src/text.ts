// Text the contract's JSON carries is Unicode. JSON.parse turns an escape of one half of a surrogate pair without the
// other (`\ud800` alone) into a lone UTF-16 code unit, and a caller's own string can hold one too: sent, it is a value
// no server keeps as it came (a database stores bytes that read back as something else; a URL cannot encode it). The
// servers refuse such a body (@cls-api/server's illFormedTextMessage), and the MCP server refuses such arguments
// before it sends anything: one walk for both. A client's own text that a message repeats (a property name, a path)
// is escaped and bounded by one rule for every server and the MCP server alike (`shown`, `itemName`).

/** Where a value holds half of a surrogate pair without the other half. */
export interface IllFormedText {
  /** The node's path from the root as the validators' messages write it (`orders[0].mall_order_no`); '' for the root. */
  path: string;
  /** True when a property name of the object at `path` holds it, rather than the string at `path`. */
  propertyName: boolean;
}

/**
 * The first string of `value` (property names included) that is not well-formed UTF-16, or undefined when every one
 * is. Walked without recursion, so a deeply nested value cannot overflow the stack; each string is checked natively,
 * and the path is put together only for the one found.
 */
export function illFormedTextAt(value: unknown): IllFormedText | undefined {
  const nodes: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: Array<string | number> = [''];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (typeof node === 'string') {
      if (!wellFormed(node)) return { path: pathOf(parents, keys, i), propertyName: false };
    } else if (Array.isArray(node)) {
      for (let k = 0; k < node.length; k++) {
        nodes.push(node[k]);
        parents.push(i);
        keys.push(k);
      }
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (!wellFormed(key)) return { path: pathOf(parents, keys, i), propertyName: true };
        nodes.push(child);
        parents.push(i);
        keys.push(key);
      }
    }
  }
  return undefined;
}

/** What such a string holds, in the words every refusal of one uses. */
export const HALF_SURROGATE_PAIR = 'half of a surrogate pair without the other half (an escape such as \\ud800 alone)';

/** `String.prototype.isWellFormed` (Node 20 and every runtime the packages run on; not in the ES2022 types). */
const wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

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

/** How much of a client's own text (a property name, a path) a message repeats. */
export const MAX_ECHOED_CHARACTERS = 200;

/**
 * Characters a message may not carry as they are: C0 and C1 controls and DEL (the contract's `Text` is one line
 * without control characters, spec/components/schemas/SingleLineText.yaml; C1 controls such as U+009B start terminal
 * escape sequences too), the Unicode line and paragraph separators, and lone surrogates, which are not text.
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

/**
 * `/orders/2/receiver_name` → `orders[2].receiver_name`, as a message may show it: a property name is the client's
 * own text (`a\u0010b`), so it is escaped and bounded (`shown`).
 */
export function itemName(instancePath: string, child?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) segments.push(child);
  let out = '';
  for (const s of segments) out += /^\d+$/.test(s) ? `[${s}]` : out === '' ? s : `.${s}`;
  return shown(out);
}
