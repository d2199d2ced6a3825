// Payment deposits (the JWT-only pay area).

import { ownerOf } from '../environment.js';
import { ApiError } from '../errors.js';
import { type DomainHandlers, paginationOf, windowOf } from './vocabulary.js';
import { dateFilter, depositView, type Domain } from './views.js';

export function depositHandlers(d: Domain): Pick<DomainHandlers, 'listDeposits'> {
  const { store, time } = d;
  return {
    async listDeposits({ query }, ctx) {
      if (query.date_to < query.date_from) {
        throw new ApiError('INVALID_PARAMETER', `date_to ${query.date_to} is before date_from ${query.date_from}.`);
      }
      const from = dateFilter(time, 'date_from', query.date_from)!;
      const to = dateFilter(time, 'date_to', query.date_to)!;
      // date_to is inclusive: the period ends where the next day starts (after 9999-12-31 too, which no Date names).
      const until = time.atTimeOnDayOf(to, 0, 0, 0, 1);
      const slice = await store.listDeposits(ownerOf(ctx), { from, until }, windowOf(query.page, query.size));
      // No match is 200 with an empty array, never 404 (source, Errors rule 1).
      return {
        data: slice.items.map((x) => depositView(x, time)),
        pagination: paginationOf(query.page, query.size, slice.total),
      };
    },
  };
}
