// A large JSON body read in slices of the event loop: checked for depth and parsed piece by piece, so that the other
// clients of the server wait for a slice (a few milliseconds), never for the whole body (a maximal bulk body is
// several megabytes: JSON.parse alone holds the loop for tens of milliseconds, decoding it as one string a few more).
// The result, and whether the text is accepted at all, are JSON.parse's: the bytes are cut at the text's own commas
// and brackets, and every piece is decoded and read by JSON.parse. The bytes are UTF-8 (the caller checks): no byte of
// a character beyond ASCII is below 0x80, so a comma, bracket or quote byte is always that character.
import { SLICE_MS, Slices } from './slices.js';

/** The text opens more than the allowed arrays or objects inside one another. */
export class TooDeepError extends Error {}
/** The text is not JSON. */
export class NotJsonError extends Error {}

export interface SliceOptions {
  /** Arrays and objects allowed inside one another. */
  maxDepth: number;
  /** A container of at most this many bytes is parsed whole, as a part of its parent. */
  wholeBytes?: number;
  /** Consecutive small items are parsed together up to about this many bytes. */
  runBytes?: number;
  /** The longest the work goes on before it lets the event loop serve others. */
  sliceMs?: number;
}

const DEFAULTS = { wholeBytes: 64 * 1024, runBytes: 32 * 1024, sliceMs: SLICE_MS };
const SCAN_BYTES = 256 * 1024;

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

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function blank(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isWhitespace(bytes[i]!)) return false;
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
 * The value of the JSON text of UTF-8 `bytes`, as JSON.parse gives it, read in slices: a scan finds the containers too large to parse
 * whole (and refuses a text nested deeper than `maxDepth`, before anything else, as `exceedsJsonDepth` does), then
 * each is assembled from its items, runs of small items parsed together.
 */
export async function parseJsonInSlices(bytes: Buffer, options: SliceOptions): Promise<unknown> {
  const text = (from: number, to: number) => bytes.toString('utf8', from, to);
  const wholeBytes = options.wholeBytes ?? DEFAULTS.wholeBytes;
  const runBytes = options.runBytes ?? DEFAULTS.runBytes;
  const turns = new Slices(options.sliceMs ?? DEFAULTS.sliceMs);

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
  for (let i = 0; i < bytes.length; i++) {
    if (i % SCAN_BYTES === 0) await turns.maybe();
    const c = bytes[i]!;
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
      if (open.items.length > 0 || open.child !== undefined || !blank(bytes, open.itemStart, i)) closeItem(open, i);
      if (i + 1 - open.start <= wholeBytes) continue;
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
  if (!root) return parse(text(0, bytes.length));
  if (!blank(bytes, 0, root.start) || !blank(bytes, root.end, bytes.length)) throw new NotJsonError('not JSON');

  const assemble = async (node: Node): Promise<unknown> => {
    const array: unknown[] = [];
    const object: Record<string, unknown> = {};
    let run: Item[] = [];
    const flush = async () => {
      if (run.length === 0) return;
      const inner = text(run[0]!.start, run.at(-1)!.end);
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
        if (blank(bytes, item.start, item.end)) throw new NotJsonError('not JSON');
        run.push(item);
        if (item.end - run[0]!.start >= runBytes) await flush();
        continue;
      }
      await flush();
      if (!blank(bytes, child.end, item.end)) throw new NotJsonError('not JSON');
      if (node.array) {
        if (!blank(bytes, item.start, child.start)) throw new NotJsonError('not JSON');
        array.push(await assemble(child));
      } else {
        if (item.colon === -1 || item.colon > child.start || !blank(bytes, item.colon + 1, child.start))
          throw new NotJsonError('not JSON');
        const key = parse(text(item.start, item.colon));
        if (typeof key !== 'string') throw new NotJsonError('not JSON');
        setMember(object, key, await assemble(child));
      }
    }
    await flush();
    return node.array ? array : object;
  };
  return assemble(root);
}
