// Paged lists across pages: the same total on every page, no item twice, the pages adding up to the total, and a
// page past the end empty. Each single page is also held to `pagination_consistent` by the response checks.
import type { OperationInfo } from '@cls-api/spec';
import { dataOf, type CaseContext, type CaseDef, type RunEnv } from '../run/case.js';
import { knownPathValues } from './shared/paths.js';
import type { Exchange } from '../run/http.js';
import { validQuery } from './shared/inputs.js';

interface Page {
  items: unknown[];
  exchange: Exchange;
  pagination: { page: number; size: number; total: number; total_pages: number; has_next: boolean };
}

export function pagingCases(env: RunEnv): CaseDef[] {
  const cases: CaseDef[] = [];
  for (const op of env.contract.operations) {
    const paged = env.contract.paged(op);
    if (!paged || op.method !== 'get') continue;
    cases.push({
      id: `paging/${op.operationId}/across_pages`,
      phase: 'paging',
      title: `GET ${op.path}: pages agree with each other and add up to total`,
      operations: [op.operationId],
      writes: false,
      run: async (t) => {
        // Paging through the shared page and size parameters is proven once per area, by the first list read across.
        const proof = `across_pages:${op.area}:${t.contract.parameterComponent(op, paged.sizeParameter)}|${t.contract.parameterComponent(op, paged.pageParameter)}`;
        const by = t.provenBy(proof);
        if (by !== undefined) return t.covered(by, 'pages agree with each other and add up to total');
        await acrossPages(t, op, paged);
        if (t.failures.length === 0) t.proved(proof);
      },
    });
  }
  return cases;
}

async function acrossPages(
  t: CaseContext,
  op: OperationInfo,
  paged: NonNullable<ReturnType<CaseContext['contract']['paged']>>,
): Promise<void> {
  const path = await knownPathValues(t, op);
  // Required filters only, the same on every page, so that every page lists the same set.
  const filters = validQuery(t, op, { optional: false });
  const sizeSchema = t.contract.resolve(paged.sizeParameter.schema);
  const min = typeof sizeSchema.minimum === 'number' ? sizeSchema.minimum : 1;
  const max = typeof sizeSchema.maximum === 'number' ? sizeSchema.maximum : 100;
  const small = Math.min(Math.max(2, min), max);
  const get = async (page: number, size: number): Promise<Page | undefined> => {
    const ex = await t.call(op, {
      path,
      query: { ...filters, [paged.pageParameter.name]: page, [paged.sizeParameter.name]: size },
    });
    if (!t.expect(ex, op, { status: t.contract.successStatus(op), why: `page ${page} of size ${size}` }))
      return undefined;
    const body = ex.response.json as { pagination?: Page['pagination'] };
    if (!body.pagination) return undefined;
    return { items: dataOf<unknown[]>(ex) ?? [], pagination: body.pagination, exchange: ex };
  };

  const first = await get(1, small);
  if (!first) return;
  const { total, total_pages: totalPages } = first.pagination;
  const seen = new Map<string, number>();
  const remember = (p: Page) => {
    for (const item of p.items) {
      const id = JSON.stringify(item);
      const where = seen.get(id);
      t.assert(
        where === undefined || where === p.pagination.page,
        'pagination_across_pages',
        'no item on two pages',
        `an item on pages ${where} and ${p.pagination.page}: ${id.slice(0, 120)}`,
        t.last,
        op,
      );
      seen.set(id, p.pagination.page);
    }
  };
  remember(first);
  if (totalPages >= 2) {
    const second = await get(2, small);
    if (second) {
      sameTotal(t, op, total, second);
      remember(second);
    }
  }
  const beyond = await get(Math.max(totalPages, 1) + 1, small);
  if (beyond) {
    sameTotal(t, op, total, beyond);
    t.assert(
      beyond.items.length === 0 && !beyond.pagination.has_next,
      'pagination_across_pages',
      'a page past the last to be empty with has_next false',
      `${beyond.items.length} items, has_next ${beyond.pagination.has_next}`,
      t.last,
      op,
    );
  }
  // A list that fits on the first page: that page holds it all, total distinct items.
  if (total > 0 && totalPages === 1) {
    const distinct = new Set(first.items.map((i) => JSON.stringify(i))).size;
    t.assert(
      first.items.length === total && distinct === total,
      'pagination_across_pages',
      `the only page of size ${small} to hold total ${total} distinct items`,
      `${first.items.length} items, ${distinct} distinct`,
      first.exchange,
      op,
    );
    return;
  }
  // When the whole list fits in two pages of the largest size, walk it all: the pages must add up to total.
  if (total > 0 && Math.ceil(total / max) <= 2) {
    const all: Page[] = [];
    for (let page = 1; page <= Math.ceil(total / max); page++) {
      const p = await get(page, max);
      if (!p) return;
      all.push(p);
    }
    const count = all.reduce((n, p) => n + p.items.length, 0);
    const distinct = new Set(all.flatMap((p) => p.items.map((i) => JSON.stringify(i)))).size;
    const current = all[all.length - 1]!.pagination.total;
    t.assert(
      count === current && distinct === count,
      'pagination_across_pages',
      `the pages of size ${max} to hold total ${current} distinct items`,
      `${count} items, ${distinct} distinct`,
      t.last,
      op,
    );
  }
}

function sameTotal(t: CaseContext, op: OperationInfo, total: number, page: Page): void {
  t.assert(
    page.pagination.total === total,
    'pagination_across_pages',
    `total ${total} on every page`,
    `total ${page.pagination.total} on page ${page.pagination.page}`,
    t.last,
    op,
  );
}
