// Text the contract's JSON carries is Unicode. JSON.parse turns an escape of one half of a surrogate pair without the
// other (`\ud800` alone) into a lone UTF-16 code unit, and a caller's own string can hold one too: sent, it is a value
// no server keeps as it came (a database stores bytes that read back as something else; a URL cannot encode it). The
// servers refuse such a body (@cls-api/server's illFormedTextMessage), and the MCP server refuses such arguments
// before it sends anything: one walk for both.

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
