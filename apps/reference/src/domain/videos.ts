// Camera videos, looked up by invoice number.

import { ownerOf } from '../environment.js';
import { ApiError } from '../errors.js';
import type { DomainHandlers } from './vocabulary.js';
import { ServiceTime } from '@cls-api/spec';
import { type Domain, videoView } from './views.js';

export function videoHandlers(d: Domain): Pick<DomainHandlers, 'listInvoiceVideos'> {
  return {
    async listInvoiceVideos({ params }, ctx) {
      const videos = await d.store.listVideos(ownerOf(ctx), params.invoice_no, d.videosPerInvoice);
      // Another seller's invoice has no video for this caller either.
      if (videos.length === 0)
        throw new ApiError('CAM_INVOICE_NOT_FOUND', `No video was found for invoice ${params.invoice_no}.`);
      const now = ServiceTime.seconds(ctx.now);
      return { data: videos.map((v) => videoView(v, d, now)) };
    },
  };
}
