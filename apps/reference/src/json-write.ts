// A large JSON response written in slices of the event loop. The answer to a maximal bulk body holds a row per
// submitted row (src/json-slices.ts reads such a body the same way): JSON.stringify of it, the UTF-8 encoding of
// that text and its length counted again by the HTTP layer would hold the loop for several milliseconds at once.
// Written here member by member into UTF-8 bytes, with turns for other requests in between, the bytes are exactly
// JSON.stringify's: every value below the containers walked is JSON.stringify's own text.
import { SLICE_MS, Slices } from './slices.js';

/** Containers this many levels deep, or deeper, are written whole (a bulk row sits at the fourth level). */
const WALK_DEPTH = 3;
/** Text gathered before it is encoded: a piece short enough to encode in a fraction of a slice. */
const PIECE_CHARS = 64 * 1024;

/** A container walked member by member: an array or a plain object, with no `toJSON` of its own to call. */
function walked(value: unknown, depth: number): value is object {
  if (depth >= WALK_DEPTH || value === null || typeof value !== 'object') return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * JSON.stringify's text of a member or item below a walked container, undefined where it skips a member: a `toJSON`
 * is given the member's own key, as JSON.stringify gives it.
 */
function memberText(v: unknown, key: string): string | undefined {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return JSON.stringify(v);
  if (typeof (v as { toJSON?: unknown }).toJSON !== 'function') return JSON.stringify(v);
  const wrapped = JSON.stringify({ [key]: v });
  const prefix = `{${JSON.stringify(key)}:`;
  return wrapped.length > prefix.length ? wrapped.slice(prefix.length, -1) : undefined;
}

/** JSON.stringify(value) as UTF-8 bytes, written with turns of the event loop for others while it goes on. */
export async function stringifyInSlices(value: unknown, sliceMs = SLICE_MS): Promise<Buffer> {
  const slices = new Slices(sliceMs);
  const pieces: Buffer[] = [];
  let text = '';
  const add = async (s: string) => {
    text += s;
    if (text.length < PIECE_CHARS) return;
    pieces.push(Buffer.from(text, 'utf8'));
    text = '';
    await slices.maybe();
  };

  const write = async (v: unknown, depth: number): Promise<void> => {
    if (!walked(v, depth)) {
      const own = JSON.stringify(v);
      // Members JSON.stringify would skip never get here; a whole value it cannot write is a bug of the caller.
      if (own === undefined) throw new TypeError('the value has no JSON text');
      await add(own);
      return;
    }
    if (Array.isArray(v)) {
      await add('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) await add(',');
        const item: unknown = v[i];
        // What JSON.stringify writes for an item it cannot write (undefined, a function, a symbol).
        if (walked(item, depth + 1)) await write(item, depth + 1);
        else await add(memberText(item, String(i)) ?? 'null');
      }
      await add(']');
      return;
    }
    let first = true;
    await add('{');
    for (const key of Object.keys(v)) {
      const member: unknown = (v as Record<string, unknown>)[key];
      const own = walked(member, depth + 1) ? undefined : memberText(member, key);
      // A member JSON.stringify would skip.
      if (own === undefined && !walked(member, depth + 1)) continue;
      await add(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      if (own === undefined) await write(member, depth + 1);
      else await add(own);
    }
    await add('}');
  };

  await write(value, 0);
  if (text.length > 0) pieces.push(Buffer.from(text, 'utf8'));
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
}
