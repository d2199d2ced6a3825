// exceedsJsonDepth: the bound every server of the contract puts on a JSON body before parsing it.
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../src/index.js';

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
