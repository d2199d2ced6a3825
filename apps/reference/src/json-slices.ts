// A large JSON body read in slices of the event loop: decoded, checked for depth and parsed piece by piece, so that
// the other clients of the server wait for a slice (a few milliseconds), never for the whole body (a maximal bulk
// body is several megabytes: JSON.parse alone holds the loop for tens of milliseconds). The result, and whether the
// text is accepted at all, are JSON.parse's: the text is cut at its own commas and brackets, and every piece is
// still read by JSON.parse.
import { isAscii } from 'node:buffer';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** The text is not UTF-8. */
export class NotUtf8Error extends Error {}
/** The text opens more than the allowed arrays or objects inside one another. */
export class TooDeepError extends Error {}
/** The text is not JSON. */
export class NotJsonError extends Error {}

export interface SliceOptions {
  /** Arrays and objects allowed inside one another. */
  maxDepth: number;
  /** A container whose text is at most this many characters is parsed whole, as a part of its parent. */
  wholeChars?: number;
  /** Consecutive small items are parsed together up to about this many characters. */
  runChars?: number;
  /** The longest the work goes on before it lets the event loop serve others. */
  sliceMs?: number;
}

const DEFAULTS = { wholeChars: 64 * 1024, runChars: 32 * 1024, sliceMs: 4 };
const DECODE_BYTES = 512 * 1024;
const SCAN_CHARS = 256 * 1024;

/** A container too large to parse whole: its items, each a span of the text, or holding a large container. */
interface Node {
  array: boolean;
  start: number;
  end: number;
  items: Item[];
}

interface Item {
  start: number;
  end: number;
  /** Where the item's `:` is (objects), or -1. */
  colon: number;
  child: Node | undefined;
}

interface Open {
  array: boolean;
  start: number;
  items: Item[];
  itemStart: number;
  colon: number;
  child: Node | undefined;
}

class Turns {
  private since = performance.now();
  constructor(private readonly sliceMs: number) {}
  async maybe(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await nextTurn();
    this.since = performance.now();
  }
}

/** UTF-8 bytes as text, refused when they are not UTF-8; text that is not plain ASCII is decoded in slices. */
export async function decodeUtf8(bytes: Uint8Array, options: Pick<SliceOptions, 'sliceMs'> = {}): Promise<string> {
  if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const turns = new Turns(options.sliceMs ?? DEFAULTS.sliceMs);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const parts: string[] = [];
  try {
    for (let at = 0; at < bytes.length; at += DECODE_BYTES) {
      const end = Math.min(bytes.length, at + DECODE_BYTES);
      parts.push(decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length }));
      await turns.maybe();
    }
  } catch {
    throw new NotUtf8Error('not UTF-8');
  }
  return parts.join('');
}

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function blank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isWhitespace(text.charCodeAt(i))) return false;
  return true;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new NotJsonError('not JSON');
  }
}

/** Sets a member as JSON.parse does: `__proto__` becomes an own property, never the object's prototype. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * The value of a JSON text, as JSON.parse gives it, read in slices: a scan finds the containers too large to parse
 * whole (and refuses a text nested deeper than `maxDepth`, before anything else, as `exceedsJsonDepth` does), then
 * each is assembled from its items, runs of small items parsed together.
 */
export async function parseJsonInSlices(text: string, options: SliceOptions): Promise<unknown> {
  const wholeChars = options.wholeChars ?? DEFAULTS.wholeChars;
  const runChars = options.runChars ?? DEFAULTS.runChars;
  const turns = new Turns(options.sliceMs ?? DEFAULTS.sliceMs);

  // The scan: the depth of every bracket, and the items of every open container. Once the structure is found
  // broken the scan only counts depth, so that a text both too deep and malformed is refused as too deep.
  const stack: Open[] = [];
  let depth = 0;
  let broken = false;
  let root: Node | undefined;
  let inString = false;
  const closeItem = (open: Open, at: number) => {
    open.items.push({ start: open.itemStart, end: at, colon: open.colon, child: open.child });
    open.itemStart = at + 1;
    open.colon = -1;
    open.child = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    if (i % SCAN_CHARS === 0) await turns.maybe();
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > options.maxDepth) throw new TooDeepError('too deep');
      if (!broken)
        stack.push({ array: c === 0x5b, start: i, items: [], itemStart: i + 1, colon: -1, child: undefined });
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (broken) continue;
      const open = stack.pop();
      if (!open || open.array !== (c === 0x5d)) {
        broken = true;
        continue;
      }
      // An empty container has no item; `[1,]` has an empty last one, which its parse refuses.
      if (open.items.length > 0 || open.child !== undefined || !blank(text, open.itemStart, i)) closeItem(open, i);
      if (i + 1 - open.start <= wholeChars) continue;
      const node: Node = { array: open.array, start: open.start, end: i + 1, items: open.items };
      const parent = stack.at(-1);
      if (!parent) root = node;
      else if (parent.child !== undefined) broken = true;
      else parent.child = node;
    } else if (c === 0x2c) {
      const open = stack.at(-1);
      if (!broken && open) closeItem(open, i);
    } else if (c === 0x3a) {
      const open = stack.at(-1);
      if (!broken && open && open.colon === -1) open.colon = i;
    }
  }
  if (broken || inString || stack.length > 0) throw new NotJsonError('not JSON');
  if (!root) return parse(text);
  if (!blank(text, 0, root.start) || !blank(text, root.end, text.length)) throw new NotJsonError('not JSON');

  const assemble = async (node: Node): Promise<unknown> => {
    const array: unknown[] = [];
    const object: Record<string, unknown> = {};
    let run: Item[] = [];
    const flush = async () => {
      if (run.length === 0) return;
      const inner = text.slice(run[0]!.start, run.at(-1)!.end);
      run = [];
      if (node.array) for (const v of parse(`[${inner}]`) as unknown[]) array.push(v);
      else {
        const part = parse(`{${inner}}`) as Record<string, unknown>;
        for (const key of Object.keys(part)) setMember(object, key, part[key]);
      }
      await turns.maybe();
    };
    for (const item of node.items) {
      const child = item.child;
      if (!child) {
        // An empty item (`[,1]`, `{"a": 1,}`) parsed in a run of its own would read as nothing at all.
        if (blank(text, item.start, item.end)) throw new NotJsonError('not JSON');
        run.push(item);
        if (item.end - run[0]!.start >= runChars) await flush();
        continue;
      }
      await flush();
      if (!blank(text, child.end, item.end)) throw new NotJsonError('not JSON');
      if (node.array) {
        if (!blank(text, item.start, child.start)) throw new NotJsonError('not JSON');
        array.push(await assemble(child));
      } else {
        if (item.colon === -1 || item.colon > child.start || !blank(text, item.colon + 1, child.start))
          throw new NotJsonError('not JSON');
        const key = parse(text.slice(item.start, item.colon));
        if (typeof key !== 'string') throw new NotJsonError('not JSON');
        setMember(object, key, await assemble(child));
      }
    }
    await flush();
    return node.array ? array : object;
  };
  return assemble(root);
}
