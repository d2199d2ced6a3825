import { operationFacts } from './contract.js';
import { apiErrorOf } from './errors.js';
import type { GetInit, InitArgs, Page, PagedPath, PageItem } from './types.js';

type Get = (
  path: string,
  init: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

interface PaginationBody {
  data: unknown[];
  pagination: { page: number; has_next: boolean };
}

/**
 * Every page of a paged list, from `params.query.page` (default 1) on, following `pagination.has_next`. The other
 * parameters (`size`, `updated_after`, …) are sent with every page. An error response ends the iteration by
 * throwing its `ApiError`, whatever `throwOnError` says: an iterator has no `{ error }` to return.
 */
export async function* paginate<P extends PagedPath>(
  get: Get,
  path: P,
  ...args: InitArgs<GetInit<P>>
): AsyncGenerator<Page<P>, void, undefined> {
  if (!operationFacts('GET', path)?.paged) {
    throw new TypeError(`${path} is not a paged list in the contract (its response has no pagination)`);
  }
  const init = (args[0] ?? {}) as { params?: { query?: Record<string, unknown> } } & Record<string, unknown>;
  let page = Number(init.params?.query?.page ?? 1);
  for (;;) {
    const result = await get(path, { ...init, params: { ...init.params, query: { ...init.params?.query, page } } });
    if (result.error !== undefined || result.data === undefined) {
      throw (
        apiErrorOf(result.response) ?? new Error(`GET ${path} page ${page} failed with HTTP ${result.response.status}`)
      );
    }
    const body = result.data as PaginationBody;
    yield body as Page<P>;
    if (!body.pagination?.has_next) return;
    // The next page is the one after the page the service says it returned.
    const next = Number(body.pagination.page) + 1;
    if (!(next > page))
      throw new Error(`GET ${path}: has_next is true but page ${body.pagination.page} does not advance`);
    page = next;
  }
}

/** Every item of a paged list, page after page (see `paginate`). */
export async function* items<P extends PagedPath>(
  get: Get,
  path: P,
  ...args: InitArgs<GetInit<P>>
): AsyncGenerator<PageItem<P>, void, undefined> {
  for await (const page of paginate(get, path, ...args)) {
    for (const item of (page as unknown as PaginationBody).data) yield item as PageItem<P>;
  }
}
