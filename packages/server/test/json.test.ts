// exceedsJsonDepth: the bound every server of the contract puts on a JSON body before parsing it.
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH, unpairedSurrogateEscape, unpairedSurrogateMessage } from '../src/index.js';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('exceedsJsonDepth', () => {
  it("allows the contract's bodies and anything up to the bound", () => {
    expect(exceedsJsonDepth('{"orders":[{"mall_order_no":"M-1","quantity":1}]}')).toBe(false);
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(`{"a":${nested(MAX_JSON_DEPTH - 1, '{"b":', '}')}}`)).toBe(false);
  });

  it('refuses one level more, and 100,000 levels without overflowing its own stack', () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth(nested(100_000))).toBe(true);
    expect(exceedsJsonDepth(Buffer.from(nested(100_000, '{"a":', '}')))).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ memo: `${'['.repeat(500)}"\\${'{'.repeat(500)}` });
    expect(exceedsJsonDepth(text, 2)).toBe(false);
    expect(exceedsJsonDepth('["\\"[[[["]', 1)).toBe(false);
  });
});

describe('unpairedSurrogateEscape', () => {
  it('finds a high or a low half alone, as written, wherever it is in a string', () => {
    expect(unpairedSurrogateEscape('{"mall_order_no":"M-\\ud800"}')).toBe('\\ud800');
    expect(unpairedSurrogateEscape('{"memo":"\\uDFFFx"}')).toBe('\\uDFFF');
    // A high half followed by anything but a low half: text, another high half, or the end of the string.
    expect(unpairedSurrogateEscape('["\\uD83Dx"]')).toBe('\\uD83D');
    expect(unpairedSurrogateEscape('["\\uD83D\\uD83D\\uDE00"]')).toBe('\\uD83D');
    expect(unpairedSurrogateEscape('["\\ud83d"]')).toBe('\\ud83d');
    // A low half after a pair is alone.
    expect(unpairedSurrogateEscape('["\\uD83D\\uDE00\\uDE00"]')).toBe('\\uDE00');
    // In a key as in a value, and in bytes as in text.
    expect(unpairedSurrogateEscape(Buffer.from('{"\\udc00":1}'))).toBe('\\udc00');
    // What JSON.stringify writes for a string that is not Unicode text.
    expect(unpairedSurrogateEscape(JSON.stringify({ orders: [{ receiver_name: `Kim \ud800` }] }))).toBe('\\ud800');
  });

  it('lets a pair, a character of the basic plane and an escaped backslash followed by u through', () => {
    expect(unpairedSurrogateEscape('["\\uD83D\\uDE00", "\\ud83d\\ude00"]')).toBeUndefined();
    expect(unpairedSurrogateEscape(JSON.stringify({ name: '김민지 😀 \u00e9' }))).toBeUndefined();
    expect(unpairedSurrogateEscape('["\\u00e9\\uD7FF\\uE000"]')).toBeUndefined();
    // `\\ud800` is a backslash and the text "ud800"; `\\\\ud800` two backslashes and that text.
    expect(unpairedSurrogateEscape('["\\\\ud800"]')).toBeUndefined();
    expect(unpairedSurrogateEscape('["\\\\\\\\ud800"]')).toBeUndefined();
    // An escaped backslash before a real escape: found.
    expect(unpairedSurrogateEscape('["\\\\\\ud800"]')).toBe('\\ud800');
    // Not an escape of four hex digits: for the parse to refuse, not this.
    expect(unpairedSurrogateEscape('["\\ud8"]')).toBeUndefined();
    expect(unpairedSurrogateEscape('["\\uzzzz"]')).toBeUndefined();
  });

  it('reads a view into a larger buffer as that view only', () => {
    // A small Buffer is a view into a shared pool: what lies past the view's end or before its start is not read.
    const whole = Buffer.from('["\\ud800"]["ok"]');
    expect(unpairedSurrogateEscape(whole.subarray(10))).toBeUndefined();
    expect(unpairedSurrogateEscape(new Uint8Array(whole.buffer, whole.byteOffset, 7))).toBeUndefined();
    expect(unpairedSurrogateEscape(new Uint8Array(whole.buffer, whole.byteOffset, 10))).toBe('\\ud800');
  });

  it('names the escape in the message', () => {
    expect(unpairedSurrogateMessage('\\ud800')).toBe(
      'The request body is not valid Unicode: its escape \\ud800 is half of a surrogate pair, without the other half.',
    );
  });
});
