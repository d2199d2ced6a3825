// How every server and the MCP server repeat a client's own text in a message: escaped, bounded, named by place.
import { describe, expect, it } from 'vitest';
import { itemName, shown } from '../src/index.js';

describe('itemName and shown', () => {
  it('name an item by its place, as a client writes it', () => {
    expect(itemName('/orders/2/receiver_name')).toBe('orders[2].receiver_name');
    expect(itemName('', 'product_code')).toBe('product_code');
    expect(itemName('/a~1b/c~0d')).toBe('a/b.c~d');
  });

  it("escape and bound a client's own text", () => {
    expect(itemName('', 'a\u0010b\u009b')).toBe('a\\u0010b\\u009b');
    expect(shown('x'.repeat(300))).toBe(`${'x'.repeat(200)}…`);
    expect(shown('\ud800 \u2028')).toBe('\\ud800 \\u2028');
  });
});
