import { describe, expect, it } from 'vitest';
import {
  BulkChunkError,
  QuotaExceededError,
  bulkOperations,
  limits,
  type BulkProgress,
  type BulkRow,
} from '../src/index.js';
import { apiError, json, orderRow, quota429, testClient, type Sent } from './support.js';

type OrderRow = BulkRow<'registerOrders'>;

/**
 * A bulk endpoint that answers one result row per submitted row, in order: every row whose number is divisible by 7
 * fails (as a duplicate), the others succeed.
 */
function bulkServer(
  resultsField: string,
  successCountField: string,
  rowsField: string,
  failAt?: { request: number; status: number; code: string; message: string },
) {
  let requests = 0;
  return (s: Sent) => {
    requests++;
    if (failAt && requests === failAt.request) return apiError(failAt.status, failAt.code, failAt.message);
    const rows = JSON.parse(s.body!)[rowsField] as { mall_order_no?: string; option_code?: string }[];
    const results = rows.map((r) => {
      const key = r.mall_order_no ?? r.option_code!;
      const n = Number(key.split('-').pop());
      const ok = n % 7 !== 0;
      return { key, success: ok, result_message: ok ? '' : `${key} already exists.` };
    });
    const created = results.filter((r) => r.success).length;
    return json(200, {
      success: true,
      data: { [successCountField]: created, failed_count: results.length - created, [resultsField]: results },
    });
  };
}

describe('bulk helpers', () => {
  it('exist for exactly the three bulk operations of the source, with the contract limit of 1,000 rows', () => {
    expect(Object.keys(bulkOperations).sort()).toEqual(['addProductOptions', 'registerDraftOrders', 'registerOrders']);
    for (const op of Object.values(bulkOperations)) expect(op.maxRows).toBe(limits.bulkRowsPerRequest);
    expect(limits.bulkRowsPerRequest).toBe(1000);
  });

  it('send 2,500 rows as 1,000 + 1,000 + 500, in order, and merge the results in submission order with summed counts', async () => {
    const { client, sent } = testClient(bulkServer('results', 'created_count', 'orders'));
    const rows = Array.from({ length: 2500 }, (_, i) => orderRow(i));
    const progress: BulkProgress<'registerOrders'>[] = [];
    const result = await client.bulk.registerOrders(rows, { onProgress: (p) => progress.push(p) });

    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual(Array(3).fill('POST /v3/wms/orders'));
    const bodies = sent.map((s) => JSON.parse(s.body!).orders as OrderRow[]);
    expect(bodies.map((b) => b.length)).toEqual([1000, 1000, 500]);
    expect(bodies.flat()).toEqual(rows);

    expect(result.results).toHaveLength(2500);
    expect(result.results.map((r) => (r as unknown as { key: string }).key)).toEqual(rows.map((r) => r.mall_order_no));
    const failed = rows.filter((_, i) => i % 7 === 0).length;
    expect(result.failed_count).toBe(failed);
    expect(result.created_count).toBe(2500 - failed);

    expect(progress.map((p) => [p.chunkIndex, p.chunkCount, p.rowsSent, p.rowsTotal])).toEqual([
      [0, 3, 1000, 2500],
      [1, 3, 2000, 2500],
      [2, 3, 2500, 2500],
    ]);
    expect(progress.at(-1)!.succeeded).toBe(2500 - failed);
    expect(progress.at(-1)!.failed).toBe(failed);
    expect(progress[2]!.chunkResult.results).toHaveLength(500);
  });

  it("uses each operation's own field names (drafts, added_count / options)", async () => {
    const drafts = testClient(bulkServer('drafts', 'created_count', 'orders'));
    const d = await drafts.client.bulk.registerDraftOrders(Array.from({ length: 1001 }, (_, i) => orderRow(i + 1)));
    expect(drafts.sent.map((s) => s.path)).toEqual(['/v3/wms/orders/draft', '/v3/wms/orders/draft']);
    expect(d.drafts).toHaveLength(1001);
    expect(d.created_count + d.failed_count).toBe(1001);

    const options = testClient(bulkServer('options', 'added_count', 'options'));
    const rows = Array.from({ length: 1200 }, (_, i) => ({
      option_code: `OPT-${i + 1}`,
      option_name: `Option ${i + 1}`,
    }));
    const o = await options.client.bulk.addProductOptions(rows, {
      params: { path: { product_code: 'SHIRT-LINEN-01' } },
    });
    expect(options.sent.map((s) => s.path)).toEqual(Array(2).fill('/v3/wms/products/SHIRT-LINEN-01/options'));
    expect(options.sent.map((s) => JSON.parse(s.body!).options.length)).toEqual([1000, 200]);
    expect(o.options).toHaveLength(1200);
    expect(o.added_count + o.failed_count).toBe(1200);
  });

  it('a 400 for a chunk stops the job and says which chunk, which rows and why', async () => {
    const { client, sent } = testClient(
      bulkServer('drafts', 'created_count', 'orders', {
        request: 2,
        status: 400,
        code: 'REQUIRED_PARAMETER',
        message: 'orders[2].receiver_name is required. Nothing was registered.',
      }),
    );
    const rows = Array.from({ length: 2500 }, (_, i) => orderRow(i + 1));
    const err = (await client.bulk.registerDraftOrders(rows).catch((e: unknown) => e)) as BulkChunkError;
    expect(sent).toHaveLength(2);
    expect(err).toBeInstanceOf(BulkChunkError);
    expect(err.operationId).toBe('registerDraftOrders');
    expect(err.chunkIndex).toBe(1);
    expect(err.chunkCount).toBe(3);
    expect(err.rowStart).toBe(1000);
    expect(err.rowEnd).toBe(2000);
    expect(err.status).toBe(400);
    expect(err.code).toBe('REQUIRED_PARAMETER');
    expect(err.chunkWritten).toBe(false);
    expect(err.message).toContain('registerDraftOrders stopped at chunk 2 of 3 (rows 1000-1999)');
    expect(err.message).toContain('400 REQUIRED_PARAMETER: orders[2].receiver_name is required');
    expect(err.message).toContain('Nothing of this chunk was registered');
    expect(err.message).toContain('rows[1000]');
    // One full stop after the service's sentence, never two.
    expect(err.message).toContain('Nothing was registered. Nothing of this chunk');
    expect(err.message).not.toMatch(/\.\./);
    const completed = err.completed as { created_count: number; failed_count: number; drafts: unknown[] };
    expect(completed.drafts).toHaveLength(1000);
    expect(completed.created_count + completed.failed_count).toBe(1000);
  });

  it('a 500 for a chunk stops the job without resending it, and says the chunk may have been stored', async () => {
    const { client, sent } = testClient(
      bulkServer('results', 'created_count', 'orders', {
        request: 1,
        status: 500,
        code: 'INTERNAL_ERROR',
        message: 'Internal server error.',
      }),
      { throwOnError: true },
    );
    const err = (await client.bulk
      .registerOrders([orderRow(1), orderRow(2)])
      .catch((e: unknown) => e)) as BulkChunkError;
    expect(sent).toHaveLength(1);
    expect(err).toBeInstanceOf(BulkChunkError);
    expect(err.chunkIndex).toBe(0);
    expect(err.chunkWritten).toBe('unknown');
    expect(err.message).toContain('was not sent again');
    expect((err.cause as { report(): { body: string } }).report().body).toBe(
      JSON.stringify({ orders: [orderRow(1), orderRow(2)] }),
    );
  });

  it('the quota 429 stops the job with the QuotaExceededError as the cause', async () => {
    const { client, sent } = testClient(() => quota429());
    const err = (await client.bulk.registerOrders([orderRow(1)]).catch((e: unknown) => e)) as BulkChunkError;
    expect(sent).toHaveLength(1);
    expect(err.cause).toBeInstanceOf(QuotaExceededError);
    expect(err.chunkWritten).toBe(false);
  });

  it('sends nothing for no rows', async () => {
    const { client, sent } = testClient(bulkServer('results', 'created_count', 'orders'));
    expect(await client.bulk.registerOrders([])).toEqual({ created_count: 0, failed_count: 0, results: [] });
    expect(sent).toHaveLength(0);
  });

  it('accepts a smaller chunk size but never one above the contract limit', async () => {
    const { client, sent } = testClient(bulkServer('results', 'created_count', 'orders'));
    await client.bulk.registerOrders(
      Array.from({ length: 5 }, (_, i) => orderRow(i + 1)),
      { chunkSize: 2 },
    );
    expect(sent.map((s) => JSON.parse(s.body!).orders.length)).toEqual([2, 2, 1]);
    await expect(client.bulk.registerOrders([orderRow(1)], { chunkSize: 1001 })).rejects.toThrow(
      /chunkSize must be an integer from 1 to 1000/,
    );
  });

  it('stops between chunks when aborted, saying the next chunk was not sent', async () => {
    const controller = new AbortController();
    const { client, sent } = testClient(bulkServer('results', 'created_count', 'orders'));
    const err = (await client.bulk
      .registerOrders(
        Array.from({ length: 3 }, (_, i) => orderRow(i + 1)),
        {
          chunkSize: 1,
          onProgress: (p) => {
            if (p.chunkIndex === 0) controller.abort();
          },
          signal: controller.signal,
        },
      )
      .catch((e: unknown) => e)) as BulkChunkError;
    expect(sent).toHaveLength(1);
    expect(err.chunkIndex).toBe(1);
    expect(err.chunkWritten).toBe(false);
  });
});
