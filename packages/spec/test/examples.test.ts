// The named examples are what the docs show and the mock serves, so they must be true to the source's rules, not
// only to the schemas: paging arithmetic, bulk counts against rows, and success bodies that agree with each other.
import { describe, expect, it } from 'vitest';
import { operations } from '../src/index.js';
import { loadBuiltSpec } from './support.js';

const doc = loadBuiltSpec();

interface Paged {
  data: unknown[];
  pagination: { page: number; size: number; total: number; total_pages: number; has_next: boolean };
}

const pagedExamples = operations(doc).flatMap((op) =>
  Object.entries(op.responses['200']?.examples ?? {})
    .filter(([, ex]) => typeof ex.value === 'object' && ex.value !== null && 'pagination' in ex.value)
    .map(([name, ex]) => ({ label: `${op.operationId} ${name}`, value: ex.value as Paged })),
);

describe('paging in the examples', () => {
  it('finds the paged examples', () => {
    expect(pagedExamples.length).toBeGreaterThan(5);
  });

  it.each(pagedExamples)('$label: total_pages, has_next and the number of items agree', ({ value }) => {
    const { page, size, total, total_pages, has_next } = value.pagination;
    expect(total_pages).toBe(Math.ceil(total / size));
    expect(has_next).toBe(page < total_pages);
    expect(value.data.length).toBe(Math.max(0, Math.min(size, total - (page - 1) * size)));
  });
});
