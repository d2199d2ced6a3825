// Returns of orders, withdrawable until the first 18:00 service time after they were registered (DECISIONS G13).

import { ownerOf } from '../environment.js';
import { ApiError } from '../errors.js';
import type { DomainHandlers } from './vocabulary.js';
import { ServiceTime } from '@cls-api/spec';
import { dailyNumber, type Domain, returnView } from './views.js';

type ReturnHandlers = Pick<DomainHandlers, 'registerReturn' | 'getReturn' | 'cancelReturn'>;

export function returnHandlers(d: Domain): ReturnHandlers {
  const { store, time, returnWithdrawalDeadline: deadline } = d;

  return {
    async registerReturn({ body }, ctx) {
      const at = ServiceTime.seconds(ctx.now);
      const owner = ownerOf(ctx);
      const registered = await store.transaction(async (tx) => {
        const order = await tx.findOrder(owner, body.order_no);
        if (!order) throw new ApiError('ORDER_NOT_FOUND', `Order ${body.order_no} was not found.`);
        const open = await tx.findOpenReturn(owner, body.order_no);
        if (open) {
          throw new ApiError(
            'DUPLICATE',
            `Order ${body.order_no} already has return ${open.return_no}, which is not withdrawn.`,
          );
        }
        const date = time.compactDateOf(at);
        const record = {
          return_no: dailyNumber('RET', date, await tx.nextSequence('return_no', date)),
          order_no: body.order_no,
          reason: body.reason,
          registered_at: at,
          cancellable_until: time.nextTimeOfDay(at, deadline),
          withdrawn_at: null,
        };
        await tx.insertReturn(owner, record);
        return record;
      });
      return { data: returnView(registered, time) };
    },

    async getReturn({ params }, ctx) {
      const found = await store.findReturn(ownerOf(ctx), params.return_no);
      // No return-specific code exists in the catalogue, so the common one applies (DECISIONS getReturn).
      if (!found) throw new ApiError('NOT_FOUND', `Return ${params.return_no} was not found.`);
      return { data: returnView(found, time) };
    },

    async cancelReturn({ params }, ctx) {
      const at = ServiceTime.seconds(ctx.now);
      const owner = ownerOf(ctx);
      const result = await store.transaction(async (tx) => {
        const found = await tx.findReturn(owner, params.return_no);
        if (!found) throw new ApiError('NOT_FOUND', `Return ${params.return_no} was not found.`);
        // Withdrawing a withdrawn return changes nothing and succeeds, even after the window.
        if (found.withdrawn_at !== null) return found;
        // The window is open strictly before its end: at the deadline itself it has passed.
        if (at >= found.cancellable_until) {
          throw new ApiError(
            'RETURN_CANCEL_EXPIRED',
            `Return ${found.return_no} could be withdrawn until ${time.format(found.cancellable_until)} (${time.timeZone}).`,
          );
        }
        await tx.markReturnWithdrawn(owner, found.return_no, at);
        return { ...found, withdrawn_at: at };
      });
      return { data: returnView(result, time) };
    },
  };
}
