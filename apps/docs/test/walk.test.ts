// The walk the site's rewrites share (descriptions for search, patterns in words, provisional badges).
import { describe, expect, it } from 'vitest';
import { forEachNode } from '../src/walk.js';

describe('forEachNode', () => {
  it('visits every object once, parents first, and enters no example or code sample', () => {
    const shared = { description: 'shared' };
    const tree = {
      description: 'root',
      properties: { a: shared, b: shared, list: [{ description: 'in a list' }] },
      example: { description: 'an example' },
      examples: { one: { value: { description: 'an examples entry' } } },
      'x-codeSamples': [{ description: 'a sample' }],
    };
    const seen: unknown[] = [];
    forEachNode([tree, { description: 'second part', again: shared }], (node) => seen.push(node.description));
    expect(seen).toEqual(['root', undefined, 'shared', 'in a list', 'second part']);
  });
});
